import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { subscriptionHub } from '../../src/rpc/subscriptionHub.js';
import { ADDRS, startTestNode, type TestNode } from '../support/node.js';
import { call, deployEvents, PING, PONG, RawWs, send, waitFor, word, type RpcLog } from './helpers.js';

describe('eth_subscribe over a raw WebSocket', () => {
  let n: TestNode;
  let a: string;
  let b: string;

  before(async () => {
    n = await startTestNode();
    a = await deployEvents(n);
    b = await deployEvents(n);
  });
  after(() => n.close());

  test('newHeads: the geth envelope, a header like the block without transactions', async () => {
    const ws = await RawWs.open(n.wsUrl);
    const sub = await ws.call('eth_subscribe', ['newHeads']);
    assert.match(sub, /^0x[0-9a-f]+$/);
    await n.node.miner.mineNow();
    await send(n, { to: a, data: call.pong(1) });
    await waitFor(() => ws.results(sub).length === 2);
    const msg = ws.notifications[0];
    assert.deepEqual(Object.keys(msg), ['jsonrpc', 'method', 'params']);
    assert.equal(msg.jsonrpc, '2.0');
    assert.equal(msg.method, 'eth_subscription');
    assert.deepEqual(Object.keys(msg.params), ['subscription', 'result']);
    assert.equal(msg.params.subscription, sub);
    for (const head of ws.results(sub)) {
      const block = await n.rpc('eth_getBlockByHash', [head.hash, false]);
      const { transactions, uncles, size, withdrawals, ...header } = block;
      assert.ok(transactions && uncles && size && withdrawals);
      assert.equal('totalDifficulty' in block, false, 'blocks follow geth and the spec: no totalDifficulty');
      assert.deepEqual(head, header);
    }
    await ws.close();
  });

  test('logs: only matching logs, one notification each, shaped as eth_getLogs', async () => {
    const ws = await RawWs.open(n.wsUrl);
    const all = await ws.call('eth_subscribe', ['logs']);
    const pongsOfB = await ws.call('eth_subscribe', ['logs', { address: b, topics: [PONG] }]);
    const pingsFrom1 = await ws.call('eth_subscribe', ['logs', { address: [a, b], topics: [PING, word(ADDRS[1])] }]);
    const start = await n.rpc('eth_blockNumber');
    await send(n, { to: a, data: call.pong(1) });
    await send(n, { to: b, data: call.many(3) });
    await send(n, { to: a, data: call.ping(9, '0x' + '09'.repeat(32), 'nine'), from: ADDRS[1] });
    await send(n, { to: b, data: call.ping(8, '0x' + '08'.repeat(32), 'eight') });
    const expected: RpcLog[] = await n.rpc('eth_getLogs', [{ fromBlock: `0x${(Number(start) + 1).toString(16)}` }]);
    assert.equal(expected.length, 6);
    await waitFor(() => ws.results(all).length === 6);
    assert.deepEqual(ws.results(all), expected);
    assert.deepEqual(ws.results(pongsOfB), expected.filter((l) => l.address === b.toLowerCase() && l.topics[0] === PONG));
    assert.equal(ws.results(pongsOfB).length, 3);
    assert.deepEqual(ws.results(pingsFrom1), expected.filter((l) => l.topics[0] === PING && l.topics[1] === word(ADDRS[1])));
    assert.equal(ws.results(pingsFrom1).length, 1);
    await ws.close();
  });

  test('newPendingTransactions: hashes, or full pending transactions with `true`', async () => {
    const ws = await RawWs.open(n.wsUrl);
    const hashes = await ws.call('eth_subscribe', ['newPendingTransactions']);
    const full = await ws.call('eth_subscribe', ['newPendingTransactions', true]);
    await n.node.miner.setAutomine(false);
    let sent: string;
    try {
      sent = await n.rpc('eth_sendTransaction', [{ from: ADDRS[2], to: a, data: call.pong(3) }]);
      await waitFor(() => ws.results(full).length === 1);
      const tx = ws.results(full)[0];
      assert.equal(tx.hash, sent);
      assert.equal(tx.blockHash, null);
      assert.equal(tx.blockNumber, null);
      assert.equal(tx.transactionIndex, null);
      assert.equal(tx.from.toLowerCase(), ADDRS[2].toLowerCase());
      assert.equal(tx.to.toLowerCase(), a.toLowerCase());
      assert.equal(tx.input, call.pong(3));
    } finally {
      await n.node.miner.setAutomine(true);
    }
    const mined = await n.rpc('eth_getTransactionByHash', [sent]);
    assert.ok(mined.blockHash, 'mined once automine is back');
    assert.deepEqual(ws.results(hashes), [sent]);
    // With automine the transaction is announced too, before its block.
    const again = await n.rpc('eth_sendTransaction', [{ from: ADDRS[2], to: a, data: call.pong(4) }]);
    await waitFor(() => ws.results(hashes).length === 2);
    assert.deepEqual(ws.results(hashes), [sent, again]);
    await ws.close();
  });

  test('unsubscribe stops notifications; ids belong to their connection', async () => {
    const ws = await RawWs.open(n.wsUrl);
    const other = await RawWs.open(n.wsUrl);
    const sub = await ws.call('eth_subscribe', ['newHeads']);
    await n.node.miner.mineNow();
    await waitFor(() => ws.results(sub).length === 1);
    assert.equal(await other.call('eth_unsubscribe', [sub]), false, 'not yours');
    assert.equal(await ws.call('eth_unsubscribe', [sub]), true);
    assert.equal(await ws.call('eth_unsubscribe', [sub]), false, 'already gone');
    await n.node.miner.mineNow();
    const probe = await ws.call('eth_subscribe', ['newHeads']);
    await n.node.miner.mineNow();
    await waitFor(() => ws.results(probe).length === 1);
    assert.equal(ws.results(sub).length, 1, 'nothing after unsubscribe');
    await ws.close();
    await other.close();
  });

  test('closing a connection releases its subscriptions and the node listeners', async () => {
    const hub = subscriptionHub(n.node);
    await waitFor(() => hub.size === 0, 2000, 'earlier connections released');
    const blockListeners = n.node.logs.events.listenerCount('block');
    const reorgListeners = n.node.logs.events.listenerCount('reorg');
    const pendingListeners = n.node.events.listenerCount('pendingTx');
    const sockets = await Promise.all(Array.from({ length: 5 }, () => RawWs.open(n.wsUrl)));
    for (const ws of sockets) {
      await ws.call('eth_subscribe', ['newHeads']);
      await ws.call('eth_subscribe', ['logs', { address: a }]);
      await ws.call('eth_subscribe', ['newPendingTransactions']);
      await ws.call('eth_subscribe', ['syncing']);
    }
    assert.equal(hub.size, 20);
    assert.equal(hub.connections, 5);
    assert.equal(n.node.logs.events.listenerCount('block'), blockListeners + 1, 'one listener for all subscribers');
    assert.equal(n.node.events.listenerCount('pendingTx'), pendingListeners + 1);
    await send(n, { to: a, data: call.pong(5) });
    await waitFor(() => sockets.every((ws) => ws.notifications.length === 3), 2000, 'head, log and pending tx on every socket');
    await Promise.all(sockets.map((ws) => ws.close()));
    await waitFor(() => hub.size === 0, 2000, 'subscriptions released');
    assert.equal(hub.connections, 0);
    assert.equal(n.node.logs.events.listenerCount('block'), blockListeners);
    assert.equal(n.node.logs.events.listenerCount('reorg'), reorgListeners);
    assert.equal(n.node.events.listenerCount('pendingTx'), pendingListeners);
  });

  test('syncing: a dev chain never syncs, so it never fires', async () => {
    const ws = await RawWs.open(n.wsUrl);
    const sub = await ws.call('eth_subscribe', ['syncing']);
    assert.match(sub, /^0x[0-9a-f]+$/);
    await send(n, { to: a, data: call.pong(6) });
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(ws.results(sub), []);
    assert.equal(await ws.call('eth_unsubscribe', [sub]), true);
    await ws.close();
  });

  test('after a revert, logs subscribers receive the dropped logs with removed: true', async () => {
    const ws = await RawWs.open(n.wsUrl);
    const sub = await ws.call('eth_subscribe', ['logs', { address: a }]);
    const heads = await ws.call('eth_subscribe', ['newHeads']);
    const snap = n.node.history.snapshot();
    await send(n, { to: a, data: call.pong(11) });
    await send(n, { to: b, data: call.pong(12) });
    await send(n, { to: a, data: call.many(2) });
    await waitFor(() => ws.results(sub).length === 3);
    const added: RpcLog[] = ws.results(sub);
    assert.ok(await n.node.history.revert(snap));
    await waitFor(() => ws.results(sub).length === 6);
    assert.deepEqual(ws.results(sub).slice(3), added.map((l) => ({ ...l, removed: true })));
    // New blocks at the same heights arrive as new heads and new logs.
    await send(n, { to: a, data: call.pong(13) });
    await waitFor(() => ws.results(sub).length === 7);
    const last = ws.results(sub)[6];
    assert.equal(last.removed, false);
    assert.equal(last.blockNumber, added[0].blockNumber);
    assert.notEqual(last.blockHash, added[0].blockHash);
    assert.equal(ws.results(heads).at(-1).hash, last.blockHash);
    await ws.close();
  });

  test('a subscription id is answered before any of its notifications', async () => {
    const ws = await RawWs.open(n.wsUrl);
    // One batch subscribes and mines a block: the block is announced while the subscription is
    // being answered, and its notification must still come after the answer.
    ws.ws.send(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'sub', method: 'eth_subscribe', params: ['newHeads'] },
        { jsonrpc: '2.0', id: 'tx', method: 'eth_sendTransaction', params: [{ from: ADDRS[0], to: a, data: call.pong(7) }] },
      ]),
    );
    await waitFor(() => ws.notifications.length === 1);
    const answer = ws.messages.findIndex((m) => Array.isArray(m));
    const first = ws.messages.findIndex((m) => m.method === 'eth_subscription');
    assert.ok(answer >= 0 && answer < first, `answer at ${answer}, first notification at ${first}`);
    const sub = ws.messages[answer].find((r: { id: string }) => r.id === 'sub').result;
    assert.equal(ws.notifications[0].params.subscription, sub);
    const tx = await n.rpc('eth_getTransactionByHash', [ws.messages[answer].find((r: { id: string }) => r.id === 'tx').result]);
    assert.equal(ws.notifications[0].params.result.hash, tx.blockHash);
    await ws.close();
  });

  test('bad subscriptions are -32602; over HTTP eth_subscribe / eth_unsubscribe say a WebSocket is needed', async () => {
    const ws = await RawWs.open(n.wsUrl);
    for (const [params, pattern] of [
      [['newBlocks'], /argument 0.*newHeads, logs, newPendingTransactions, syncing/],
      [[], /missing value for required argument 0/],
      [['logs', { address: '0x12' }], /1\.address/],
      [['logs', { topics: [null, '0x12'] }], /1\.topics\[1\]/],
      [['logs', 'everything'], /argument 1/],
      [['newPendingTransactions', 'yes'], /argument 1.*boolean/],
    ] as Array<[unknown[], RegExp]>) {
      const r = await ws.request('eth_subscribe', params);
      assert.equal(r.error?.code, -32602, JSON.stringify(params));
      assert.match(r.error.message, pattern);
    }
    assert.equal((await ws.request('eth_unsubscribe', ['nope'])).error?.code, -32602);
    await ws.close();
    for (const [m, params] of [
      ['eth_subscribe', ['newHeads']],
      ['eth_unsubscribe', ['0x1']],
    ] as Array<[string, unknown[]]>) {
      const r = await n.raw(m, params);
      assert.equal(r.error?.code, -32601, m);
      assert.match(r.error!.message, /notifications not supported/);
      assert.match(r.error!.message, /WebSocket/);
      assert.match(r.error!.message, /eth_newFilter/);
    }
  });
});
