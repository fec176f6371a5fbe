import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import { WebSocket } from 'ws';
import { json, string } from '../../src/rpc/codecs.js';
import { Dispatcher } from '../../src/rpc/dispatch.js';
import { method, methodWithContext, MethodTable } from '../../src/rpc/registry.js';
import { startServer, type RpcHandler, type RpcServer } from '../../src/server/server.js';

const HOST = '127.0.0.1';
const MAX_BODY = 4096;

/** Cleanups registered through ctx.onClose, recorded by tag. */
const closed: string[] = [];

function makeHandler(): RpcHandler {
  const table = new MethodTable([
    method('test_echo', [json], (value) => value),
    method('test_slow', [], () => new Promise((resolve) => setTimeout(() => resolve('late'), 50))),
    methodWithContext('test_push', [string], (ctx, message) => {
      setImmediate(() => ctx.send?.(JSON.stringify({ jsonrpc: '2.0', method: 'test_pushed', params: [message] })));
      return ctx.transport;
    }),
    methodWithContext('test_watch', [string], (ctx, tag) => {
      ctx.onClose?.(() => closed.push(tag));
      return true;
    }),
  ]);
  const dispatcher = new Dispatcher(table);
  return {
    handle(text, ctx) {
      if (text === 'THROW') throw new Error('boom');
      if (text === 'REJECT') return Promise.reject(new Error('nope'));
      return dispatcher.handle(text, ctx);
    },
  };
}

const rpc = (method: string, params: unknown[] = [], id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });

async function post(server: RpcServer, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const res = await fetch(server.url, { method: 'POST', headers, body });
  return { res, text: await res.text() };
}

