/**
 * `pending` everywhere a block is named: state reads answer the pending block's post state (geth
 * asks the miner for it; anvil runs the ready transactions), block tracing and fee history take the
 * pending block as the block it is, and log filters refuse it as geth does since 1.14. State reads
 * are asked through viem of node-rpc and of anvil beside it, with the same answers; what anvil
 * answers for the head instead (traces, fee history, logs) is checked against the block that
 * mining then builds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { createPublicClient, createWalletClient, defineChain, encodeFunctionData, getContractAddress, http, type Address, type Hex, type PublicClient, type WalletClient } from 'viem';
import type { Anvil } from '../support/anvil.js';
import { closeBeside, startBeside } from '../support/beside.js';
import { ADDRS, artifact, startTestNode, type TestNode } from '../support/node.js';

const chain = defineChain({
  id: 984,
  name: 'node-rpc',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
});

const FROM = ADDRS[0] as Address;
/** An address no test funds: its balance at `pending` is what the waiting transactions send it. */
const FRESH = '0x00000000000000000000000000000000000c0ffe' as Address;
const storage = artifact('Storage');

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

const rpc = (p: Peer, method: string, params: unknown[] = []) => p.pub.request({ method, params } as never) as Promise<any>;
const onEach = <T>(peers: Peer[], fn: (p: Peer) => Promise<T>): Promise<T[]> => Promise.all(peers.map(fn));

/** Run `fn` with mining off, then mine what waits and turn automine back on. */
async function miningOff<T>(p: Peer, fn: () => Promise<T>): Promise<T> {
  await rpc(p, 'evm_setAutomine', [false]);
  try {
    return await fn();
  } finally {
    await rpc(p, 'evm_mine');
    await rpc(p, 'evm_setAutomine', [true]);
  }
}

