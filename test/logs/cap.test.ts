import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestNode, type TestNode } from '../support/node.js';
import { call, deployEvents, PONG, send } from './helpers.js';

describe('--max-logs cap', () => {
  let n: TestNode;
  let a: string;
  let blocks: string[];

  before(async () => {
    n = await startTestNode({ maxLogs: 5 });
    a = await deployEvents(n);
    blocks = [];
    for (const count of [2, 2, 1, 3]) blocks.push((await send(n, { to: a, data: call.many(count) })).blockNumber);
  });
  after(() => n.close());

  test('up to the cap answers; beyond it is -32005 naming the cap and a narrower range that works', async () => {
    const ok = await n.rpc('eth_getLogs', [{ fromBlock: blocks[0], toBlock: blocks[2] }]);
    assert.equal(ok.length, 5);
    const r = await n.raw('eth_getLogs', [{ fromBlock: '0x0' }]);
    assert.equal(r.error?.code, -32005);
    assert.match(r.error!.message, /more than 5 logs/);
    assert.match(r.error!.message, /--max-logs/);
    const m = /fromBlock (0x[0-9a-f]+) to toBlock (0x[0-9a-f]+)/.exec(r.error!.message);
    assert.ok(m, r.error!.message);
    // The suggested range answers within the cap.
    const suggested = await n.rpc('eth_getLogs', [{ fromBlock: m[1], toBlock: m[2] }]);
    assert.ok(suggested.length > 0 && suggested.length <= 5);
    assert.equal(m[2], blocks[2]);
  });

  test('a selective filter over the same range stays under the cap', async () => {
    const got = await n.rpc('eth_getLogs', [{ fromBlock: '0x0', address: a, topics: [PONG, null] }]);
    assert.equal(got.length, 0, 'Pong has one topic');
    assert.equal((await n.rpc('eth_getLogs', [{ fromBlock: blocks[3], topics: [PONG] }])).length, 3);
  });

  test('one block holding more than the cap says to narrow the filter instead', async () => {
    const r = await send(n, { to: a, data: call.many(6) });
    const e = await n.raw('eth_getLogs', [{ blockHash: r.blockHash }]);
    assert.equal(e.error?.code, -32005);
    assert.match(e.error!.message, /single block/);
  });

  test('eth_getFilterLogs is capped too; eth_getFilterChanges reports everything', async () => {
    const id = await n.rpc('eth_newFilter', [{ fromBlock: '0x0', address: a }]);
    await send(n, { to: a, data: call.many(7) });
    assert.equal((await n.raw('eth_getFilterLogs', [id])).error?.code, -32005);
    assert.equal((await n.rpc('eth_getFilterChanges', [id])).length, 7);
  });
});
