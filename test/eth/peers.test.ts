/**
 * Answers where node-rpc once differed from every peer, found by a client library's integration
 * suite: each is asked through viem of node-rpc and of anvil beside it (of the hardhat node where
 * anvil lacks the method), and both must give the same answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, createWalletClient, decodeFunctionResult, defineChain, encodeFunctionData, http, parseGwei, type Address, type Hex, type PublicClient, type WalletClient } from 'viem';
import type { Anvil } from '../support/anvil.js';
import { closeBeside, startBeside } from '../support/beside.js';
import { startHardhatNode, type HardhatNode } from '../support/hardhatNode.js';
import { ADDRS, artifact, startTestNode, type TestNode } from '../support/node.js';

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

    test('eth_call and eth_estimateGas with type 1 and EIP-1559 fees run as type 2 at those fees', async () => {
      // Sent as the client sends it: viem's call action leaves `type` out, so the request goes through its transport as is.
      const request = { from: FROM, to: TO, type: '0x1', maxFeePerGas: '0x77359400', maxPriorityFeePerGas: '0x1' };
      const calls = await onEach(peers, (p) => p.pub.request({ method: 'eth_call', params: [request, 'latest'] } as never));
      assert.deepEqual(calls, ['0x', '0x']);
      const estimates = await onEach(peers, (p) => p.pub.request({ method: 'eth_estimateGas', params: [request] } as never));
      assert.deepEqual(estimates, ['0x5208', '0x5208']);
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

  describe('pending in every block method is the pending block: number head + 1, empty under automine, the pool with mining off', () => {
    const rpc = (p: Peer, method: string, params: unknown[] = []) => p.pub.request({ method, params } as never) as Promise<any>;

    test('under automine the pending block is the next one, empty, where latest holds the last transaction', async () => {
      const answers = await onEach(peers, async (p) => {
        const hash = await p.wallet.sendTransaction({ account: FROM, chain, to: TO, value: 1n });
        await p.pub.waitForTransactionReceipt({ hash });
        const latest = await p.pub.getBlock({ blockTag: 'latest' });
        const pending = await p.pub.getBlock({ blockTag: 'pending' });
        return {
          latestCount: await p.pub.getBlockTransactionCount({ blockTag: 'latest' }),
          pendingCount: await p.pub.getBlockTransactionCount({ blockTag: 'pending' }),
          number: pending.number! - latest.number,
          parent: pending.parentHash === latest.hash,
          transactions: pending.transactions,
          gasUsed: pending.gasUsed,
        };
      });
      assert.deepEqual(answers[0], { latestCount: 1, pendingCount: 0, number: 1n, parent: true, transactions: [], gasUsed: 0n });
      assert.deepEqual(answers[0], answers[1]);
    });

    test('with mining off it holds the waiting transactions, in the order the next block takes them, and that block is mined as shown', async () => {
      const answers = await onEach(peers, async (p) => {
        await rpc(p, 'evm_setAutomine', [false]);
        try {
          const sent = [];
          for (const value of [1n, 2n]) sent.push(await p.wallet.sendTransaction({ account: FROM, chain, to: TO, value }));
          const head = await p.pub.getBlockNumber();
          const pending = await p.pub.getBlock({ blockTag: 'pending' });
          const full = await p.pub.getBlock({ blockTag: 'pending', includeTransactions: true });
          const count = await p.pub.getBlockTransactionCount({ blockTag: 'pending' });
          await rpc(p, 'evm_mine');
          const mined = await p.pub.getBlock({ blockTag: 'latest' });
          return {
            number: pending.number! - head,
            count,
            inOrder: pending.transactions.join() === sent.join(),
            fullHashes: full.transactions.map((t) => t.hash).join() === sent.join(),
            gasUsed: pending.gasUsed,
            minedSame: mined.transactions.join() === sent.join() && mined.number === pending.number,
          };
        } finally {
          await rpc(p, 'evm_setAutomine', [true]);
        }
      });
      assert.deepEqual(answers[0], { number: 1n, count: 2, inOrder: true, fullHashes: true, gasUsed: 42_000n, minedSame: true });
      assert.deepEqual(answers[0], answers[1]);
    });

    test('node-rpc: the pending block is the block mined next, field for field, and calls at pending run in it', async () => {
      const p = peers[0]!;
      const timeLock = artifact('TimeLock');
      const deployed = await p.wallet.deployContract({ account: FROM, chain, abi: timeLock.abi, bytecode: timeLock.bytecode });
      const lock = (await p.pub.waitForTransactionReceipt({ hash: deployed })).contractAddress!;
      await rpc(p, 'evm_setAutomine', [false]);
      try {
        const sent = await p.wallet.sendTransaction({ account: FROM, chain, to: TO, value: 3n });
        const head = await p.pub.getBlock({ blockTag: 'latest' });
        await rpc(p, 'evm_setNextBlockTimestamp', [Number(head.timestamp + 100n)]);
        const pending = await rpc(p, 'eth_getBlockByNumber', ['pending', false]);
        // geth's pending block: not sealed, so no hash, nonce or miner.
        assert.deepEqual([pending.hash, pending.nonce, pending.miner], [null, null, null]);
        assert.deepEqual(pending.transactions, [sent]);
        // The block calls at pending run in: its number, timestamp, base fee and gas limit.
        const data = encodeFunctionData({ abi: timeLock.abi, functionName: 'env' });
        const { data: out } = await p.pub.call({ account: ADDRS[1] as Address, to: lock, data, gasPrice: parseGwei('10'), blockTag: 'pending' });
        const [number, timestamp, basefee, , , gaslimit] = decodeFunctionResult({ abi: timeLock.abi, functionName: 'env', data: out! }) as bigint[];
        assert.deepEqual([number, timestamp, basefee, gaslimit].map((v) => '0x' + v.toString(16)), [pending.number, pending.timestamp, pending.baseFeePerGas, pending.gasLimit]);
        // Its transaction as the block shows it, and its receipt.
        const tx = await rpc(p, 'eth_getTransactionByBlockNumberAndIndex', ['pending', '0x0']);
        assert.deepEqual([tx.hash, tx.blockNumber, tx.transactionIndex], [sent, pending.number, '0x0']);
        const receipts = await rpc(p, 'eth_getBlockReceipts', ['pending']);
        assert.deepEqual(receipts.map((r: any) => [r.transactionHash, r.status, r.gasUsed]), [[sent, '0x1', '0x5208']]);
        assert.equal(await rpc(p, 'eth_getUncleCountByBlockNumber', ['pending']), '0x0');
        await rpc(p, 'evm_mine');
        const mined = await rpc(p, 'eth_getBlockByNumber', ['latest', false]);
        const fields = ['parentHash', 'number', 'timestamp', 'stateRoot', 'transactionsRoot', 'receiptsRoot', 'logsBloom', 'gasUsed', 'gasLimit', 'baseFeePerGas', 'mixHash', 'size', 'transactions'];
        assert.deepEqual(Object.fromEntries(fields.map((f) => [f, mined[f]])), Object.fromEntries(fields.map((f) => [f, pending[f]])));
      } finally {
        await rpc(p, 'evm_setAutomine', [true]);
      }
    });
  });
});

describe('eth_pendingTransactions answers as geth serves it, through viem, beside the hardhat node (anvil lacks it)', () => {
  let ours: TestNode;
  let hardhat: HardhatNode;
  let peers: Peer[];
  const rpc = (p: Peer, method: string, params: unknown[] = []) => p.pub.request({ method, params } as never) as Promise<any>;

  before(async () => {
    [ours, hardhat] = await Promise.all([startTestNode(), startHardhatNode()]);
    peers = [peer('node-rpc', ours.url), peer('hardhat', hardhat.url)];
  });
  after(async () => {
    await ours?.close();
    await hardhat?.close();
  });

  test('under automine, nothing waits: []', async () => {
    await onEach(peers, async (p) => p.pub.waitForTransactionReceipt({ hash: await p.wallet.sendTransaction({ account: FROM, chain, to: TO, value: 1n }) }));
    assert.deepEqual(await onEach(peers, (p) => rpc(p, 'eth_pendingTransactions')), [[], []]);
  });

  test('with mining off, the waiting transactions of the dev accounts, in nonce order, with no block', async () => {
    const answers = await onEach(peers, async (p) => {
      await rpc(p, 'evm_setAutomine', [false]);
      try {
        const sent = [];
        for (const value of [1n, 2n]) sent.push(await p.wallet.sendTransaction({ account: FROM, chain, to: TO, value }));
        const list = await rpc(p, 'eth_pendingTransactions');
        await rpc(p, 'evm_mine');
        const after = await rpc(p, 'eth_pendingTransactions');
        return {
          same: list.map((t: any) => t.hash).join() === sent.join(),
          txs: list.map((t: any) => ({ from: t.from, to: t.to, value: t.value, blockHash: t.blockHash, blockNumber: t.blockNumber, transactionIndex: t.transactionIndex })),
          after,
        };
      } finally {
        await rpc(p, 'evm_setAutomine', [true]);
      }
    });
    const waiting = (value: string) => ({ from: FROM.toLowerCase(), to: TO.toLowerCase(), value, blockHash: null, blockNumber: null, transactionIndex: null });
    assert.deepEqual(answers[0], { same: true, txs: [waiting('0x1'), waiting('0x2')], after: [] });
    assert.deepEqual(answers[0], answers[1]);
  });

  test("node-rpc: an impersonated sender's waiting transaction is in the pool, not in the list (geth lists the node's accounts only)", async () => {
    const p = peers[0]!;
    const other = '0x0000000000000000000000000000000000000abc';
    await rpc(p, 'anvil_impersonateAccount', [other]);
    await rpc(p, 'anvil_setBalance', [other, '0xde0b6b3a7640000']);
    await rpc(p, 'evm_setAutomine', [false]);
    try {
      const theirs = await rpc(p, 'eth_sendTransaction', [{ from: other, to: TO, value: '0x1' }]);
      const mine = await p.wallet.sendTransaction({ account: FROM, chain, to: TO, value: 1n });
      assert.equal((await rpc(p, 'txpool_status')).pending, '0x2');
      assert.deepEqual((await rpc(p, 'eth_pendingTransactions')).map((t: any) => t.hash), [mine]);
      assert.ok(theirs);
      await rpc(p, 'evm_mine');
    } finally {
      await rpc(p, 'evm_setAutomine', [true]);
    }
  });
});
