/**
 * Large answers are streamed: a long struct-log trace and a long eth_getLogs answer go out over
 * HTTP with chunked transfer encoding and over WebSocket as one fragmented message, while
 * other answers on the same WebSocket arrive whole and in their own messages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { startCli, type CliNode } from '../support/cli.js';
import { ADDRS } from '../support/node.js';
import { EventEmitter } from 'node:events';
import { drainedOrClosed } from '../../src/server/wire.js';

/** Creation code that loops `n` times (7 steps an iteration), then stops. */
const loop = (n: number) => `0x62${n.toString(16).padStart(6, '0')}5b600190038060045700`;

test('waiting for a drain many times leaves neither listener behind', async () => {
  const socket = new EventEmitter();
  for (let i = 0; i < 50; i++) {
    const waited = drainedOrClosed(socket);
    socket.emit('drain');
    await waited;
  }
  assert.equal(socket.listenerCount('drain'), 0);
  assert.equal(socket.listenerCount('close'), 0);
  const closed = drainedOrClosed(socket);
  socket.emit('close');
  await closed;
  assert.equal(socket.listenerCount('drain'), 0);
});

describe('large answers are streamed', () => {
  let node: CliNode;
  let hash: string;
  before(async () => {
    node = await startCli([]);
    hash = await node.rpc('eth_sendTransaction', [{ from: ADDRS[0], data: loop(5000), gas: '0x1000000' }]);
  });
  after(async () => node?.stop());

  test('over HTTP: chunked transfer encoding, and the JSON is whole', async () => {
    const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'debug_traceTransaction', params: [hash, {}] }) });
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
    assert.equal(res.headers.get('content-length'), null);
    const body = (await res.json()) as { id: number; result: { gas: number; failed: boolean; returnValue: string; structLogs: Array<{ op: string }> } };
    assert.equal(body.id, 9);
    assert.deepEqual(Object.keys(body.result), ['gas', 'failed', 'returnValue', 'structLogs']);
    assert.equal(body.result.structLogs.length, 5000 * 7 + 2);
    assert.equal(body.result.structLogs.at(-1)!.op, 'STOP');
    // A small answer is still one piece with its length.
    const small = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) });
    assert.equal(small.headers.get('content-length'), String('{"jsonrpc":"2.0","id":1,"result":"0x3d8"}'.length));
  });

  test('a long streamed answer leaves no listeners behind on the socket (no MaxListenersExceededWarning)', async () => {
    // With memory the answer is some megabytes: the write waits for the socket to drain many times.
    const res = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'debug_traceTransaction', params: [hash, { enableMemory: true }] }) });
    const text = await res.text();
    assert.ok(text.length > 1_000_000, `a long answer (${text.length} bytes)`);
    assert.equal(JSON.parse(text).id, 3);
    assert.doesNotMatch(node.output(), /MaxListenersExceeded/);
  });

  test('over WebSocket: one fragmented message; answers sent meanwhile arrive whole after it', async () => {
    const ws = new WebSocket(node.url.replace('http', 'ws'));
    await new Promise((r) => ws.once('open', r));
    const messages: string[] = [];
    ws.on('message', (m) => messages.push(String(m)));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_traceTransaction', params: [hash, {}] }));
    for (let i = 2; i < 12; i++) ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_blockNumber', params: [] }));
    const deadline = Date.now() + 30_000;
    while (messages.length < 11 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(messages.length, 11);
    const parsed = messages.map((m) => JSON.parse(m));
    const trace = parsed.find((m) => m.id === 1);
    assert.equal(trace.result.structLogs.length, 5000 * 7 + 2);
    for (let i = 2; i < 12; i++) assert.equal(parsed.find((m) => m.id === i).result, '0x1');
    ws.close();
  });
});
