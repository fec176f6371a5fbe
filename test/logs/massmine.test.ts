import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, deployEvents, RawWs, send, waitFor, word, type RpcLog } from './helpers.js';

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

describe('logs, filters and subscriptions across anvil_mine runs of empty blocks', () => {
  let n: TestNode;
  let a: string;
  const head = async () => Number(await n.rpc('eth_blockNumber'));
  const hashesOf = async (from: number, to: number) => {
    const out: string[] = [];
    for (let i = from; i <= to; i++) out.push((await n.rpc('eth_getBlockByNumber', [hex(i), false])).hash);
    return out;
  };

  before(async () => {
    n = await startTestNode();
    a = await deployEvents(n);
  });
  after(() => n.close());

  test('eth_getLogs over ranges that span thousands of empty blocks', async () => {
    const r1 = await send(n, { to: a, data: call.pong(1) });
    await n.rpc('anvil_mine', [hex(5000)]);
    const r2 = await send(n, { to: a, data: call.pong(2) });
    await n.rpc('anvil_mine', [hex(300)]);
    const all: RpcLog[] = await n.rpc('eth_getLogs', [{ fromBlock: '0x0', address: a }]);
    assert.deepEqual(all.map((l) => l.data), [word(1), word(2)]);
    assert.equal(Number(all[1].blockNumber), Number(r1.blockNumber) + 5001);
    assert.equal(all[1].blockHash, r2.blockHash);
    assert.deepEqual(await n.rpc('eth_getLogs', [{ fromBlock: hex(Number(r1.blockNumber) + 1), toBlock: hex(Number(r2.blockNumber) - 1) }]), []);
    assert.equal((await n.rpc('eth_getLogs', [{ fromBlock: r2.blockNumber, toBlock: 'latest' }])).length, 1);
  });

  test('block and log filters report across a run exactly', async () => {
    const blocks = await n.rpc('eth_newBlockFilter');
    const logs = await n.rpc('eth_newFilter', [{ address: a }]);
    const start = await head();
    await n.rpc('anvil_mine', [hex(100)]);
    await send(n, { to: a, data: call.pong(3) });
    const hashes: string[] = await n.rpc('eth_getFilterChanges', [blocks]);
    assert.equal(hashes.length, 101);
    assert.deepEqual(hashes, await hashesOf(start + 1, start + 101));
    assert.deepEqual((await n.rpc<RpcLog[]>('eth_getFilterChanges', [logs])).map((l) => l.data), [word(3)]);
    for (const id of [blocks, logs]) await n.rpc('eth_uninstallFilter', [id]);
  });

  test('a block-filter poll over thousands of empty blocks lets other requests through', async () => {
    const blocks = await n.rpc('eth_newBlockFilter');
    const start = await head();
    await n.rpc('anvil_mine', [hex(6000)]);
    let pollDone = false;
    const poll = n.rpc<string[]>('eth_getFilterChanges', [blocks]).then((h) => {
      pollDone = true;
      return h;
    });
    await new Promise((r) => setImmediate(r));
    assert.equal(Number(await n.rpc('eth_blockNumber')), start + 6000);
    assert.equal(pollDone, false, 'answered while the poll was still working');
    const hashes = await poll;
    assert.equal(hashes.length, 6000);
    const spots = [0, 1, 2999, 5999];
    for (const i of spots) assert.equal(hashes[i], (await n.rpc('eth_getBlockByNumber', [hex(start + 1 + i), false])).hash, `block ${start + 1 + i}`);
    assert.deepEqual(await n.rpc('eth_getFilterChanges', [blocks]), []);

    // A revert while such a poll runs: it stops at the fork point, the next poll goes on from there.
    const snap = await n.rpc('evm_snapshot');
    const forkAt = await head();
    await n.rpc('anvil_mine', [hex(6000)]);
    const cut = n.rpc<string[]>('eth_getFilterChanges', [blocks]);
    assert.equal(await n.rpc('evm_revert', [snap]), true);
    const partial = await cut;
    assert.ok(partial.length < 6000, `${partial.length} hashes`);
    await n.rpc('anvil_mine', [hex(3)]);
    assert.deepEqual(await n.rpc('eth_getFilterChanges', [blocks]), await hashesOf(forkAt + 1, forkAt + 3));
    await n.rpc('eth_uninstallFilter', [blocks]);
  });

  test('newHeads announces every block of a run, in order, before the next mined block', async () => {
    const ws = await RawWs.open(n.wsUrl);
    const sub = await ws.call('eth_subscribe', ['newHeads']);
    const start = await head();
    await n.rpc('anvil_mine', [hex(200)]);
    await send(n, { to: a, data: call.pong(4) });
    await waitFor(() => ws.results(sub).length === 201, 10_000, 'heads');
    const heads = ws.results(sub);
    assert.deepEqual(heads.map((h) => Number(h.number)), Array.from({ length: 201 }, (_, i) => start + 1 + i));
    assert.deepEqual(heads.slice(0, 5).map((h) => h.hash), await hashesOf(start + 1, start + 5));
    for (let i = 1; i < heads.length; i++) assert.equal(heads[i].parentHash, heads[i - 1].hash);
    await ws.close();
  });

  test('a revert that drops only empty blocks still rewinds block filters and subscribers', async () => {
    const ws = await RawWs.open(n.wsUrl);
    const sub = await ws.call('eth_subscribe', ['newHeads']);
    const blocks = await n.rpc('eth_newBlockFilter');
    const logs = await n.rpc('eth_newFilter', [{ address: a }]);
    await n.rpc('anvil_mine', [hex(20)]); // the head is now an empty block of a run
    await waitFor(() => ws.results(sub).length === 20, 10_000, 'first heads');
    assert.equal((await n.rpc('eth_getFilterChanges', [blocks])).length, 20);
    const snap = await n.rpc('evm_snapshot');
    const start = await head();
    await n.rpc('anvil_mine', [hex(50)]); // extends that run
    assert.equal((await n.rpc('eth_getFilterChanges', [blocks])).length, 50);
    let nodeReorgs = 0;
    const count = () => nodeReorgs++;
    n.node.events.on('reorg', count);
    assert.equal(await n.rpc('evm_revert', [snap]), true);
    n.node.events.off('reorg', count);
    assert.equal(nodeReorgs, 0, 'only empty blocks were dropped: the node announces no reorg');
    assert.equal(await head(), start);
    await n.rpc('anvil_mine', [hex(20)]);
    const r = await send(n, { to: a, data: call.pong(5) });
    assert.equal(Number(r.blockNumber), start + 21);
    const after: string[] = await n.rpc('eth_getFilterChanges', [blocks]);
    assert.deepEqual(after, await hashesOf(start + 1, start + 21), 'the new blocks at the old heights');
    assert.deepEqual((await n.rpc<RpcLog[]>('eth_getFilterChanges', [logs])).map((l) => [l.data, l.removed]), [[word(5), false]]);
    await waitFor(() => ws.results(sub).length === 20 + 50 + 21, 10_000, 'heads');
    const last = ws.results(sub).slice(70);
    assert.deepEqual(last.map((h) => Number(h.number)), Array.from({ length: 21 }, (_, i) => start + 1 + i));
    assert.equal(last[20].hash, r.blockHash);
    for (const id of [blocks, logs]) await n.rpc('eth_uninstallFilter', [id]);
    await ws.close();
  });

  test('a revert across a run and real blocks reports the dropped logs removed', async () => {
    const logs = await n.rpc('eth_newFilter', [{ address: a }]);
    const snap = await n.rpc('evm_snapshot');
    await n.rpc('anvil_mine', [hex(40)]);
    const r = await send(n, { to: a, data: call.pong(6) });
    await n.rpc('anvil_mine', [hex(40)]);
    assert.equal(await n.rpc('evm_revert', [snap]), true);
    const changes: RpcLog[] = await n.rpc('eth_getFilterChanges', [logs]);
    assert.deepEqual(changes.map((l) => [l.data, l.removed, l.blockHash]), [
      [word(6), false, r.blockHash],
      [word(6), true, r.blockHash],
    ]);
    const left: RpcLog[] = await n.rpc('eth_getLogs', [{ fromBlock: '0x0', address: a }]);
    assert.ok(left.length > 0 && left.every((l) => l.data !== word(6)), 'gone from the index');
    await n.rpc('eth_uninstallFilter', [logs]);
  });
});
