/**
 * Answers where node-rpc once differed from every peer, found by a client library's integration
 * suite: each is asked through viem of node-rpc and of anvil beside it (of the hardhat node where
 * anvil lacks the method), and both must give the same answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, createWalletClient, defineChain, http, parseGwei, type Address, type Hex, type PublicClient, type WalletClient } from 'viem';
import type { Anvil } from '../support/anvil.js';
import { closeBeside, startBeside } from '../support/beside.js';
import { ADDRS, type TestNode } from '../support/node.js';

const chain = defineChain({
  id: 984,
  name: 'node-rpc',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
});

const FROM = ADDRS[0] as Address;
const TO = ADDRS[2] as Address;

interface Peer {
  name: string;
  pub: PublicClient;
  wallet: WalletClient;
}

const peer = (name: string, url: string): Peer => ({
  name,
  pub: createPublicClient({ chain, transport: http(url) }),
  wallet: createWalletClient({ chain, transport: http(url), account: FROM }),
});

/** `fn`'s answer from each peer. */
const onEach = <T>(peers: Peer[], fn: (p: Peer) => Promise<T>): Promise<T[]> => Promise.all(peers.map(fn));

describe('answers the peers give, through viem, beside anvil', () => {
  let ours: TestNode;
  let anvil: Anvil;
  let peers: Peer[];

  before(async () => {
    ({ ours, anvil } = await startBeside());
    peers = [peer('node-rpc', ours.url), peer('anvil', anvil.url)];
  });
  after(() => closeBeside(ours, anvil));

  describe('the fee fields decide the transaction type, as geth TransactionArgs decides', () => {
    // What a client sends when it fills an access-list transaction with EIP-1559 fees.
    const mixed = { type: 'eip2930', maxFeePerGas: parseGwei('2'), maxPriorityFeePerGas: 1n } as const;

    test('eth_call with type 1 and EIP-1559 fees runs as type 2 at those fees', async () => {
      const answers = await onEach(peers, (p) => p.pub.call({ account: FROM, to: TO, ...(mixed as object) }));
      assert.deepEqual(answers, [{ data: undefined }, { data: undefined }]);
    });

    test('eth_sendTransaction with type 1 and EIP-1559 fees mines a type 2 transaction at the caller fees', async () => {
      const txs = await onEach(peers, async (p) => {
        const hash = await p.wallet.sendTransaction({ account: FROM, chain, to: TO, value: 1n, ...(mixed as object) } as never);
        const r = await p.pub.waitForTransactionReceipt({ hash });
        const tx = await p.pub.getTransaction({ hash });
        return { status: r.status, type: tx.type, maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas };
      });
      assert.deepEqual(txs[0], { status: 'success', type: 'eip1559', maxFeePerGas: parseGwei('2'), maxPriorityFeePerGas: 1n });
      assert.deepEqual(txs[0], txs[1]);
    });

    test('a gas price with type 2 makes a legacy transaction; with an access list, type 1', async () => {
      const sent = async (p: Peer, fields: object) => {
        const hash = (await p.pub.request({ method: 'eth_sendTransaction', params: [{ from: FROM, to: TO, ...fields }] } as never)) as Hex;
        await p.pub.waitForTransactionReceipt({ hash });
        const tx = await p.pub.getTransaction({ hash });
        return { type: tx.type, gasPrice: tx.gasPrice };
      };
      const gasPrice = parseGwei('3');
      const legacy = await onEach(peers, (p) => sent(p, { type: '0x2', gasPrice: '0xb2d05e00' }));
      assert.deepEqual(legacy, [{ type: 'legacy', gasPrice }, { type: 'legacy', gasPrice }]);
      const withList = await onEach(peers, (p) => sent(p, { gasPrice: '0xb2d05e00', accessList: [] }));
      assert.deepEqual(withList, [{ type: 'eip2930', gasPrice }, { type: 'eip2930', gasPrice }]);
    });
  });

  describe('an unknown type in a call request is ignored, as geth ignores it; a raw transaction of an unknown type is refused', () => {
    const probe = { from: FROM, to: TO, value: '0x1', type: '0xf' };

    test('eth_call and eth_estimateGas with type 0xf answer as without it', async () => {
      const calls = await onEach(peers, (p) => p.pub.request({ method: 'eth_call', params: [probe, 'latest'] } as never));
      assert.deepEqual(calls, ['0x', '0x']);
      const estimates = await onEach(peers, (p) => p.pub.request({ method: 'eth_estimateGas', params: [probe] } as never));
      assert.deepEqual(estimates, ['0x5208', '0x5208']);
    });

    test('eth_sendRawTransaction of type 0x0f is refused by both', async () => {
      const refusals = await onEach(peers, async (p) => {
        try {
          await p.pub.request({ method: 'eth_sendRawTransaction', params: ['0x0fc0'] } as never);
          return 'accepted';
        } catch {
          return 'refused';
        }
      });
      assert.deepEqual(refusals, ['refused', 'refused']);
      const ours = await peers[0]!.pub.request({ method: 'eth_sendRawTransaction', params: ['0x0fc0'] } as never).catch((e: Error) => e);
      assert.match(String((ours as Error).message), /transaction type not supported: type 15/);
    });
  });
});
