/**
 * Calls at `pending` run in the block mined next: its number, the timestamp the clock gives it
 * (evm_setNextBlockTimestamp, evm_increaseTime, a timestamp interval), its base fee, coinbase,
 * prevrandao and gas limit; eth_estimateGas without a block and eth_sendTransaction's own estimate
 * run there too (as anvil and the hardhat network), so a transaction the next block accepts is
 * not refused at estimation. With mining off, the pending state holds the transactions waiting
 * for that block. Call workers answer in the same block. Differential against anvil where both
 * pin the same facts.
 */
import assert from 'node:assert/strict';
import { watchWorkers } from '../support/workers.js';
import { after, before, describe, test } from 'node:test';
import { Contract, JsonRpcProvider, Wallet, type TransactionReceipt } from 'ethers';
import type { CallReply } from '../../src/chain/exec/offload/protocol.js';
import type { Anvil } from '../support/anvil.js';
import { closeBeside, startBeside } from '../support/beside.js';
import { ADDRS, KEYS, RpcCallError, artifact, startTestNode, waitForReceipt, type TestNode } from '../support/node.js';

type Rpc = Pick<TestNode, 'rpc'>;
const timeLock = artifact('TimeLock');

async function deployTimeLock(n: Rpc): Promise<string> {
  const hash = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], data: timeLock.bytecode }]);
  return (await waitForReceipt(n, hash)).contractAddress;
}

/** TimeLock.env() at `tag`: the block fields a call sees. */
async function env(n: Rpc, address: string, tag: string, req: object = {}) {
  const c = new Contract(address, timeLock.abi);
  const data = c.interface.encodeFunctionData('env');
  const out = await n.rpc('eth_call', [{ to: address, data, ...req }, tag]);
  const [number, timestamp, basefee, coinbase, prevrandao, gaslimit] = c.interface.decodeFunctionResult('env', out);
  return { number, timestamp, basefee, coinbase: (coinbase as string).toLowerCase(), prevrandao, gaslimit } as Record<string, bigint | string>;
}

const latest = async (n: Rpc) => {
  const b = await n.rpc('eth_getBlockByNumber', ['latest', false]);
  return { number: BigInt(b.number), timestamp: BigInt(b.timestamp) };
};
const encode = (fn: string, args: unknown[] = []) => new Contract(ADDRS[0], timeLock.abi).interface.encodeFunctionData(fn, args);