async function waitFor(cond: () => boolean, ms = 1000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

function openWs(server: RpcServer): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(server.wsUrl);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Collect WS messages as parsed JSON; `next()` resolves with the next one. */
function inbox(ws: WebSocket) {
  const queue: unknown[] = [];
  const waiters: ((v: unknown) => void)[] = [];
  ws.on('message', (data) => {
    const value = JSON.parse(String(data));
    const w = waiters.shift();
    if (w) w(value);
    else queue.push(value);
  });
  return {
    next: (): Promise<any> => (queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise((r) => waiters.push(r))),
  };
}

/** Send raw bytes over TCP and return everything the server answers until it closes or `ms` passes. */
function rawExchange(port: number, payload: string, ms = 300): Promise<string> {
  return new Promise((resolve) => {
    const sock: Socket = connect(port, HOST);
    let out = '';
    const finish = () => {
      clearTimeout(timer);
      sock.destroy();
      resolve(out);
    };
    const timer = setTimeout(finish, ms);
    sock.on('data', (d) => (out += d.toString()));
    sock.on('error', () => {});
    sock.on('close', finish);
    sock.write(payload);
  });
}

describe('rpc server', () => {
  let server: RpcServer;

  before(async () => {
    server = await startServer(makeHandler(), { host: HOST, port: 0, maxBodyBytes: MAX_BODY });
  });
  after(async () => {
    await server.close();
  });

  test('reports its address', () => {
    assert.ok(server.port > 0);
    assert.equal(server.url, `http://${HOST}:${server.port}`);
    assert.equal(server.wsUrl, `ws://${HOST}:${server.port}`);
  });

  test('POST JSON roundtrip', async () => {
    const { res, text } = await post(server, JSON.stringify(rpc('test_echo', [{ a: [1, 'x'] }], 7)));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.headers.get('content-length'), String(Buffer.byteLength(text)));
    assert.deepEqual(JSON.parse(text), { jsonrpc: '2.0', id: 7, result: { a: [1, 'x'] } });
  });

  test('charset parameter and missing content type are accepted; path is ignored', async () => {
    const a = await post(server, JSON.stringify(rpc('test_echo', ['é'])), { 'content-type': 'application/json; charset=UTF-8' });
    assert.deepEqual(JSON.parse(a.text).result, 'é');
    const res = await fetch(`${server.url}/some/path`, { method: 'POST', body: new TextEncoder().encode(JSON.stringify(rpc('test_echo', [1]))) });
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(await res.text()).result, 1);
  });

  test('batch passes through', async () => {
    const { text } = await post(server, JSON.stringify([rpc('test_echo', [1], 1), rpc('nope_nope', [], 2), { jsonrpc: '2.0', method: 'test_echo', params: [3] }]));
    const out = JSON.parse(text);
    assert.equal(out.length, 2);
    assert.deepEqual(out[0], { jsonrpc: '2.0', id: 1, result: 1 });
    assert.equal(out[1].id, 2);
    assert.equal(out[1].error.code, -32601);
  });

  test('notification only: 200 with empty body', async () => {
    const { res, text } = await post(server, JSON.stringify({ jsonrpc: '2.0', method: 'test_echo', params: [1] }));
    assert.equal(res.status, 200);
    assert.equal(text, '');
    assert.equal(res.headers.get('content-length'), '0');
  });

  test('parse error through the real dispatcher', async () => {
    const { res, text } = await post(server, '{"jsonrpc":"2.0",');
    assert.equal(res.status, 200);
    const out = JSON.parse(text);
    assert.equal(out.id, null);
    assert.equal(out.error.code, -32700);
  });

  test('handler throwing or rejecting answers -32603', async () => {
    for (const body of ['THROW', 'REJECT']) {
      const { res, text } = await post(server, body);
      assert.equal(res.status, 200);
      const out = JSON.parse(text);
      assert.equal(out.error.code, -32603);
      assert.match(out.error.message, /boom|nope/);
    }
  });

  test('OPTIONS preflight', async () => {
    const res = await fetch(server.url, {
      method: 'OPTIONS',
      headers: { origin: 'http://example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-custom' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(res.headers.get('access-control-allow-methods') ?? '', /OPTIONS/);
    assert.equal(res.headers.get('access-control-allow-headers'), 'content-type,x-custom');
    assert.ok(Number(res.headers.get('access-control-max-age')) > 0);
    assert.equal(await res.text(), '');
  });

  test('CORS header on POST', async () => {
    const { res } = await post(server, JSON.stringify(rpc('test_echo', [1])), { 'content-type': 'application/json', origin: 'http://example.com' });
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });

  test('415 on text/plain', async () => {
    const { res, text } = await post(server, JSON.stringify(rpc('test_echo', [1])), { 'content-type': 'text/plain' });
    assert.equal(res.status, 415);
    const out = JSON.parse(text);
    assert.equal(out.error.code, -32600);
    assert.match(out.error.message, /content type/);
    assert.match(out.error.message, /text\/plain/);
  });

  test('413 on oversized body (declared length and chunked)', async () => {
    const big = JSON.stringify(rpc('test_echo', ['x'.repeat(MAX_BODY * 2)]));
    const { res, text } = await post(server, big);
    assert.equal(res.status, 413);
    assert.equal(JSON.parse(text).error.code, -32600);
    assert.match(JSON.parse(text).error.message, /too large/);

    // Chunked transfer without a Content-Length: the limit is applied while streaming.
    const head = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = 'y'.repeat(3000);
    const hex = chunk.length.toString(16);
    const raw = await rawExchange(server.port, `${head}${hex}\r\n${chunk}\r\n${hex}\r\n${chunk}\r\n0\r\n\r\n`);
    assert.match(raw, /^HTTP\/1\.1 413/);
    assert.match(raw, /too large/);
  });

  test('GET is a health check, other methods are 405', async () => {
    const res = await fetch(server.url);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
    const put = await fetch(server.url, { method: 'PUT', body: '{}' });
    assert.equal(put.status, 405);
    assert.match(put.headers.get('allow') ?? '', /POST/);
    assert.equal((await put.json()).error.code, -32600);
  });

  test('client aborting mid-body, malformed chunks and aborts during a call do not crash', async () => {
    // Declared 1000 bytes, sends 10, then disconnects.
    await rawExchange(server.port, `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"`, 20);
    // Malformed chunk size: Node answers 400 and closes that socket.
    const bad = await rawExchange(server.port, `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n`);
    assert.match(bad, /^HTTP\/1\.1 400/);
    // Disconnect while the handler is still working.
    const slow = JSON.stringify(rpc('test_slow', [], 'abc123'));
    await rawExchange(server.port, `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${slow.length}\r\n\r\n${slow}`, 10);
    await new Promise((r) => setTimeout(r, 80));
    const { res, text } = await post(server, JSON.stringify(rpc('test_echo', ['still here'])));
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(text).result, 'still here');
  });

  test('keep-alive: several requests on one socket', async () => {
    const body = JSON.stringify(rpc('test_echo', [1]));
    const req = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const raw = await rawExchange(server.port, req + req + req, 150);
    assert.equal(raw.match(/HTTP\/1\.1 200 OK/g)?.length, 3);
    assert.match(raw, /Keep-Alive: timeout=30/);
  });

  test('WS request/response, binary frames and throwing handler', async () => {
    const ws = await openWs(server);
    const box = inbox(ws);
    ws.send(JSON.stringify(rpc('test_echo', ['hi'], 'a')));
    assert.deepEqual(await box.next(), { jsonrpc: '2.0', id: 'a', result: 'hi' });
    ws.send(Buffer.from(JSON.stringify(rpc('test_echo', [2], 'b'))), { binary: true });
    assert.deepEqual(await box.next(), { jsonrpc: '2.0', id: 'b', result: 2 });
    ws.send('not json');
    assert.equal((await box.next()).error.code, -32700);
    ws.send('THROW');
    assert.equal((await box.next()).error.code, -32603);
    // A notification gets no reply: the next message is the answer to the following request.
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'test_echo', params: [0] }));
    ws.send(JSON.stringify(rpc('test_echo', [3], 'c')));
    assert.equal((await box.next()).id, 'c');
    ws.close();
    await waitFor(() => server.connections() === 0);
  });

  test('WS ctx.send pushes on the connection', async () => {
    const ws = await openWs(server);
    const box = inbox(ws);
    ws.send(JSON.stringify(rpc('test_push', ['ping'], 1)));
    assert.deepEqual(await box.next(), { jsonrpc: '2.0', id: 1, result: 'ws' });
    assert.deepEqual(await box.next(), { jsonrpc: '2.0', method: 'test_pushed', params: ['ping'] });
    ws.close();
    await waitFor(() => server.connections() === 0);
  });

  test('WS oversized message closes the connection with 1009', async () => {
    const ws = await openWs(server);
    const code = await new Promise<number>((resolve) => {
      ws.on('close', (c) => resolve(c));
      ws.send('x'.repeat(MAX_BODY + 1));
    });
    assert.equal(code, 1009);
    await waitFor(() => server.connections() === 0);
  });

  test('onClose runs once on disconnect and connections() drops to 0', async () => {
    const a = await openWs(server);
    const b = await openWs(server);
    await waitFor(() => server.connections() === 2);
    const boxA = inbox(a);
    a.send(JSON.stringify(rpc('test_watch', ['a1'], 1)));
    a.send(JSON.stringify(rpc('test_watch', ['a2'], 2)));
    await boxA.next();
    await boxA.next();
    a.terminate();
    await waitFor(() => server.connections() === 1);
    await waitFor(() => closed.length === 2);
    assert.deepEqual([...closed].sort(), ['a1', 'a2']);
    b.close();
    await waitFor(() => server.connections() === 0);
    assert.equal(closed.length, 2);
  });
});

describe('rpc server close()', () => {
  test('closes WS clients with 1001, idle keep-alive sockets, and releases the port', async () => {
    const server = await startServer(makeHandler(), { host: HOST, port: 0 });
    // A keep-alive HTTP connection left idle in fetch's pool.
    const { text } = await post(server, JSON.stringify(rpc('test_echo', [1])));
    assert.equal(JSON.parse(text).result, 1);
    const ws = await openWs(server);
    const box = inbox(ws);
    ws.send(JSON.stringify(rpc('test_watch', ['closing'], 1)));
    await box.next();
    const wsClosed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));

    const started = Date.now();
    await server.close();
    assert.ok(Date.now() - started < 900, 'close should not wait for the grace timer');
    assert.equal(await wsClosed, 1001);
    assert.equal(server.connections(), 0);
    assert.ok(closed.includes('closing'));
    await server.close(); // idempotent

    // The port is free again.
    const probe = createNetServer();
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen(server.port, HOST, () => resolve());
    });
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });

  test('rejects when the port is taken', async () => {
    const a = await startServer(makeHandler(), { host: HOST, port: 0 });
    await assert.rejects(startServer(makeHandler(), { host: HOST, port: a.port }), /EADDRINUSE/);
    await a.close();
  });
});
