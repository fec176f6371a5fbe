/**
 * The gas cap and wall-clock limit of calls (--rpc-gas-cap, --call-timeout): an infinite loop sent
 * with gas 1e12 ends in an error, and the node keeps answering others while it runs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';

/** JUMPDEST PUSH1 0 JUMP: loops until the gas or the time runs out. */
const LOOP = '0x5b600056';
/** GAS PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns gasleft(). */
const GAS_LEFT = '0x5a60005260206000f3';
const LOOP_AT = '0x00000000000000000000000000000000000c0de1';
const GAS_AT = '0x00000000000000000000000000000000000c0de2';
const GAS_1E12 = '0xe8d4a51000';

/** Ask `eth_blockNumber` every 20 ms until `done` settles; the slowest answer in ms and how many. */
async function pollWhile(node: TestNode, done: Promise<unknown>): Promise<{ slowest: number; answered: number }> {
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => undefined);
  let slowest = 0;
  let answered = 0;
  while (!finished) {
    const t = performance.now();
    await node.rpc('eth_blockNumber');
    slowest = Math.max(slowest, performance.now() - t);
    answered++;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { slowest, answered };
}

async function withCode(node: TestNode): Promise<void> {
  await node.rpc('anvil_setCode', [LOOP_AT, LOOP]);
  await node.rpc('anvil_setCode', [GAS_AT, GAS_LEFT]);
}

describe('calls with the default bounds', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
    await withCode(node);
  });
  after(() => node.close());

  test('gas above the cap is lowered to 50M (the block gas limit is below it)', async () => {
    const left = BigInt(await node.rpc('eth_call', [{ to: GAS_AT, gas: GAS_1E12 }, 'latest']));
    assert.ok(left <= 50_000_000n - 21_000n && left > 49_000_000n, `gasleft ${left}`);
    const unset = BigInt(await node.rpc('eth_call', [{ to: GAS_AT }, 'latest']));
    assert.ok(unset <= 30_000_000n - 21_000n && unset > 29_000_000n, `gasleft without gas ${unset}`);
  });

  test('an infinite loop with gas 1e12 runs out of the capped gas, and others are answered meanwhile', async () => {
    const started = performance.now();
    const call = node.raw('eth_call', [{ to: LOOP_AT, gas: GAS_1E12 }, 'latest']);
    const { slowest, answered } = await pollWhile(node, call);
    const r = await call;
    assert.equal(r.error?.code, -32000);
    assert.match(r.error!.message, /out of gas/);
    assert.ok(performance.now() - started < 5_000, 'ended within the call timeout');
    assert.ok(answered >= 1 && slowest < 1_000, `eth_blockNumber answered ${answered} times, slowest ${slowest.toFixed(0)} ms`);
  });

  test('eth_estimateGas of an infinite loop names the cap: EIP-7825\'s 2^24 at the default fork, the RPC gas cap at Prague', async () => {
    const r = await node.raw('eth_estimateGas', [{ to: LOOP_AT, gas: GAS_1E12 }]);
    assert.equal(r.error?.code, -32000);
    assert.match(r.error!.message, /gas required exceeds allowance \(16777216\)/);
    const prague = await startTestNode({ chain: { hardfork: 'prague' } });
    try {
      await withCode(prague);
      const p = await prague.raw('eth_estimateGas', [{ to: LOOP_AT, gas: GAS_1E12 }]);
      assert.match(p.error!.message, /gas required exceeds allowance \(50000000\)/);
    } finally {
      await prague.close();
    }
  });

  test('debug_traceCall runs with the capped gas', async () => {
    const trace = await node.rpc('debug_traceCall', [{ to: GAS_AT, gas: GAS_1E12 }, 'latest', { tracer: 'callTracer' }]);
    assert.equal(BigInt(trace.gas), 50_000_000n);
  });
});

describe('calls past --call-timeout', () => {
  let node: TestNode;
  before(async () => {
    // Prague: no transaction gas cap (EIP-7825), so an estimate too searches up to 1e12 gas.
    node = await startTestNode({ chain: { hardfork: 'prague' }, calls: { gasCap: 10n ** 12n, timeoutMs: 1_000 } });
    await withCode(node);
  });
  after(() => node.close());

  test('an infinite loop errors with the timeout, others are served meanwhile, and the state is untouched', async () => {
    const balance = await node.rpc('eth_getBalance', [ADDRS[0], 'latest']);
    const started = performance.now();
    const call = node.raw('eth_call', [{ from: ADDRS[0], to: LOOP_AT, gas: GAS_1E12, value: '0x1' }, 'latest']);
    const { slowest, answered } = await pollWhile(node, call);
    const r = await call;
    const took = performance.now() - started;
    assert.equal(r.error?.code, -32000);
    assert.equal(r.error!.message, 'execution aborted (timeout = 1s)');
    // Margins a loaded machine cannot break: a call that ignored its clock would run for minutes,
    // and one that held the thread would let no probe through while it ran.
    assert.ok(took >= 1_000 && took < 15_000, `answered after ${took.toFixed(0)} ms`);
    assert.ok(answered >= 3, `eth_blockNumber answered ${answered} times while the call ran`);
    assert.ok(slowest < took, `slowest eth_blockNumber ${slowest.toFixed(0)} ms of ${took.toFixed(0)}`);
    assert.equal(await node.rpc('eth_getBalance', [ADDRS[0], 'latest']), balance);
    // The chain goes on: a transaction mines right after.
    const hash = await node.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: ADDRS[1], value: '0x1' }]);
    assert.equal((await node.rpc('eth_getTransactionReceipt', [hash])).status, '0x1');
  });

  test('eth_estimateGas and eth_createAccessList are bounded by the same clock', async () => {
    for (const m of ['eth_estimateGas', 'eth_createAccessList']) {
      const started = performance.now();
      const r = await node.raw(m, [{ to: LOOP_AT, gas: GAS_1E12 }, 'latest']);
      assert.equal(r.error?.message, 'execution aborted (timeout = 1s)', m);
      assert.ok(performance.now() - started < 15_000, m);
    }
  });
});