describe('calls at pending run in the next block', () => {
  let n: TestNode;
  let lock: string;

  before(async () => {
    n = await startTestNode();
    lock = await deployTimeLock(n);
  });
  after(() => n.close());

  test('eth_call at pending: the next number, timestamp, base fee, coinbase, prevrandao and gas limit', async () => {
    const head = await latest(n);
    const coinbase = '0x00000000000000000000000000000000000c0ffe';
    await n.rpc('anvil_setCoinbase', [coinbase]);
    await n.rpc('anvil_setPrevRandao', ['0x' + '07'.padStart(64, '0')]);
    await n.rpc('evm_setBlockGasLimit', ['0x1c9c381']);
    await n.rpc('anvil_setNextBlockBaseFeePerGas', ['0x3b9aca07']);
    await n.rpc('evm_setNextBlockTimestamp', [Number(head.timestamp + 1000n)]);
    // A priced call sees the base fee (a fee-less one sees 0, as in geth).
    const pending = await env(n, lock, 'pending', { from: ADDRS[0], gasPrice: '0x77359400' });
    assert.deepEqual(pending, { number: head.number + 1n, timestamp: head.timestamp + 1000n, basefee: 1_000_000_007n, coinbase, prevrandao: 7n, gaslimit: 30_000_001n });
    const atLatest = await env(n, lock, 'latest');
    assert.equal(atLatest.number, head.number);
    assert.equal(atLatest.timestamp, head.timestamp);
    // The next block is mined in exactly that environment.
    await n.rpc('evm_mine');
    const mined = await n.rpc('eth_getBlockByNumber', ['latest', false]);
    assert.equal(BigInt(mined.timestamp), pending.timestamp);
    assert.equal(BigInt(mined.baseFeePerGas), pending.basefee);
    assert.equal(mined.miner, coinbase);
    await n.rpc('anvil_setCoinbase', ['0x0000000000000000000000000000000000000000']);
  });

  test('evm_increaseTime and a timestamp interval move the pending timestamp', async () => {
    let head = await latest(n);
    await n.rpc('evm_increaseTime', [7200]);
    assert.ok(((await env(n, lock, 'pending')).timestamp as bigint) >= head.timestamp + 7200n);
    await n.rpc('evm_mine');
    head = await latest(n);
    await n.rpc('anvil_setBlockTimestampInterval', [50]);
    try {
      assert.equal((await env(n, lock, 'pending')).timestamp, head.timestamp + 50n);
    } finally {
      await n.rpc('anvil_removeBlockTimestampInterval');
    }
  });

  test('eth_estimateGas without a block estimates in the pending block; at latest the same request reverts', async () => {
    const head = await latest(n);
    const t = head.timestamp + 3600n;
    await n.rpc('evm_setNextBlockTimestamp', [Number(t)]);
    const req = { from: ADDRS[0], to: lock, data: encode('release', [t]) };
    const gas = BigInt(await n.rpc('eth_estimateGas', [req]));
    assert.equal(BigInt(await n.rpc('eth_estimateGas', [req, 'pending'])), gas);
    await assert.rejects(n.rpc('eth_estimateGas', [req, 'latest']), (err: RpcCallError) => {
      assert.equal(err.code, -32000);
      assert.equal((err.data as string).slice(0, 10), new Contract(lock, timeLock.abi).interface.getError('TooEarly')!.selector);
      return true;
    });
    // The block number too: a call that only succeeds in the next block.
    assert.ok(BigInt(await n.rpc('eth_estimateGas', [{ from: ADDRS[0], to: lock, data: encode('onlyInBlock', [head.number + 1n]) }])) > 21_000n);
    // Sent with exactly that gas, the transaction succeeds in the next block.
    const hash = await n.rpc('eth_sendTransaction', [{ ...req, gas: `0x${gas.toString(16)}` }]);
    assert.equal((await waitForReceipt(n, hash)).status, '0x1');
  });

  test('ethers sends a time-gated transaction right after the time moves, estimating it itself', async () => {
    const provider = new JsonRpcProvider(n.url, 984, { staticNetwork: true, cacheTimeout: -1 });
    try {
      const wallet = new Wallet(KEYS[1], provider);
      const c = new Contract(lock, timeLock.abi, wallet);
      const t = (await latest(n)).timestamp + 86_400n;
      await n.rpc('evm_setNextBlockTimestamp', [Number(t)]);
      const receipt = (await (await c.release(t)).wait()) as TransactionReceipt;
      assert.equal(receipt.status, 1);
      assert.equal(BigInt((await provider.getBlock(receipt.blockNumber))!.timestamp), t);
      // eth_sendTransaction without gas: the node's own estimate is the pending block's too.
      const t2 = t + 600n;
      await n.rpc('evm_setNextBlockTimestamp', [Number(t2)]);
      const hash = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: lock, data: encode('release', [t2]) }]);
      assert.equal((await waitForReceipt(n, hash)).status, '0x1');
    } finally {
      provider.destroy();
    }
  });

  test('eth_createAccessList, debug_traceCall and trace_call at pending', async () => {
    const head = await latest(n);
    const req = { from: ADDRS[0], to: lock, data: encode('onlyInBlock', [head.number + 1n]) };
    const list = await n.rpc('eth_createAccessList', [req, 'pending']);
    assert.equal(list.error, undefined);
    assert.equal(list.accessList[0].address, lock.toLowerCase());
    const failed = await n.rpc('eth_createAccessList', [req, 'latest']);
    assert.equal(failed.error, 'execution reverted');
    const trace = await n.rpc('debug_traceCall', [req, 'pending', { tracer: 'callTracer' }]);
    assert.equal(trace.error, undefined);
    assert.equal((await n.rpc('debug_traceCall', [req, 'latest', { tracer: 'callTracer' }])).error, 'execution reverted');
    const replay = await n.rpc('trace_call', [req, ['trace'], 'pending']);
    assert.equal(replay.trace[0].error, undefined);
  });
});

