import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';
import { call, deployEvents, PING, PONG, RawWs, send, waitFor, word, type RpcLog } from './helpers.js';

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

describe('polling filters', () => {
  let n: TestNode;
  let a: string;
  let b: string;

  before(async () => {
    n = await startTestNode();
    a = await deployEvents(n);
    b = await deployEvents(n);
  });
  after(() => n.close());

  test('ids are distinct 0x-hex strings with 128 random bits', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 40; i++) ids.add(await n.rpc('eth_newBlockFilter'));
    assert.equal(ids.size, 40);
    for (const id of ids) {
      assert.match(id, /^0x[1-9a-f][0-9a-f]*$/);
      assert.ok(id.length >= 20, id);
      assert.equal(await n.rpc('eth_uninstallFilter', [id]), true);
    }
  });

  test('log filter: exactly the new matching logs, never twice, even across many blocks', async () => {
    const id = await n.rpc('eth_newFilter', [{ address: a }]);
    const start = Number(await n.rpc('eth_blockNumber'));
    assert.deepEqual(await n.rpc('eth_getFilterChanges', [id]), [], 'nothing yet');
    await send(n, { to: a, data: call.pong(1) });
    await send(n, { to: b, data: call.pong(2) }); // other address
    const first: RpcLog[] = await n.rpc('eth_getFilterChanges', [id]);
    assert.deepEqual(first.map((l) => l.data), [word(1)]);
    assert.deepEqual(await n.rpc('eth_getFilterChanges', [id]), [], 'no repeat');
    // Many blocks between two polls, logs spread among empty blocks.
    for (let i = 0; i < 30; i++) {
      if (i % 3 === 0) await send(n, { to: a, data: call.many(2) });
      else await n.node.miner.mineNow();
    }
    const second: RpcLog[] = await n.rpc('eth_getFilterChanges', [id]);
    const expected: RpcLog[] = await n.rpc('eth_getLogs', [{ fromBlock: hex(start + 1), address: a }]);
    assert.equal(second.length, 20);
    assert.deepEqual([...first, ...second], expected);
    assert.deepEqual(await n.rpc('eth_getFilterChanges', [id]), []);
    assert.equal(await n.rpc('eth_uninstallFilter', [id]), true);
  });

  test('log filter honours topics and numeric fromBlock / toBlock', async () => {
    const head = Number(await n.rpc('eth_blockNumber'));
    const pings = await n.rpc('eth_newFilter', [{ topics: [PING, word(ADDRS[1])] }]);
    const bounded = await n.rpc('eth_newFilter', [{ fromBlock: hex(head + 2), toBlock: hex(head + 3), topics: [PONG] }]);
    for (let i = 1; i <= 5; i++) await send(n, { to: a, data: call.pong(100 + i) }); // blocks head+1 .. head+5
    await send(n, { to: b, data: call.ping(1, '0x' + '01'.repeat(32), 'x'), from: ADDRS[1] });
    await send(n, { to: b, data: call.ping(2, '0x' + '01'.repeat(32), 'y') }); // from account 0: no match
    const got: RpcLog[] = await n.rpc('eth_getFilterChanges', [bounded]);
    assert.deepEqual(got.map((l) => Number(l.blockNumber)), [head + 2, head + 3]);
    const p: RpcLog[] = await n.rpc('eth_getFilterChanges', [pings]);
    assert.equal(p.length, 1);
    assert.equal(p[0].topics[2], word(1));
    // eth_getFilterLogs answers the whole range again, however often it was polled.
    assert.deepEqual((await n.rpc<RpcLog[]>('eth_getFilterLogs', [bounded])).map((l) => l.data), [word(102), word(103)]);
    assert.deepEqual(await n.rpc('eth_getFilterLogs', [bounded]), await n.rpc('eth_getFilterLogs', [bounded]));
    for (const id of [pings, bounded]) await n.rpc('eth_uninstallFilter', [id]);
  });

  test('block filter: each new block hash once, in order', async () => {
    const id = await n.rpc('eth_newBlockFilter');
    const start = Number(await n.rpc('eth_blockNumber'));
    assert.deepEqual(await n.rpc('eth_getFilterChanges', [id]), []);
    for (let i = 0; i < 25; i++) await n.node.miner.mineNow();
    await send(n, { to: a, data: call.pong(1) });
    const hashes: string[] = await n.rpc('eth_getFilterChanges', [id]);
    assert.equal(hashes.length, 26);
    for (let i = 0; i < hashes.length; i++) {
      assert.equal(hashes[i], (await n.rpc('eth_getBlockByNumber', [hex(start + 1 + i), false])).hash);
    }
    assert.deepEqual(await n.rpc('eth_getFilterChanges', [id]), []);
    assert.equal((await n.raw('eth_getFilterLogs', [id])).error?.message, 'filter not found', 'not a log filter');
    await n.rpc('eth_uninstallFilter', [id]);
  });

  test('pending transaction filter: hashes as they enter the pool, listener only while installed', async () => {
    const listeners = n.node.events.listenerCount('pendingTx');
    const id = await n.rpc('eth_newPendingTransactionFilter');
    assert.equal(n.node.events.listenerCount('pendingTx'), listeners + 1);
    await n.node.miner.setAutomine(false);
    try {
      const sent: string[] = [];
      for (let i = 0; i < 3; i++) sent.push(await n.rpc('eth_sendTransaction', [{ from: ADDRS[0], to: a, data: call.pong(i) }]));
      assert.deepEqual(await n.rpc('eth_getFilterChanges', [id]), sent);
      await n.node.miner.mineNow();
      assert.deepEqual(await n.rpc('eth_getFilterChanges', [id]), [], 'mining is not a new pending transaction');
    } finally {
      await n.node.miner.setAutomine(true);
    }
    assert.equal(await n.rpc('eth_uninstallFilter', [id]), true);
    assert.equal(n.node.events.listenerCount('pendingTx'), listeners);
  });

  test('uninstall, unknown and malformed ids', async () => {
    const id = await n.rpc('eth_newFilter', [{}]);
    assert.equal(await n.rpc('eth_uninstallFilter', [id]), true);
    assert.equal(await n.rpc('eth_uninstallFilter', [id]), false);
    for (const m of ['eth_getFilterChanges', 'eth_getFilterLogs']) {
      const r = await n.raw(m, [id]);
      assert.equal(r.error?.code, -32000, m);
      assert.equal(r.error?.message, 'filter not found', m);
      assert.equal((await n.raw(m, ['0x1234abcd'])).error?.message, 'filter not found');
      const bad = await n.raw(m, ['not-an-id']);
      assert.equal(bad.error?.code, -32602);
      assert.match(bad.error!.message, /argument 0/);
    }
    const r = await n.raw('eth_newFilter', [{ fromBlock: '0x9', toBlock: '0x3' }]);
    assert.equal(r.error?.code, -32602);
    assert.equal(r.error?.message, 'invalid block range params');
    assert.equal((await n.raw('eth_newFilter', [{ topics: 'x' }])).error?.code, -32602);
  });

  test('after a revert, log filters report the dropped logs again with removed: true', async () => {
    const id = await n.rpc('eth_newFilter', [{ address: a }]);
    const snap = n.node.history.snapshot();
    await send(n, { to: a, data: call.pong(501) });
    await send(n, { to: a, data: call.many(2) });
    const added: RpcLog[] = await n.rpc('eth_getFilterChanges', [id]);
    assert.equal(added.length, 3);
    assert.ok(await n.node.history.revert(snap));
    const removed: RpcLog[] = await n.rpc('eth_getFilterChanges', [id]);
    assert.deepEqual(removed, added.map((l) => ({ ...l, removed: true })));
    assert.deepEqual(await n.rpc('eth_getFilterChanges', [id]), []);
    // The chain goes on from the fork point: new logs at the same heights are reported.
    const r = await send(n, { to: a, data: call.pong(502) });
    const next: RpcLog[] = await n.rpc('eth_getFilterChanges', [id]);
    assert.equal(next.length, 1);
    assert.equal(next[0].blockNumber, added[0].blockNumber);
    assert.equal(next[0].blockHash, r.blockHash);
    assert.equal(next[0].removed, false);
    await n.rpc('eth_uninstallFilter', [id]);
  });

  test('mined and reverted between two polls: reported, then reported removed (as geth does)', async () => {
    const id = await n.rpc('eth_newFilter', [{ address: b }]);
    const blocks = await n.rpc('eth_newBlockFilter');
    await send(n, { to: b, data: call.pong(601) }); // stays
    const snap = n.node.history.snapshot();
    const gone = await send(n, { to: b, data: call.pong(602) });
    assert.ok(await n.node.history.revert(snap));
    const kept = await send(n, { to: b, data: call.pong(603) });
    const changes: RpcLog[] = await n.rpc('eth_getFilterChanges', [id]);
    assert.deepEqual(
      changes.map((l) => [l.data, l.removed]),
      [
        [word(601), false],
        [word(602), false],
        [word(602), true],
        [word(603), false],
      ],
    );
    assert.equal(changes[1].blockHash, gone.blockHash);
    const hashes: string[] = await n.rpc('eth_getFilterChanges', [blocks]);
    assert.equal(hashes.length, 3, 'the reverted head was a head too');
    assert.equal(hashes[1], gone.blockHash);
    assert.equal(hashes[2], kept.blockHash);
    for (const f of [id, blocks]) await n.rpc('eth_uninstallFilter', [f]);
  });

  test('filters created over a WebSocket are removed when it closes; HTTP ones stay', async () => {
    const base = n.node.filters.size;
    const httpId = await n.rpc('eth_newBlockFilter');
    const ws = await RawWs.open(n.wsUrl);
    const ids = [await ws.call('eth_newFilter', [{ address: a }]), await ws.call('eth_newBlockFilter'), await ws.call('eth_newPendingTransactionFilter')];
    assert.equal(n.node.filters.size, base + 4);
    await send(n, { to: a, data: call.pong(1) });
    assert.equal((await ws.call('eth_getFilterChanges', [ids[0]])).length, 1, 'usable over the socket');
    assert.equal(await ws.call('eth_uninstallFilter', [ids[1]]), true);
    await ws.close();
    await waitFor(() => n.node.filters.size === base + 1, 2000, 'WebSocket filters released');
    assert.equal((await n.raw('eth_getFilterChanges', [ids[0]])).error?.message, 'filter not found');
    assert.deepEqual(await n.rpc('eth_getFilterChanges', [httpId]), [await n.rpc('eth_getBlockByNumber', ['latest', false]).then((x) => x.hash)]);
    await n.rpc('eth_uninstallFilter', [httpId]);
    assert.equal(n.node.filters.size, base);
  });
});
