/**
 * eth_call on worker threads (--call-workers): every answer equals the main thread's for the same
 * request at the same block — return data, reverts with their data, EVM errors, the gas seen
 * inside, the block environment, edits made by test controls since the last block, older blocks,
 * the timeout — and BLOCKHASH, which needs the block store, goes back to the main thread.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CallWorkers } from '../../src/chain/exec/offload/pool.js';
import type { CallReply } from '../../src/chain/exec/offload/protocol.js';
import { CROWD_MS } from '../../src/chain/exec/offload/routing.js';
import { watchWorkers } from '../support/workers.js';
import { ADDRS, RpcCallError, startTestNode, type TestNode } from '../support/node.js';

const at = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const PROGRAMS: Record<string, string> = {
  // GAS PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
  gasLeft: '0x5a60005260206000f3',
  // NUMBER, TIMESTAMP, COINBASE, BASEFEE, CHAINID, CALLER, ORIGIN, SELFBALANCE as eight words
  env: '0x43600052426020524160405248606052466080523360a0523260c0524760e0526101006000f3',
  // PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
  slot0: '0x60005460005260206000f3',
  // PUSH4 deadbeef PUSH1 0 MSTORE PUSH1 4 PUSH1 28 REVERT
  revert: '0x63deadbeef6000526004601cfd',
  invalid: '0xfe',
  // PUSH20 ADDRS[1] BALANCE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
  balance: `0x73${ADDRS[1]!.slice(2).toLowerCase()}3160005260206000f3`,
  // PUSH1 7 PUSH1 1 SSTORE PUSH1 1 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN (the write is discarded)
  writeRead: '0x600760015560015460005260206000f3',
  // JUMPDEST PUSH1 0 JUMP
  loop: '0x5b600056',
  // PUSH1 0 BLOCKHASH PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
  blockHash: '0x60004060005260206000f3',
};
const ADDRESS = Object.fromEntries(Object.keys(PROGRAMS).map((name, i) => [name, at(0xc0de00 + i)]));

describe('calls on a worker thread', () => {
  let node: TestNode;
  let workers: CallWorkers;
  const replies: CallReply['kind'][] = [];

  before(async () => {
    node = await startTestNode({ callWorkers: 1, calls: { timeoutMs: 300, gasCap: 10n ** 12n } });
    workers = node.node.callWorkers!;
    watchWorkers(workers, replies, true);
    for (const [name, code] of Object.entries(PROGRAMS)) await node.rpc('anvil_setCode', [ADDRESS[name], code]);
    await node.rpc('anvil_setStorageAt', [ADDRESS.slot0, '0x0', `0x${'2a'.padStart(64, '0')}`]);
    await node.rpc('anvil_setBalance', [ADDRS[1], '0x1234']);
    await node.rpc('evm_mine');
    for (let i = 0; i < 100 && !workers.available(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(workers.available(), 'the worker started');
  });
  after(() => node.close());

  /** The answer (result, or error code, message and data) of eth_call, as JSON text. */
  async function answer(params: unknown[]): Promise<string> {
    try {
      return JSON.stringify({ result: await node.rpc('eth_call', params) });
    } catch (err) {
      if (!(err instanceof RpcCallError)) throw err;
      return JSON.stringify({ code: err.code, message: err.message, data: err.data });
    }
  }

  /** The answer through the worker and through the main thread; the worker's kind of reply. */
  async function both(params: unknown[]): Promise<{ worker: string; main: string; kind: CallReply['kind'] | undefined }> {
    const before = replies.length;
    const worker = await answer(params);
    const kind = replies[before];
    node.node.configure({ callWorkers: undefined });
    try {
      return { worker, main: await answer(params), kind };
    } finally {
      node.node.configure({ callWorkers: workers });
    }
  }

  test('every program answers the same at the head, from any sender, with any gas', async () => {
    for (const name of ['gasLeft', 'env', 'slot0', 'revert', 'invalid', 'balance', 'writeRead']) {
      for (const extra of [{}, { from: ADDRS[2] }, { gas: '0x5400' }, { gas: '0x186a0', data: '0x00ff00ff' }]) {
        const { worker, main, kind } = await both([{ to: ADDRESS[name], ...extra }, 'latest']);
        assert.equal(worker, main, `${name} ${JSON.stringify(extra)}`);
        assert.ok(kind === 'ok' || kind === 'failed', `${name} ${JSON.stringify(extra)} answered by the worker (${kind})`);
      }
    }
    const reverted = JSON.parse((await both([{ to: ADDRESS.revert }, 'latest'])).worker);
    assert.match(reverted.message, /^execution reverted/);
    assert.equal(reverted.data, '0xdeadbeef');
  });

  test('edits since the last block are seen, older blocks read their own state', async () => {
    await node.rpc('anvil_setStorageAt', [ADDRESS.slot0, '0x0', `0x${'63'.padStart(64, '0')}`]);
    const head = await both([{ to: ADDRESS.slot0 }, 'latest']);
    assert.equal(head.worker, head.main);
    assert.equal(JSON.parse(head.worker).result, `0x${'63'.padStart(64, '0')}`);
    await node.rpc('evm_mine');
    await node.rpc('anvil_setStorageAt', [ADDRESS.slot0, '0x0', `0x${'64'.padStart(64, '0')}`]);
    await node.rpc('evm_mine');
    for (const block of ['0x0', '0x1', '0x2', '0x3', 'latest']) {
      const r = await both([{ to: ADDRESS.slot0 }, block]);
      assert.equal(r.worker, r.main, block);
      assert.equal(r.kind, 'ok', block);
    }
    // A test control's edit at head N is part of block N's history.
    assert.equal(JSON.parse((await both([{ to: ADDRESS.slot0 }, '0x0'])).worker).result, `0x${'2a'.padStart(64, '0')}`);
    assert.equal(JSON.parse((await both([{ to: ADDRESS.slot0 }, '0x1'])).worker).result, `0x${'63'.padStart(64, '0')}`);
    assert.equal(JSON.parse((await both([{ to: ADDRESS.slot0 }, '0x2'])).worker).result, `0x${'64'.padStart(64, '0')}`);
  });

  test('BLOCKHASH goes back to the main thread; the timeout answers the same', async () => {
    const hash = await both([{ to: ADDRESS.blockHash }, 'latest']);
    assert.equal(hash.kind, 'fallback');
    assert.equal(hash.worker, hash.main);
    assert.equal(JSON.parse(hash.worker).result, (await node.rpc('eth_getBlockByNumber', ['0x0', false])).hash);
    const loop = await both([{ to: ADDRESS.loop, gas: '0xe8d4a51000' }, 'latest']);
    assert.equal(loop.kind, 'error');
    assert.equal(loop.worker, loop.main);
    assert.match(JSON.parse(loop.worker).message, /execution aborted \(timeout = 300ms\)/);
    // Out of gas inside the loop: an EVM failure, answered by the worker.
    const oog = await both([{ to: ADDRESS.loop, gas: '0x5400' }, 'latest']);
    assert.equal(oog.kind, 'failed');
    assert.equal(oog.worker, oog.main);
  });

  test('workers stop with the node and calls keep working on the main thread', async () => {
    workers.stop();
    const r = JSON.parse(await answer([{ to: ADDRESS.gasLeft }, 'latest']));
    assert.match(r.result, /^0x[0-9a-f]{64}$/);
  });
});

