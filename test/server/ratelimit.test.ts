/**
 * Rate limits over real sockets: the spec's tiers (100/s per IP, 100/s per WebSocket connection)
 * hold to ±10% against a client sending 500/s; batches count per element and are refused whole;
 * refused calls are -32005 with their ids, HTTP 429 with Retry-After, and every answer of a
 * limited tier carries the RateLimit headers; a WebSocket flooding for long is closed with 1008;
 * plain dev mode limits nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startDev, type Running } from '../../src/lib/start.js';
import { startServer, type RpcServer } from '../../src/server/server.js';
import { call, openSocket, paced, poster, RATE_HEADERS, stubDispatcher, waitFor, type Reply } from './helpers.js';

const HOST = '127.0.0.1';

function assertLimitedAnswer(r: Reply, id: number | string): void {
  assert.equal(r.status, 429);
  assert.deepEqual(r.json, { jsonrpc: '2.0', id, error: { code: -32005, message: 'limit exceeded' } });
  assert.ok(Number(r.headers['retry-after']) >= 1, `Retry-After ${r.headers['retry-after']}`);
}

describe('the spec tiers of node-rpc --public', () => {
  let node: Running;
  before(async () => {
    node = await startDev({ port: 0, host: HOST, shared: true, explorer: false });
  });
  after(() => node.close());

  test('500 requests a second from one IP for 3 s: 100 a second served (±10%), the rest 429 with -32005 and the headers', async (t) => {
    const client = poster(node.server.url, { sockets: 16 });
    const { results, seconds } = await paced(500, 3000, (i) => client.post(call('eth_chainId', [], i)));
    client.close();
    const served = results.filter((r) => r.status === 200);
    const rate = served.length / seconds;
    t.diagnostic(`${rate.toFixed(1)} requests/s served`);
    assert.ok(rate >= 90 && rate <= 110, `${rate.toFixed(1)} requests/s served (${served.length} in ${seconds.toFixed(2)} s)`);
    assert.ok(results.length > 1200, `${results.length} sent`);
    results.forEach((r, i) => {
      if (r.status === 200) assert.deepEqual(r.json, { jsonrpc: '2.0', id: i, result: '0x3d8' });
      else assertLimitedAnswer(r, i);
      for (const h of RATE_HEADERS) assert.ok(r.headers[h] !== undefined, `${h} on a ${r.status}`);
      assert.equal(r.headers['ratelimit-limit'], '100');
      assert.equal(r.headers['x-ratelimit-limit'], '100');
    });
    const reset = results.map((r) => Number(r.headers['ratelimit-reset']));
    assert.ok(reset.every((s) => Number.isInteger(s) && s >= 0 && s <= 1), 'RateLimit-Reset is whole seconds until the bucket is full');
  });

  test('a WebSocket sending 500 messages a second: 100 a second answered (±10%), the rest -32005, and it stays open', async (t) => {
    const s = await openSocket(node.server.wsUrl);
    const { results, seconds } = await paced(500, 3000, async (i) => s.ws.send(JSON.stringify(call('eth_chainId', [], i))));
    await waitFor(() => s.messages.length === results.length, 5000);
    const answers = s.messages.splice(0);
    const ids = answers.map((m) => m.id).sort((a, b) => a - b);
    assert.deepEqual(ids, results.map((_, i) => i), 'every message answered once');
    const served = answers.filter((m) => m.result === '0x3d8').length;
    const limited = answers.filter((m) => m.error?.code === -32005 && m.error.message === 'limit exceeded').length;
    assert.equal(served + limited, answers.length);
    const rate = served / seconds;
    t.diagnostic(`${rate.toFixed(1)} messages/s answered`);
    assert.ok(rate >= 90 && rate <= 110, `${rate.toFixed(1)} messages/s answered (${served} in ${seconds.toFixed(2)} s)`);
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(s.ws.readyState, s.ws.OPEN);
    s.ws.send(JSON.stringify(call('eth_chainId', [], 'after')));
    assert.deepEqual(await s.next(), { jsonrpc: '2.0', id: 'after', result: '0x3d8' });
    s.ws.close();
  });
});

describe('batches in a limited tier', () => {
  let server: RpcServer;
  before(async () => {
    server = await startServer(stubDispatcher(), { host: HOST, port: 0, rateLimit: { ip: 100 } });
  });
  after(() => server.close());

  test('batches of 5 sent at 500 calls a second for 3 s: 100 calls a second served (±10%), each batch whole or refused whole', async (t) => {
    const client = poster(server.url, { sockets: 8 });
    const batch = (b: number) => Array.from({ length: 5 }, (_, j) => call('test_echo', [j], `${b}-${j}`));
    const { results, seconds } = await paced(100, 3000, (b) => client.post(batch(b)));
    client.close();
    let servedCalls = 0;
    results.forEach((r, b) => {
      assert.equal(r.json.length, 5);
      if (r.status === 200) {
        servedCalls += 5;
        r.json.forEach((a: any, j: number) => assert.deepEqual(a, { jsonrpc: '2.0', id: `${b}-${j}`, result: j }));
      } else {
        assert.equal(r.status, 429);
        r.json.forEach((a: any, j: number) => assert.deepEqual(a, { jsonrpc: '2.0', id: `${b}-${j}`, error: { code: -32005, message: 'limit exceeded' } }));
      }
    });
    const rate = servedCalls / seconds;
    t.diagnostic(`${rate.toFixed(1)} calls/s served`);
    assert.ok(rate >= 90 && rate <= 110, `${rate.toFixed(1)} calls/s served in batches`);
  });

  test('a refused batch answers each call with its id (notifications none); a batch over the burst is served when the bucket is full, then paid back', async () => {
    await new Promise((r) => setTimeout(r, 200));
    const client = poster(server.url, { sockets: 1 });
    // The burst is a tenth of a second: 10 calls.
    const first = await client.post(Array.from({ length: 10 }, (_, i) => call('test_echo', [i], i)));
    assert.equal(first.status, 200);
    assert.equal(first.headers['ratelimit-remaining'], '0');
    const refused = await client.post([call('test_echo', [1], 'a'), { jsonrpc: '2.0', method: 'test_echo', params: [2] }, call('test_echo', [3], 'b')]);
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.json.map((a: any) => [a.id, a.error.code]), [['a', -32005], ['b', -32005]]);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    await new Promise((r) => setTimeout(r, 200));
    const big = await client.post(Array.from({ length: 50 }, (_, i) => call('test_echo', [i], i)));
    assert.equal(big.status, 200, 'a batch larger than the burst goes through on a full bucket');
    assert.equal(big.json.length, 50);
    // 40 calls of debt at 100/s: the next 0.4 s are refused.
    await new Promise((r) => setTimeout(r, 200));
    const inDebt = await client.post(call('test_echo', [1], 'x'));
    assertLimitedAnswer(inDebt, 'x');
    await new Promise((r) => setTimeout(r, 350));
    assert.equal((await client.post(call('test_echo', [1], 'y'))).status, 200);
    client.close();
  });
});

describe('bodies that are not calls', () => {
  test('a body that does not parse, and a batch over the size cap, cost one call each and are refused with a null id', async () => {
    const server = await startServer(stubDispatcher({ maxBatch: 3 }), { host: HOST, port: 0, rateLimit: { ip: 20 } });
    const client = poster(server.url, { sockets: 1 });
    // The burst on a 20/s tier is 2 calls.
    assert.equal((await client.post('{"not json')).json.error.code, -32700);
    assert.equal((await client.post(Array.from({ length: 4 }, (_, i) => call('test_echo', [i], i)))).json[0].error.code, -32600);
    for (const body of ['{"not json', JSON.stringify(Array.from({ length: 4 }, (_, i) => call('test_echo', [i], i)))]) {
      const r = await client.post(body);
      assert.equal(r.status, 429);
      assert.deepEqual(r.json, { jsonrpc: '2.0', id: null, error: { code: -32005, message: 'limit exceeded' } });
    }
    client.close();
    await server.close();
  });
});

describe('a WebSocket far over its limit', () => {
  test('is closed with 1008 once it has been for overrunCloseSeconds; one under it is not', async () => {
    const server = await startServer(stubDispatcher(), { host: HOST, port: 0, rateLimit: { ws: 20 }, overrunCloseSeconds: 1 });
    const flooder = await openSocket(server.wsUrl);
    const steady = await openSocket(server.wsUrl);
    let i = 0;
    const timer = setInterval(() => {
      for (let k = 0; k < 3 && flooder.ws.readyState === flooder.ws.OPEN; k++) flooder.ws.send(JSON.stringify(call('test_echo', [i], i++)));
      // 30 a second on a 20/s limit: over, but not far over.
      if (i % 10 < 3) steady.ws.send(JSON.stringify(call('test_echo', [i], i)));
    }, 10);
    const closed = await Promise.race([flooder.closed, new Promise<undefined>((r) => setTimeout(r, 5000))]);
    clearInterval(timer);
    assert.ok(closed, 'the flooding connection was closed');
    assert.equal(closed.code, 1008);
    assert.match(closed.reason, /rate limit of 20 calls a second for 1 s/);
    assert.ok(flooder.messages.some((m) => m.error?.code === -32005));
    assert.equal(steady.ws.readyState, steady.ws.OPEN);
    steady.ws.close();
    await server.close();
  });
});

describe('plain dev mode', () => {
  test('limits nothing and sends no rate-limit headers', async () => {
    const node = await startDev({ port: 0, host: HOST, explorer: false });
    const client = poster(node.server.url, { sockets: 8 });
    const results = await Promise.all(Array.from({ length: 400 }, (_, i) => client.post(call('eth_chainId', [], i))));
    assert.ok(results.every((r) => r.status === 200 && r.json.result === '0x3d8'));
    for (const h of [...RATE_HEADERS, 'retry-after']) assert.equal(results[0].headers[h], undefined, h);
    const s = await openSocket(node.server.wsUrl);
    for (let k = 0; k < 400; k++) s.ws.send(JSON.stringify(call('eth_chainId', [], k)));
    await waitFor(() => s.messages.length === 400);
    assert.ok(s.messages.every((m) => m.result === '0x3d8'));
    s.ws.close();
    client.close();
    await node.close();
  });
});
