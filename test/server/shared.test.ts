/**
 * The shared mode's access rules and caps: the Host allow-list (DNS rebinding), X-Forwarded-For
 * read only from trusted proxies, CORS in dev and shared mode, connections per IP, batch size,
 * batch answer size, body size, and --public listening on every interface.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startDev, type Running } from '../../src/lib/start.js';
import { transportSettings } from '../../src/lib/transport.js';
import type { AccessEntry } from '../../src/server/access.js';
import { hostCheck } from '../../src/server/hosts.js';
import { startServer, type RpcServer } from '../../src/server/server.js';
import { call, openSocket, poster, request, stubDispatcher, waitFor } from './helpers.js';

const HOST = '127.0.0.1';
const body = JSON.stringify(call('eth_chainId'));
const post = (url: string, headers: Record<string, string> = {}, localAddress?: string) =>
  request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers }, localAddress });

describe('Host allow-list', () => {
  let dev: Running;
  before(async () => {
    dev = await startDev({ port: 0, host: HOST, explorer: false });
  });
  after(() => dev.close());

  test('dev mode serves the local names and the bound address, and refuses others with 403 naming the problem', async () => {
    const port = dev.server.port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'LOCALHOST', '127.0.0.1']) {
      const r = await post(dev.server.url, { host });
      assert.equal(r.status, 200, host);
      assert.equal(r.json.result, '0x3d8');
    }
    for (const host of ['evil.example', `evil.example:${port}`, '127.0.0.1.evil.example', '10.1.2.3']) {
      const r = await post(dev.server.url, { host });
      assert.equal(r.status, 403, host);
      assert.deepEqual(r.json, { jsonrpc: '2.0', id: null, error: { code: -32000, message: `Host ${JSON.stringify(host)} is not allowed (see --allowed-hosts)` } });
    }
    assert.equal((await request(dev.server.url, { path: '/health', headers: { host: 'evil.example' } })).status, 403);
    const refused = await openSocket(dev.server.wsUrl, { headers: { host: 'evil.example' } }).then(
      () => assert.fail('upgrade accepted'),
      (err: { status: number; body: string }) => err,
    );
    assert.equal(refused.status, 403);
    assert.match(JSON.parse(refused.body).error.message, /Host "evil.example" is not allowed/);
  });

  test('--public serves any Host; --allowed-hosts lists exactly the names served', async () => {
    const shared = await startDev({ port: 0, host: HOST, shared: true, explorer: false });
    assert.equal((await post(shared.server.url, { host: 'rpc.team.example' })).status, 200);
    await shared.close();
    const listed = await startServer(stubDispatcher(), { host: HOST, port: 0, allowedHosts: ['rpc.team.example'] });
    assert.equal((await post(listed.url, { host: `rpc.team.example:${listed.port}` })).status, 200);
    assert.equal((await post(listed.url, { host: `127.0.0.1:${listed.port}` })).status, 403);
    await listed.close();
  });

  test('an IPv6 address is listed bare or in brackets, in any case', () => {
    const ok = hostCheck(['FE80::1', '[::2]', 'rpc.team.example:8545']);
    for (const host of ['[fe80::1]:8545', '[FE80::1]', 'fe80::1', '[::2]:1', 'RPC.team.example']) assert.equal(ok(host), true, host);
    for (const host of ['[fe80::2]:8545', '[::1]', 'fe80', 'team.example']) assert.equal(ok(host), false, host);
  });
});

describe('X-Forwarded-For', () => {
  let server: RpcServer;
  const seen: AccessEntry[] = [];
  before(async () => {
    server = await startServer(stubDispatcher(), { host: HOST, port: 0, trustProxy: ['127.0.0.2'], rateLimit: { ip: 20 }, onAccess: (e) => seen.push(e) });
  });
  after(() => server.close());

  const ipOf = async (headers: Record<string, string>, localAddress?: string) => {
    seen.length = 0;
    await post(server.url, headers, localAddress);
    await waitFor(() => seen.length === 1);
    return seen[0].ip;
  };

  test('is read only from a trusted proxy, taking the rightmost hop that is not a trusted proxy', async () => {
    assert.equal(await ipOf({ 'x-forwarded-for': '9.9.9.9' }), '127.0.0.1', 'an untrusted peer cannot name another client');
    assert.equal(await ipOf({}, '127.0.0.2'), '127.0.0.2');
    assert.equal(await ipOf({ 'x-forwarded-for': '7.7.7.7' }, '127.0.0.2'), '7.7.7.7');
    assert.equal(await ipOf({ 'x-forwarded-for': '6.6.6.6, 7.7.7.7' }, '127.0.0.2'), '7.7.7.7', 'hops left of the last one are the client’s word');
    assert.equal(await ipOf({ 'x-forwarded-for': '6.6.6.6, 127.0.0.2' }, '127.0.0.2'), '6.6.6.6', 'trusted hops are skipped');
    assert.equal(await ipOf({ 'x-forwarded-for': 'garbage' }, '127.0.0.2'), '127.0.0.2');
  });

  test('clients behind a trusted proxy get buckets of their own', async () => {
    const via = (client: string) => post(server.url, { 'x-forwarded-for': client }, '127.0.0.2');
    const first = await Promise.all(Array.from({ length: 10 }, () => via('7.7.7.7')));
    assert.ok(first.some((r) => r.status === 429), '7.7.7.7 is over its limit');
    assert.equal((await via('8.8.8.8')).status, 200, '8.8.8.8 is not');
  });
});

describe('CORS', () => {
  test('dev mode allows any origin; --public none unless --cors lists it', async () => {
    const origin = { origin: 'https://app.example' };
    const preflight = (url: string, o: Record<string, string>) => request(url, { method: 'OPTIONS', headers: { ...o, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' } });

    const dev = await startDev({ port: 0, host: HOST, explorer: false });
    assert.equal((await post(dev.server.url, origin)).headers['access-control-allow-origin'], '*');
    assert.equal((await preflight(dev.server.url, origin)).headers['access-control-allow-origin'], '*');
    await dev.close();

    const shared = await startDev({ port: 0, host: HOST, shared: true, explorer: false });
    const closed = await post(shared.server.url, origin);
    assert.equal(closed.status, 200);
    assert.equal(closed.headers['access-control-allow-origin'], undefined);
    const pre = await preflight(shared.server.url, origin);
    assert.equal(pre.status, 204);
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
    await shared.close();

    const listed = await startDev({ port: 0, host: HOST, shared: true, explorer: false, transport: { cors: ['https://app.example'] } });
    const ok = await post(listed.server.url, origin);
    assert.equal(ok.headers['access-control-allow-origin'], 'https://app.example');
    assert.equal(ok.headers.vary, 'Origin');
    assert.match(String(ok.headers['access-control-expose-headers']), /RateLimit-Remaining.*Retry-After/, 'pages may read the rate-limit headers');
    const okPre = await preflight(listed.server.url, origin);
    assert.equal(okPre.headers['access-control-allow-origin'], 'https://app.example');
    assert.equal(okPre.headers['access-control-allow-headers'], 'content-type,authorization');
    assert.equal((await post(listed.server.url, { origin: 'https://other.example' })).headers['access-control-allow-origin'], undefined);
    await listed.close();
  });
});

describe('connections per IP', () => {
  test('past the cap of busy connections an upgrade is refused and an HTTP request answered 429; other addresses and freed places are served', async () => {
    const server = await startServer(stubDispatcher(), { host: HOST, port: 0, maxConnsPerIp: 3 });
    const sockets = await Promise.all([0, 1, 2].map(() => openSocket(server.wsUrl)));
    const refused = await openSocket(server.wsUrl).then(
      () => assert.fail('a fourth connection was accepted'),
      (err: { status: number; body: string }) => err,
    );
    assert.equal(refused.status, 429);
    assert.match(JSON.parse(refused.body).error.message, /too many connections from 127\.0\.0\.1: at most 3 busy at once \(--max-conns-per-ip\)/);
    const http = await post(server.url);
    assert.equal(http.status, 429);
    assert.equal(http.json.error.code, -32005);
    assert.equal((await post(server.url, {}, '127.0.0.2')).status, 200, 'another address');
    sockets[0].ws.close();
    await sockets[0].closed;
    await waitFor(() => true, 50);
    const again = await openSocket(server.wsUrl);
    again.ws.send(JSON.stringify(call('test_echo', [1], 1)));
    assert.equal((await again.next()).result, 1);
    for (const s of [again, ...sockets.slice(1)]) s.ws.close();
    await server.close();
  });

  test('idle keep-alive sockets do not count: a client holding 20 idle HTTP sockets still opens a WebSocket', async () => {
    const server = await startServer(stubDispatcher(), { host: HOST, port: 0, maxConnsPerIp: 3 });
    // 20 keep-alive sockets, each answered once and then left open and idle.
    const idle: Socket[] = [];
    for (let i = 0; i < 20; i++) {
      const socket = connect(server.port, HOST);
      idle.push(socket);
      const answered = new Promise<string>((resolve) => socket.once('data', (b: Buffer) => resolve(b.toString('latin1'))));
      socket.write(`POST / HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n${body}`);
      assert.match(await answered, /^HTTP\/1\.1 200 /, `socket ${i}`);
    }
    const ws = await openSocket(server.wsUrl);
    ws.ws.send(JSON.stringify(call('test_echo', ['ws'], 1)));
    assert.equal((await ws.next()).result, 'ws');
    assert.equal((await post(server.url)).status, 200);
    ws.ws.close();
    for (const s of idle) s.destroy();
    await server.close();
  });

  test('requests in progress count: a fourth concurrent request of one address is refused, and served once one ends', async () => {
    const server = await startServer(stubDispatcher(), { host: HOST, port: 0, maxConnsPerIp: 3 });
    const client = poster(server.url, { sockets: 8 });
    const slow = [0, 1, 2].map((i) => client.post(call('test_sleep', ['0x1f4'], i)));
    // Wait until the three are in progress (the server holds them for 500 ms each).
    let over: Awaited<ReturnType<typeof post>> | undefined;
    for (let i = 0; i < 40 && over?.status !== 429; i++) over = await post(server.url);
    assert.equal(over?.status, 429, 'a request beyond three busy connections is refused');
    assert.match(over!.json.error.message, /at most 3 busy at once/);
    for (const r of await Promise.all(slow)) assert.equal(r.json.result, true);
    assert.equal((await post(server.url)).status, 200, 'served once the others ended');
    client.close();
    await server.close();
  });

  test('a known API key is not capped (its own tier limits it); an unknown one is refused as before', async () => {
    const server = await startServer(stubDispatcher(), { host: HOST, port: 0, maxConnsPerIp: 2, apiKeys: ['team-key-0001'], rateLimit: { key: 1000 } });
    const sockets = await Promise.all([0, 1].map(() => openSocket(server.wsUrl)));
    assert.equal((await post(server.url)).status, 429, 'the address is at its cap');
    const keyed = await post(server.url, { authorization: 'Bearer team-key-0001' });
    assert.equal(keyed.status, 200);
    const keyedWs = await openSocket(server.wsUrl, { headers: { 'x-api-key': 'team-key-0001' } });
    keyedWs.ws.send(JSON.stringify(call('test_echo', [7], 1)));
    assert.equal((await keyedWs.next()).result, 7);
    for (const s of [keyedWs, ...sockets]) s.ws.close();
    await server.close();
  });
});

describe('batch and body caps', () => {
  test('a batch of more than 1,000 calls gets one -32600 error naming the cap, as geth; 1,000 are served', async () => {
    const server = await startServer(stubDispatcher(), { host: HOST, port: 0 });
    const client = poster(server.url);
    const ok = await client.post(Array.from({ length: 1000 }, (_, i) => call('test_echo', [i], i)));
    assert.equal(ok.json.length, 1000);
    const tooMany = [{ jsonrpc: '2.0', method: 'test_echo', params: [0] }, ...Array.from({ length: 1000 }, (_, i) => call('test_echo', [i], i + 5))];
    const r = await client.post(tooMany);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, [{ jsonrpc: '2.0', id: 5, error: { code: -32600, message: 'batch too large: at most 1000 calls in one batch (--max-batch)' } }]);
    client.close();
    await server.close();
    const uncapped = await startServer(stubDispatcher({ maxBatch: 0 }), { host: HOST, port: 0 });
    const all = await poster(uncapped.url).post(tooMany);
    assert.equal(all.json.length, 1000, '--max-batch 0: no cap (the notification gets no answer)');
    await uncapped.close();
  });

  test('a batch answer over the byte cap: from the call that passes it on, each is answered -32003 with its id', async () => {
    const server = await startServer(stubDispatcher({ maxBatchResponseBytes: 4000 }), { host: HOST, port: 0 });
    const client = poster(server.url);
    const r = await client.post([call('test_blob', ['0x3e8'], 1), call('test_list', ['0x5'], 2), call('test_blob', ['0xbb8'], 3), call('test_blob', ['0x1'], 4)]);
    assert.equal(r.json[0].result.length, 1000);
    assert.equal(r.json[1].result.length, 5, 'a streamed answer under the cap is whole');
    for (const [i, id] of [[2, 3], [3, 4]]) {
      assert.equal(r.json[i].id, id);
      assert.equal(r.json[i].error.code, -32003);
      assert.match(r.json[i].error.message, /response too large: a batch answer may hold 4000 bytes/);
    }
    const streamed = await client.post([call('test_list', ['0x64'], 1)]);
    assert.equal(streamed.json[0].error.code, -32003, 'a streamed answer over the cap');
    client.close();
    await server.close();
  });

  test('the defaults of each mode: geth\'s public-node caps with --public, none but the batch size in dev', () => {
    const shared = transportSettings(true, '0.0.0.0');
    assert.deepEqual(shared.dispatch, { maxBatch: undefined, maxBatchResponseBytes: 25_000_000 });
    assert.deepEqual(shared.server.rateLimit, { ip: 100, ws: 100, key: 1000 });
    assert.equal(shared.server.maxBodyBytes, 5 * 1024 * 1024);
    assert.equal(shared.server.maxConnsPerIp, 50);
    assert.deepEqual(shared.server.cors, []);
    assert.equal(shared.server.allowedHosts, '*');
    const dev = transportSettings(false, '127.0.0.1');
    assert.deepEqual(dev.dispatch, { maxBatch: undefined, maxBatchResponseBytes: undefined });
    assert.deepEqual(dev.server.rateLimit, { ip: 0, ws: 0, key: 0 });
    assert.equal(dev.server.maxBodyBytes, undefined);
    assert.equal(dev.server.maxConnsPerIp, 0);
    assert.equal(dev.server.cors, '*');
    assert.deepEqual(dev.server.allowedHosts, ['localhost', '127.0.0.1', '::1']);
    assert.deepEqual(transportSettings(false, '127.0.0.1', { rateLimit: true, rateLimitWs: 0 }).server.rateLimit, { ip: 100, ws: 0, key: 1000 }, '--rate-limit in dev, one tier off');
    assert.deepEqual(transportSettings(false, '127.0.0.1', { rateLimitKey: 5 }).server.rateLimit, { ip: 0, ws: 0, key: 5 }, 'a tier flag alone turns on its tier');
  });

  test('--public takes bodies up to 5 MB (dev 16 MiB)', async () => {
    const big = JSON.stringify(call('eth_chainId', ['x'.repeat(6 * 1024 * 1024)]));
    const shared = await startDev({ port: 0, host: HOST, shared: true, explorer: false, transport: { rateLimitIp: 0 } });
    const tooLarge = await request(shared.server.url, { method: 'POST', body: big, headers: { 'content-type': 'application/json' } });
    assert.equal(tooLarge.status, 413);
    assert.match(tooLarge.json.error.message, /the limit is 5242880 bytes/);
    await shared.close();
    const dev = await startDev({ port: 0, host: HOST, explorer: false });
    const taken = await request(dev.server.url, { method: 'POST', body: big, headers: { 'content-type': 'application/json' } });
    assert.equal(taken.status, 200);
    assert.equal(taken.json.error.code, -32602, 'read and answered: too many arguments');
    await dev.close();
  });

  test('--public listens on every interface unless given a host', async () => {
    const shared = await startDev({ port: 0, shared: true, explorer: false });
    assert.match(shared.server.url, /^http:\/\/0\.0\.0\.0:\d+$/);
    assert.equal((await post(`http://127.0.0.1:${shared.server.port}`)).status, 200);
    await shared.close();
  });
});