describe('which calls go to a worker', () => {
  let node: TestNode;
  let workers: CallWorkers;
  const replies: CallReply['kind'][] = [];

  before(async () => {
    node = await startTestNode({ callWorkers: 1 });
    workers = node.node.callWorkers!;
    watchWorkers(workers, replies, false);
    for (const name of ['slot0', 'loop']) await node.rpc('anvil_setCode', [ADDRESS[name], PROGRAMS[name]]);
  });
  after(() => node.close());

  test('a lone caller runs on the main thread: sequential calls never reach a worker', async () => {
    for (let i = 0; i < 20; i++) await node.rpc('eth_call', [{ to: ADDRESS.slot0 }, 'latest']);
    assert.equal(replies.length, 0);
  });

  test('calls that arrive together go to the worker once it is ready', async () => {
    // The first crowd starts the worker (and runs here until it is ready).
    await Promise.all(Array.from({ length: 8 }, () => node.rpc('eth_call', [{ to: ADDRESS.slot0 }, 'latest'])));
    for (let i = 0; i < 100 && !workers.available(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(workers.available(), 'the worker started');
    const answers = await Promise.all(Array.from({ length: 8 }, () => node.rpc('eth_call', [{ to: ADDRESS.slot0 }, 'latest'])));
    assert.ok(answers.every((a) => a === answers[0]));
    assert.ok(replies.filter((k) => k === 'ok').length >= 1, `worker replies: ${replies.join(', ')}`);
  });

  test('streams of calls while the state changes: each call sees a state from the time it was in progress', async () => {
    // A busy worker takes the next call straight off its port when it comes right after a reply;
    // the trie nodes of a new state go ahead of the call that needs them. Both keep the order
    // they were sent in, so each answer is a value the slot held while the call was in progress.
    const before = replies.length;
    const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
    let done = 0;
    let started = 0;
    let editing = true;
    const editor = (async () => {
      for (let i = 1; i <= 40; i++) {
        started = i;
        await node.rpc('anvil_setStorageAt', [ADDRESS.slot0, '0x0', word(i)]);
        if (i % 10 === 0) await node.rpc('evm_mine');
        done = i;
      }
      editing = false;
    })();
    const seen: string[] = [];
    const stream = async () => {
      while (editing) {
        const low = done;
        const value = Number(BigInt(await node.rpc('eth_call', [{ to: ADDRESS.slot0 }, 'latest'])));
        const high = started;
        if (value < low || value > high) seen.push(`${value} outside ${low}..${high}`);
      }
    };
    await Promise.all([editor, ...Array.from({ length: 8 }, stream)]);
    assert.deepEqual(seen, []);
    const kinds = replies.slice(before);
    assert.ok(kinds.filter((k) => k === 'ok').length >= 40, `worker replies: ${kinds.length}`);
    assert.deepEqual([...new Set(kinds)], ['ok'], 'every call on the worker answered there');
  });

  test('code that ran long on the main thread goes to the worker the next time, even alone', async () => {
    const long = [{ to: ADDRESS.loop, gas: '0x1c9c380' }, 'latest'];
    // Past the time calls keep going to the workers after a crowd.
    await new Promise((r) => setTimeout(r, CROWD_MS * 2));
    const before = replies.length;
    const first = await node.raw('eth_call', long);
    assert.match(first.error!.message, /out of gas/);
    assert.equal(replies.length, before, 'the first run is on the main thread');
    const second = await node.raw('eth_call', long);
    assert.equal(replies.length, before + 1);
    assert.deepEqual(second.error, first.error);
    assert.equal(replies[before], 'failed', 'answered by the worker');
  });

  test('code marked long comes back to the main thread once it runs quickly on a worker', async () => {
    // Same target (the key), little gas: out of gas at once. The key is still marked by the test above.
    const short = [{ to: ADDRESS.loop, gas: '0x10000' }, 'latest'];
    await new Promise((r) => setTimeout(r, CROWD_MS * 2));
    const before = replies.length;
    const first = await node.raw('eth_call', short);
    assert.match(first.error!.message, /out of gas/);
    assert.equal(replies.length, before + 1, 'the first short run is on the worker');
    // A quick run clears the mark (a loaded machine may make one hop slow: a few tries).
    let back = false;
    for (let i = 0; i < 20 && !back; i++) {
      const seen = replies.length;
      assert.deepEqual((await node.raw('eth_call', short)).error, first.error);
      back = replies.length === seen;
    }
    assert.ok(back, 'a later run is on the main thread');
  });
});