describe('with mining off, the pending state holds the waiting transactions', () => {
  let n: TestNode;
  let lock: string;

  before(async () => {
    n = await startTestNode();
    lock = await deployTimeLock(n);
    await n.rpc('evm_setAutomine', [false]);
  });
  after(() => n.close());

  test('calls, estimates and traces at pending see them; latest does not; the pool is left as it was', async () => {
    const head = await latest(n);
    const releases = encode('releases');
    const sent = await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: lock, data: encode('onlyInBlock', [head.number + 1n]), gas: '0x30000' }]);
    assert.equal(BigInt(await n.rpc('eth_call', [{ to: lock, data: releases }, 'pending'])), 1n);
    assert.equal(BigInt(await n.rpc('eth_call', [{ to: lock, data: releases }, 'latest'])), 0n);
    // The counter is no longer zero in the pending state: a second increment costs less there.
    const req = { from: ADDRS[1], to: lock, data: encode('release', [0n]) };
    assert.ok(BigInt(await n.rpc('eth_estimateGas', [req])) < BigInt(await n.rpc('eth_estimateGas', [req, 'latest'])));
    const trace = await n.rpc('debug_traceCall', [{ to: lock, data: releases }, 'pending', { tracer: 'callTracer' }]);
    assert.equal(BigInt(trace.output), 1n);
    assert.equal(await n.rpc('eth_getTransactionCount', [ADDRS[0], 'pending']), `0x${(BigInt(await n.rpc('eth_getTransactionCount', [ADDRS[0], 'latest'])) + 1n).toString(16)}`);
    const pool = await n.rpc('txpool_status');
    assert.equal(pool.pending, '0x1');
    await n.rpc('evm_mine');
    assert.equal((await n.rpc('eth_getTransactionReceipt', [sent])).status, '0x1');
    assert.equal(BigInt(await n.rpc('eth_call', [{ to: lock, data: releases }, 'latest'])), 1n);
  });
});

describe('call workers answer at pending in the same block', () => {
  let n: TestNode;
  let lock: string;
  const replies: CallReply['kind'][] = [];

  before(async () => {
    n = await startTestNode({ callWorkers: 1 });
    const workers = n.node.callWorkers!;
    watchWorkers(workers, replies, true);
    lock = await deployTimeLock(n);
    for (let i = 0; i < 100 && !workers.available(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(workers.available(), 'the worker started');
  });
  after(() => n.close());

  test('the pending block on a worker equals the main thread’s, and waiting transactions keep the call on the main thread', async () => {
    const head = await latest(n);
    await n.rpc('evm_setNextBlockTimestamp', [Number(head.timestamp + 500n)]);
    const before = replies.length;
    const onWorker = await env(n, lock, 'pending');
    assert.deepEqual(replies.slice(before), ['ok']);
    const workers = n.node.callWorkers;
    n.node.configure({ callWorkers: undefined });
    try {
      assert.deepEqual(await env(n, lock, 'pending'), onWorker);
    } finally {
      n.node.configure({ callWorkers: workers });
    }
    assert.equal(onWorker.number, head.number + 1n);
    assert.equal(onWorker.timestamp, head.timestamp + 500n);

    await n.rpc('evm_setAutomine', [false]);
    await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: lock, data: encode('release', [0n]), gas: '0x30000' }]);
    const mark = replies.length;
    assert.equal(BigInt(await n.rpc('eth_call', [{ to: lock, data: encode('releases') }, 'pending'])), 1n);
    assert.equal(replies.length, mark, 'no worker ran it');
    assert.equal(BigInt(await n.rpc('eth_call', [{ to: lock, data: encode('releases') }, 'latest'])), 0n);
  });
});

describe('pending against anvil', () => {
  let ours: TestNode;
  let anvil: Anvil;
  before(async () => ({ ours, anvil } = await startBeside()));
  after(() => closeBeside(ours, anvil));

  test('after evm_setNextBlockTimestamp both estimate a time-gated call alike, and eth_call at pending sees the same block', async () => {
    for (const node of [ours, anvil] as Rpc[]) await node.rpc('evm_mine');
    const answers = [];
    for (const node of [ours, anvil] as Rpc[]) {
      const lock = await deployTimeLock(node);
      const head = await latest(node);
      const t = head.timestamp + 10_000n;
      await node.rpc('evm_setNextBlockTimestamp', [Number(t)]);
      const req = { from: ADDRS[0], to: lock, data: encode('release', [t]) };
      const pending = await env(node, lock, 'pending');
      answers.push({
        estimate: await node.rpc('eth_estimateGas', [req]),
        atPending: await node.rpc('eth_estimateGas', [req, 'pending']),
        number: (pending.number as bigint) - head.number,
        timestamp: (pending.timestamp as bigint) - t,
        latestNumber: (await env(node, lock, 'latest')).number === head.number,
      });
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.deepEqual(answers[0], { estimate: answers[0]!.estimate, atPending: answers[0]!.estimate, number: 1n, timestamp: 0n, latestNumber: true });
  });
});