describe('state reads at pending answer the pending block state, through viem, beside anvil', () => {
  let ours: TestNode;
  let anvil: Anvil;
  let peers: Peer[];
  let deployed: Address;

  before(async () => {
    ({ ours, anvil } = await startBeside());
    peers = [peer('node-rpc', ours.url), peer('anvil', anvil.url)];
    const addresses = await onEach(peers, async (p) => {
      const hash = await p.wallet.deployContract({ account: FROM, chain, abi: storage.abi, bytecode: storage.bytecode });
      return (await p.pub.waitForTransactionReceipt({ hash })).contractAddress!;
    });
    assert.equal(addresses[0], addresses[1]);
    deployed = addresses[0]!;
  });
  after(() => closeBeside(ours, anvil));

  test('under automine the pending state is the head state', async () => {
    const answers = await onEach(peers, async (p) => {
      const at = async (blockTag: 'latest' | 'pending') => ({
        balance: await p.pub.getBalance({ address: FROM, blockTag }),
        nonce: await p.pub.getTransactionCount({ address: FROM, blockTag }),
        code: await p.pub.getCode({ address: deployed, blockTag }),
      });
      const [latest, pending] = [await at('latest'), await at('pending')];
      // Balances differ between the peers by the gas prices they fill in (node-rpc's 7 gwei floor).
      return { same: JSON.stringify(latest, (_, v) => (typeof v === 'bigint' ? v.toString() : v)) === JSON.stringify(pending, (_, v) => (typeof v === 'bigint' ? v.toString() : v)), nonce: pending.nonce, code: pending.code };
    });
    assert.equal(answers[0]!.same, true);
    assert.ok(answers[0]!.code!.length > 2);
    assert.deepEqual(answers[0], answers[1]);
  });

  test('with mining off, balances, nonces, code and storage at pending are those after the waiting transactions; latest is unchanged', async () => {
    const answers = await onEach(peers, (p) =>
      miningOff(p, async () => {
        const nonce = await p.pub.getTransactionCount({ address: FROM });
        await p.wallet.sendTransaction({ account: FROM, chain, to: FRESH, value: 5n });
        await p.wallet.sendTransaction({ account: FROM, chain, to: deployed, data: encodeFunctionData({ abi: storage.abi, functionName: 'set', args: [42n] }) });
        await p.wallet.sendTransaction({ account: FROM, chain, to: FRESH, value: 7n });
        await p.wallet.deployContract({ account: FROM, chain, abi: storage.abi, bytecode: storage.bytecode });
        const created = getContractAddress({ from: FROM, nonce: BigInt(nonce + 3) });
        const read = async (blockTag: 'latest' | 'pending') => ({
          fresh: await p.pub.getBalance({ address: FRESH, blockTag }),
          nonce: (await p.pub.getTransactionCount({ address: FROM, blockTag })) - nonce,
          number: await p.pub.getStorageAt({ address: deployed, slot: '0x0', blockTag }),
          created: ((await p.pub.getCode({ address: created, blockTag })) ?? '0x').length > 2,
        });
        return { latest: await read('latest'), pending: await read('pending') };
      }),
    );
    assert.deepEqual(answers[0], {
      latest: { fresh: 0n, nonce: 0, number: `0x${'0'.repeat(64)}`, created: false },
      pending: { fresh: 12n, nonce: 4, number: `0x${'0'.repeat(62)}2a`, created: true },
    });
    assert.deepEqual(answers[0], answers[1]);
  });

  test('node-rpc: eth_getProof at pending proves the pending block state against its state root, the root the mined block then has', async () => {
    const p = peers[0]!;
    const before = await p.pub.getBalance({ address: FRESH });
    await miningOff(p, async () => {
      await p.wallet.sendTransaction({ account: FROM, chain, to: FRESH, value: 9n });
      const pending = await rpc(p, 'eth_getBlockByNumber', ['pending', false]);
      const proof = await p.pub.getProof({ address: FRESH, storageKeys: [], blockTag: 'pending' });
      assert.equal(proof.balance, before + 9n);
      assert.equal(`0x${Buffer.from(keccak_256(Buffer.from(proof.accountProof[0]!.slice(2), 'hex'))).toString('hex')}`, pending.stateRoot);
      const account = await rpc(p, 'eth_getAccount', [FRESH, 'pending']);
      assert.equal(BigInt(account.balance), before + 9n);
      await rpc(p, 'evm_setNextBlockTimestamp', [Number(pending.timestamp)]);
      await rpc(p, 'evm_mine');
      const mined = await rpc(p, 'eth_getBlockByNumber', ['latest', false]);
      assert.equal(mined.stateRoot, pending.stateRoot);
    });
  });

  test('node-rpc: reads at pending in one batch run together on the pending state and agree', async () => {
    const p = peers[0]!;
    const before = await p.pub.getBalance({ address: FRESH });
    await miningOff(p, async () => {
      await p.wallet.sendTransaction({ account: FROM, chain, to: FRESH, value: 4n });
      const calls = [
        ...Array.from({ length: 12 }, () => ({ method: 'eth_getBalance', params: [FRESH, 'pending'] })),
        { method: 'eth_getProof', params: [FRESH, [], 'pending'] },
        { method: 'eth_getStorageAt', params: [deployed, '0x0', 'pending'] },
        { method: 'eth_getAccountInfo', params: [FRESH, 'pending'] },
      ];
      const { json } = await ours.post(JSON.stringify(calls.map((c, id) => ({ jsonrpc: '2.0', id, ...c }))));
      const results = (json as Array<{ id: number; result: any }>).sort((a, b) => a.id - b.id).map((r) => r.result);
      const want = `0x${(before + 4n).toString(16)}`;
      assert.deepEqual(results.slice(0, 12), Array(12).fill(want));
      assert.equal(results[12].balance, want);
      assert.equal(results[14].balance, want);
    });
  });

  test('node-rpc: after a revert to a snapshot taken before the pending block was built, it is built again (its state nodes were let go)', async () => {
    const p = peers[0]!;
    const before = await p.pub.getBalance({ address: FRESH });
    await miningOff(p, async () => {
      await p.wallet.sendTransaction({ account: FROM, chain, to: FRESH, value: 3n });
      const snap = await rpc(p, 'evm_snapshot');
      const { stateRoot } = await rpc(p, 'eth_getBlockByNumber', ['pending', false]);
      assert.equal(await p.pub.getBalance({ address: FRESH, blockTag: 'pending' }), before + 3n);
      assert.equal(ours.node.trieNodes.has(stateRoot.slice(2)), true);
      assert.equal(await rpc(p, 'evm_revert', [snap]), true);
      assert.equal(ours.node.trieNodes.has(stateRoot.slice(2)), false, 'the revert let go of the pending state');
      // The same pending block again, its state stored again for the reads that follow.
      assert.equal(await p.pub.getBalance({ address: FRESH, blockTag: 'pending' }), before + 3n);
      assert.equal((await rpc(p, 'eth_getBlockByNumber', ['pending', false])).stateRoot, stateRoot);
      assert.equal(ours.node.trieNodes.has(stateRoot.slice(2)), true);
      assert.ok((await p.pub.getProof({ address: FRESH, storageKeys: [], blockTag: 'pending' })).accountProof.length > 0);
    });
  });
});

