/**
 * Clients for the shared-mode tests: raw HTTP over a keep-alive agent (fetch cannot set Host or
 * pick a source address), WebSockets with an inbox, a paced sender, and a stub handler.
 */
import http from 'node:http';
import { WebSocket } from 'ws';
import { json, quantity } from '../../src/rpc/codecs.js';
import { Dispatcher, type DispatchLimits } from '../../src/rpc/dispatch.js';
import { RpcError } from '../../src/rpc/errors.js';
import { method, methodWithContext, MethodTable } from '../../src/rpc/registry.js';
import { listParts } from '../../src/format/stream.js';

/** test_echo, test_blob(n) (a string of n bytes), test_list(n) (a streamed list), test_fail (-32000), test_sleep(ms), test_push. */
export function stubDispatcher(limits: DispatchLimits = {}, observe?: ConstructorParameters<typeof Dispatcher>[1]): Dispatcher {
  const table = new MethodTable([
    method('test_echo', [json], (value) => value),
    method('test_blob', [quantity], (n) => 'x'.repeat(Number(n))),
    method('test_list', [quantity], (n) => listParts('[', Array.from({ length: Number(n) }, (_, i) => i), (i) => `"${'y'.repeat(90)}${i}"`, ']')),
    method('test_fail', [], () => {
      throw new RpcError(-32000, 'nope');
    }),
    methodWithContext('test_transport', [], (ctx) => ctx.transport),
    method('test_sleep', [quantity], (ms) => new Promise((resolve) => setTimeout(() => resolve(true), Number(ms)))),
  ]);
  return new Dispatcher(table, observe, limits);
}

export const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

export interface Poster {
  post(body: unknown, headers?: Record<string, string>, path?: string): Promise<Reply>;
  close(): void;
}

/** POSTs to `url` over keep-alive sockets (at most `sockets`), from `localAddress` if given. */
export function poster(url: string, options: { sockets?: number; localAddress?: string } = {}): Poster {
  const u = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.sockets ?? 8 });
  return {
    post(body, headers = {}, path = '/') {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      return new Promise<Reply>((resolve, reject) => {
        const req = http.request(
          { host: u.hostname, port: u.port, path, method: 'POST', agent, localAddress: options.localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const t = Buffer.concat(chunks).toString('utf8');
              resolve({ status: res.statusCode!, headers: res.headers, text: t, json: t === '' ? undefined : JSON.parse(t) });
            });
          },
        );
        req.on('error', reject);
        req.end(text);
      });
    },
    close: () => agent.destroy(),
  };
}

/** One GET (or other method) with chosen headers, on a fresh socket. */
export function request(url: string, init: { method?: string; path?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {}): Promise<Reply> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: init.path ?? '/', method: init.method ?? 'GET', headers: init.headers, localAddress: init.localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const t = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = t === '' ? undefined : JSON.parse(t);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text: t, json: parsed });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Call `send` `perSecond` times a second for `ms`, in ticks of 10 ms; resolves with every result. */
export async function paced<T>(perSecond: number, ms: number, send: (i: number) => Promise<T>): Promise<{ results: T[]; seconds: number }> {
  const pending: Promise<T>[] = [];
  const start = performance.now();
  let sent = 0;
  for (;;) {
    const elapsed = performance.now() - start;
    if (elapsed >= ms) break;
    const due = Math.floor((elapsed / 1000) * perSecond) + 1;
    while (sent < due) pending.push(send(sent++));
    await new Promise((r) => setTimeout(r, 10));
  }
  const seconds = (performance.now() - start) / 1000;
  return { results: await Promise.all(pending), seconds };
}

/** A WebSocket with its messages queued as parsed JSON. */
export interface Socket {
  ws: WebSocket;
  messages: any[];
  next(): Promise<any>;
  closed: Promise<{ code: number; reason: string }>;
}

export function openSocket(url: string, options: { headers?: Record<string, string>; localAddress?: string } = {}): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: options.headers, localAddress: options.localAddress });
    const messages: any[] = [];
    const waiters: ((v: any) => void)[] = [];
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.on('message', (data) => {
      const value = JSON.parse(String(data));
      const w = waiters.shift();
      if (w) w(value);
      else messages.push(value);
    });
    ws.once('open', () => resolve({ ws, messages, closed, next: () => (messages.length > 0 ? Promise.resolve(messages.shift()) : new Promise((r) => waiters.push(r))) }));
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body: Buffer.concat(chunks).toString() })));
    });
    ws.once('error', reject);
  });
}

export async function waitFor(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const RATE_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
