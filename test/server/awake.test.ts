/**
 * Staying awake between an answer and the next request (src/server/awake.ts): the rule on a clock
 * of the test's own, then the transport's bookkeeping through real HTTP and WebSocket clients —
 * every kind of request counted in and out, so polling starts after the last answer and stops.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { json } from '../../src/rpc/codecs.js';
import { Dispatcher } from '../../src/rpc/dispatch.js';
import { method, MethodTable } from '../../src/rpc/registry.js';
import { StayAwake } from '../../src/server/awake.js';
import { startServer, type RpcServer } from '../../src/server/server.js';

/** A StayAwake on a hand-moved clock whose scheduled turns run when the test says. */
function manual(windowMs = 1) {
  let now = 0;
  let turns: (() => void)[] = [];
  const awake = new StayAwake(
    windowMs,
    () => now,
    (fn) => void turns.push(fn),
  );
  return {
    awake,
    /** One request after a long quiet (not followed by polling), then a little time: the next request comes close. */
    prime() {
      awake.started();
      awake.ended();
      assert.equal(awake.awake, false, 'a request after a long quiet is not followed by polling');
      now += windowMs / 4;
    },
    advance(ms: number) {
      now += ms;
    },
    /** Run the turns scheduled so far; how many there were. */
    turn(): number {
      const run = turns;
      turns = [];
      for (const fn of run) fn();
      return run.length;
    },
  };
}

describe('the rule', () => {
  test('after an answer the loop is kept polling until the window passes', () => {
    const m = manual();
    m.prime();
    m.awake.started();
    m.awake.ended();
    assert.equal(m.awake.awake, true);
    m.advance(0.5);
    assert.equal(m.turn(), 1);
    assert.equal(m.awake.awake, true, 'still inside the window');
    m.advance(0.6);
    assert.equal(m.turn(), 1);
    assert.equal(m.awake.awake, false, 'the window passed');
    assert.equal(m.turn(), 0, 'nothing more is scheduled');
  });

  test('a request that arrives stops the polling; its answer starts it again', () => {
    const m = manual();
    m.prime();
    m.awake.started();
    m.awake.ended();
    m.advance(0.2);
    m.awake.started();
    m.turn();
    assert.equal(m.awake.awake, false, 'a request is in progress: no polling needed');
    assert.equal(m.turn(), 0);
    m.awake.ended();
    assert.equal(m.awake.awake, true);
  });

  test('no polling while requests are in progress; it starts after the last answer', () => {
    const m = manual();
    m.prime();
    m.awake.started();
    m.awake.started();
    m.awake.ended();
    assert.equal(m.awake.awake, false);
    assert.equal(m.awake.busy, 1);
    m.awake.ended();
    assert.equal(m.awake.awake, true);
    assert.equal(m.awake.busy, 0);
  });

  test('once a window passes with no request, polling waits until requests come that close again', () => {
    const m = manual();
    m.prime();
    m.awake.started();
    m.awake.ended();
    m.advance(2);
    m.turn();
    assert.equal(m.awake.awake, false);
    // A request long after the last answer: its answer is not followed by polling.
    m.advance(10);
    m.awake.started();
    m.awake.ended();
    assert.equal(m.awake.awake, false);
    assert.equal(m.turn(), 0);
    // The next one comes within the window of that answer: polling again.
    m.advance(0.5);
    m.awake.started();
    m.awake.ended();
    assert.equal(m.awake.awake, true);
  });

  test('an answer with no request counted (a client gone) never makes the count negative', () => {
    const m = manual();
    m.awake.ended();
    assert.equal(m.awake.busy, 0);
    m.awake.started();
    assert.equal(m.awake.busy, 1);
  });
});

describe('through the transport', () => {
  const awake = new StayAwake();
  let server: RpcServer;

  before(async () => {
    const dispatcher = new Dispatcher(
      new MethodTable([method('test_echo', [json], (value) => value), method('test_slow', [], () => new Promise((r) => setTimeout(() => r('late'), 100)))]),
    );
    server = await startServer(dispatcher, { host: '127.0.0.1', port: 0, maxBodyBytes: 4096, stayAwake: awake });
  });
  after(() => server.close());

  /** Polling stops by itself once nothing comes: every request was counted out. */
  async function settles(): Promise<void> {
    for (let i = 0; i < 200 && (awake.busy > 0 || awake.awake); i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(awake.busy, 0, 'no request left counted in');
    assert.equal(awake.awake, false, 'polling stopped');
  }

  test('HTTP: answers, errors, refusals, notifications, pages and preflights are all counted out', async () => {
    const post = (body: string, type = 'application/json') => fetch(server.url, { method: 'POST', headers: { 'content-type': type }, body }).then((r) => r.text());
    assert.match(await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_echo', params: [7] })), /"result":7/);
    assert.match(await post('{not json'), /-32700/);
    assert.match(await post('x'.repeat(5000)), /too large/);
    assert.match(await post('{}', 'text/plain'), /invalid content type/);
    assert.equal(await post(JSON.stringify({ jsonrpc: '2.0', method: 'test_echo', params: [1] })), '');
    assert.match(await post(JSON.stringify([1, 2].map((id) => ({ jsonrpc: '2.0', id, method: 'test_echo', params: [id] })))), /"id":2/);
    assert.match(await fetch(`${server.url}/health`).then((r) => r.text()), /ok/);
    assert.equal((await fetch(server.url, { method: 'OPTIONS' })).status, 204);
    assert.equal((await fetch(server.url, { method: 'PUT', body: '{}' })).status, 405);
    await settles();
  });

  test('HTTP: a client that goes away before its answer is counted out', async () => {
    const dispatcher = new Dispatcher(new MethodTable([method('test_slow', [], () => new Promise((r) => setTimeout(() => r('late'), 100)))]));
    const slowAwake = new StayAwake();
    const slow = await startServer(dispatcher, { host: '127.0.0.1', port: 0, stayAwake: slowAwake });
    try {
      const aborted = new AbortController();
      const sent = fetch(slow.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_slow', params: [] }), signal: aborted.signal });
      for (let i = 0; i < 200 && slowAwake.busy === 0; i++) await new Promise((r) => setTimeout(r, 5));
      assert.equal(slowAwake.busy, 1);
      aborted.abort();
      await assert.rejects(sent);
      for (let i = 0; i < 200 && slowAwake.busy > 0; i++) await new Promise((r) => setTimeout(r, 5));
      assert.equal(slowAwake.busy, 0);
    } finally {
      await slow.close();
    }
  });

  test('WebSocket: answers, errors and notifications are all counted out', async () => {
    const ws = new WebSocket(server.wsUrl);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const answers: string[] = [];
    ws.on('message', (d) => answers.push(String(d)));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_echo', params: ['a'] }));
    ws.send('{not json');
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'test_echo', params: ['b'] }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'no_such', params: [] }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'test_slow', params: [] }));
    for (let i = 0; i < 200 && awake.busy === 0; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(awake.busy, 1, 'the slow call is counted in while it runs');
    for (let i = 0; i < 200 && answers.length < 4; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(answers.length, 4);
    assert.match(answers[3]!, /late/);
    ws.close();
    await settles();
  });
});