describe('node-rpc: block tracing and fee history at pending take the pending block; log filters refuse it, as geth', () => {
  let ours: TestNode;
  let p: Peer;

  before(async () => {
    ours = await startTestNode();
    p = peer('node-rpc', ours.url);
  });
  after(() => ours?.close());

  /**
   * Mining off, a deployment and a call to it waiting, the next block's time fixed: `fn` asks at
   * `pending`, then the block is mined and `fn` asks at `latest`.
   */
  async function pendingThenMined<T>(fn: (tag: 'pending' | 'latest') => Promise<T>): Promise<{ pending: T; mined: T }> {
    await rpc(p, 'evm_setAutomine', [false]);
    try {
      const created = getContractAddress({ from: FROM, nonce: BigInt(await p.pub.getTransactionCount({ address: FROM })) });
      await p.wallet.deployContract({ account: FROM, chain, abi: storage.abi, bytecode: storage.bytecode });
      await p.wallet.sendTransaction({ account: FROM, chain, to: created, data: encodeFunctionData({ abi: storage.abi, functionName: 'set', args: [7n] }), gas: 100_000n });
      const head = await p.pub.getBlock();
      await rpc(p, 'evm_setNextBlockTimestamp', [Number(head.timestamp + 12n)]);
      const pending = await fn('pending');
      await rpc(p, 'evm_mine');
      return { pending, mined: await fn('latest') };
    } finally {
      await rpc(p, 'evm_setAutomine', [true]);
    }
  }

  test('debug_traceBlockByNumber(pending) traces the pending block on the head state: the traces the mined block then gives', async () => {
    const { pending, mined } = await pendingThenMined((tag) => rpc(p, 'debug_traceBlockByNumber', [tag, { tracer: 'callTracer' }]));
    assert.deepEqual(pending.map((t: any) => [t.result.type, t.result.error]), [['CREATE', undefined], ['CALL', undefined]]);
    assert.deepEqual(pending, mined);
  });

  test('debug_traceCall at pending with a txIndex runs after that many of the pending block transactions', async () => {
    const { pending, mined } = await pendingThenMined(async (tag) => {
      const [deploy] = await rpc(p, 'eth_getBlockReceipts', [tag]);
      const call = { to: deploy.contractAddress, data: encodeFunctionData({ abi: storage.abi, functionName: 'number' }) };
      const at = async (txIndex: number) => (await rpc(p, 'debug_traceCall', [call, tag, { tracer: 'callTracer', txIndex: `0x${txIndex}` }])).output;
      return [await at(1), await at(2)];
    });
    assert.deepEqual(pending, [`0x${'0'.repeat(64)}`, `0x${'0'.repeat(63)}7`]);
    assert.deepEqual(pending, mined);
  });

  test('debug_traceBlockByNumber(pending) runs on the state the pending block is built on: a cheat since the head included', async () => {
    const funds = '0x3635c9adc5dea00000'; // 1,000 ether
    const { pending, mined } = await pendingThenMined(async (tag) => {
      if (tag === 'pending') await rpc(p, 'anvil_setBalance', [FROM, funds]);
      const traces = await rpc(p, 'debug_traceBlockByNumber', [tag, { tracer: 'prestateTracer' }]);
      return traces[0].result[FROM.toLowerCase()].balance;
    });
    assert.equal(pending, funds);
    assert.equal(mined, funds);
  });

  test('trace_block and trace_replayBlockTransactions at pending answer the pending block transactions', async () => {
    const { pending, mined } = await pendingThenMined(async (tag) => ({
      block: await rpc(p, 'trace_block', [tag]),
      replay: await rpc(p, 'trace_replayBlockTransactions', [tag, ['trace', 'stateDiff']]),
    }));
    assert.equal(pending.replay.length, 2);
    assert.equal(pending.block.length, 2);
    assert.deepEqual(pending, mined);
  });

  test('eth_feeHistory ending at pending includes the pending block, as geth: the history the mined block then gives', async () => {
    const head = BigInt(await rpc(p, 'eth_blockNumber'));
    const { pending, mined } = await pendingThenMined((tag) => rpc(p, 'eth_feeHistory', ['0x3', tag, [10, 90]]));
    assert.equal(BigInt(pending.oldestBlock), head + 1n - 2n);
    assert.equal(pending.baseFeePerGas.length, 4);
    assert.ok(pending.gasUsedRatio[2] > 0);
    assert.ok(pending.reward[2].every((r: Hex) => BigInt(r) > 0n));
    assert.deepEqual(pending, mined);
    // Under automine the pending block is empty: no gas used, no rewards.
    const empty = await rpc(p, 'eth_feeHistory', ['0x1', 'pending', [50]]);
    assert.deepEqual([BigInt(empty.oldestBlock), empty.gasUsedRatio, empty.reward], [(BigInt(await rpc(p, 'eth_blockNumber'))) + 1n, [0], [['0x0']]]);
  });

  test('debug_getRawBlock and debug_getRawReceipts at pending encode the pending block: the block mining then builds', async () => {
    const { pending, mined } = await pendingThenMined(async (tag) => ({ block: await rpc(p, 'debug_getRawBlock', [tag]), receipts: await rpc(p, 'debug_getRawReceipts', [tag]) }));
    assert.equal(pending.receipts.length, 2);
    assert.deepEqual(pending, mined);
  });

  test('eth_getLogs, eth_newFilter and trace_filter at pending are -32602, as geth refuses pending logs', async () => {
    const refused = async (method: string, params: unknown[]) => {
      const r = await ours.raw(method, params);
      return [r.error?.code, r.error?.message];
    };
    assert.deepEqual(await refused('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'pending' }]), [-32602, 'pending logs are not supported']);
    assert.deepEqual(await refused('eth_newFilter', [{ fromBlock: 'pending' }]), [-32602, 'pending logs are not supported']);
    const [code, message] = await refused('trace_filter', [{ fromBlock: '0x0', toBlock: 'pending' }]);
    assert.equal(code, -32602);
    assert.match(String(message), /pending traces are not supported/);
    // latest still names the head.
    assert.ok(Array.isArray(await ours.rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])));
  });
});
