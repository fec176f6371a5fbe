/**
 * The project's JSON-RPC client over HTTP(S), node:http / node:https with keep-alive sockets: the
 * fork's upstream, and the node the inspection commands look at (cli/inspect, one call per request
 * and no retries there).
 *
 * Calls issued in one burst (before the event loop's next check phase) go out together as one
 * JSON-RPC batch per HTTP request (up to `maxBatch` calls each). A failed exchange (timeout,
 * refused or dropped connection, HTTP 429 / 5xx, an answer that is not valid JSON-RPC or a result
 * of the wrong shape, a rate-limit error) is retried with exponential backoff; once the retries are
 * used up the call fails with a ForkUpstreamError that names the upstream and the reason. A
 * JSON-RPC error the upstream answers on purpose (a revert, bad params) is not retried: it comes
 * back as an UpstreamRpcError with the upstream's code, message and data.
 */
import http from 'node:http';
import https from 'node:https';
import { hexToBytes } from '@ethereumjs/util';
import { ChainError } from '../core/errors.js';

export interface UpstreamOptions {
  url: string;
  /** Extra HTTP headers sent with every request (`--fork-header "K: V"`). */
  headers?: Record<string, string>;
  /** Retries after the first attempt (default 5). */
  retries?: number;
  /** Time limit of one HTTP exchange, in ms (default 45 000). */
  timeoutMs?: number;
  /** Delay before the first retry, in ms; doubles each time (default 250). */
  backoffMs?: number;
  /** Most calls in one JSON-RPC batch (default 100). */
  maxBatch?: number;
}

/** Counters, for tests and benchmarks. */
export interface UpstreamStats {
  /** HTTP requests sent (each retry counts). */
  httpRequests: number;
  /** JSON-RPC calls answered or failed for good. */
  calls: number;
  /** Exchanges that failed and were retried. */
  retries: number;
}

/**
 * Why the client gave up on a call, for callers that word it their own way: no connection (`errno`:
 * the system's code, ECONNREFUSED, ENOTFOUND, …), no answer in time, an HTTP status that means
 * "not now" (429, 408, 5xx), a JSON-RPC error that means "slow down" (`code`), an answer that is
 * not the JSON-RPC asked for (`status`: its HTTP status), or a closed client.
 */
export interface ExchangeFailure {
  kind: 'connection' | 'timeout' | 'status' | 'limited' | 'answer' | 'closed';
  /** What failed, without the upstream, the method or the attempts. */
  reason: string;
  errno?: string;
  status?: number;
  code?: number;
}

/** The upstream could not be used: unreachable, too slow, overloaded or answering nonsense. */
export class ForkUpstreamError extends ChainError {
  /** Set when the client gave up on a call: why. */
  failure?: ExchangeFailure;
}

/** The upstream answered the call with a JSON-RPC error (passed on as it is). */
export class UpstreamRpcError extends ChainError {}

/** Turns a raw `result` into a value; throws on a result of the wrong shape. */
export type Decoder<T> = (result: unknown) => T;

interface Call {
  method: string;
  params: unknown[];
  decode: Decoder<unknown>;
  resolve(value: unknown): void;
  reject(err: Error): void;
  /** Failed attempts so far. */
  failures: number;
  /** Retries allowed for this call. */
  retries: number;
}

/** A failed exchange, and whether it is worth retrying. */
class Failed extends Error {
  constructor(
    readonly failure: ExchangeFailure,
    readonly transient = true,
    message = failure.reason,
  ) {
    super(message);
  }
}

const closedError = (url: string) =>
  Object.assign(new ForkUpstreamError(`fork upstream failed: the connection to ${url} is closed`), { failure: { kind: 'closed', reason: 'the connection is closed' } as ExchangeFailure });

/** JSON-RPC error codes and messages that mean "slow down", not "no". */
const RATE_LIMITED = /rate limit|too many requests|limit exceeded|exceeded .*capacity|try again/i;

const anyResult: Decoder<unknown> = (r) => r;

/** `reason`, followed by the message of the JSON-RPC error `body` holds, if it holds one. */
function withRpcMessage(reason: string, body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } } | null)?.error?.message;
    return typeof message === 'string' ? `${reason}: ${message}` : reason;
  } catch {
    return reason;
  }
}

export class UpstreamClient {
  readonly stats: UpstreamStats = { httpRequests: 0, calls: 0, retries: 0 };
  private url!: URL;
  private agent!: http.Agent;
  private readonly headers: Record<string, string>;
  private readonly retries: number;
  private readonly timeoutMs: number;
  private readonly backoffMs: number;
  private readonly maxBatch: number;
  private queue: Call[] = [];
  private scheduled = false;
  private nextId = 1;
  /** Most calls per batch right now: halved each time the upstream refuses a batch. */
  private batchLimit: number;
  private closed = false;

  constructor(options: UpstreamOptions) {
    this.headers = { ...(options.headers ?? {}) };
    this.retries = options.retries ?? 5;
    this.timeoutMs = options.timeoutMs ?? 45_000;
    this.backoffMs = options.backoffMs ?? 250;
    this.maxBatch = Math.max(1, options.maxBatch ?? 100);
    this.batchLimit = this.maxBatch;
    this.setUrl(options.url);
  }

  /** The upstream's URL as it may be shown (no credentials, no query, long path parts elided). */
  get displayUrl(): string {
    return displayUrl(this.url.href);
  }

  get href(): string {
    return this.url.href;
  }

  /** Point at another upstream (anvil_setRpcUrl); calls already sent finish on the old one. */
  setUrl(url: string): void {
    const u = parseUpstreamUrl(url);
    const old = this.agent;
    this.url = u;
    this.agent = u.protocol === 'https:' ? new https.Agent({ keepAlive: true, maxSockets: 16 }) : new http.Agent({ keepAlive: true, maxSockets: 16 });
    old?.destroy();
  }

  /**
   * One call; batched with the other calls of this burst. `decode` checks and converts the result
   * (a throw counts as a malformed answer); `retries` overrides the configured number.
   */
  request<T = unknown>(method: string, params: unknown[], decode?: Decoder<T>, retries = this.retries): Promise<T> {
    if (this.closed) return Promise.reject(closedError(this.displayUrl));
    return new Promise<T>((resolve, reject) => {
      this.enqueue({ method, params, decode: (decode ?? anyResult) as Decoder<unknown>, resolve: resolve as (v: unknown) => void, reject, failures: 0, retries });
    });
  }

  /** Stop: idle sockets are closed, later calls fail. */
  close(): void {
    this.closed = true;
    this.agent.destroy();
  }

  private enqueue(call: Call): void {
    if (this.closed) return call.reject(closedError(this.displayUrl));
    this.queue.push(call);
    if (this.scheduled) return;
    this.scheduled = true;
    // Every call made before the next check phase (all pending microtasks included) joins.
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const calls = this.queue;
    this.queue = [];
    const size = this.batchLimit;
    for (let i = 0; i < calls.length; i += size) void this.exchange(calls.slice(i, i + size));
  }

  /** Send one HTTP request carrying `calls` and settle or retry each of them. */
  private async exchange(calls: Call[]): Promise<void> {
    const ids = calls.map(() => this.nextId++);
    const bodies = calls.map((c, i) => ({ jsonrpc: '2.0', id: ids[i], method: c.method, params: c.params }));
    const batch = calls.length > 1;
    let answers: Map<number, { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } }>;
    let status: number;
    try {
      let text: string;
      ({ status, text } = await this.post(JSON.stringify(batch ? bodies : bodies[0])));
      answers = this.parse(text, ids, status);
    } catch (err) {
      for (const c of calls) this.failed(c, err as Error);
      return;
    }
    calls.forEach((c, i) => {
      const a = answers.get(ids[i]);
      const malformed = (why: string) => this.failed(c, new Failed({ kind: 'answer', status, reason: `malformed answer to ${c.method}: ${why}` }));
      if (a === undefined) return malformed(`no response with id ${ids[i]}`);
      if (a.error !== undefined && a.error !== null) {
        const code = typeof a.error.code === 'number' ? a.error.code : -32603;
        const message = typeof a.error.message === 'string' ? a.error.message : JSON.stringify(a.error);
        if (code === 429 || RATE_LIMITED.test(message)) return this.failed(c, new Failed({ kind: 'limited', code, reason: message }, true, `${c.method}: ${message} (code ${code})`));
        this.stats.calls++;
        return c.reject(new UpstreamRpcError(message, errorData(a.error.data), code));
      }
      if (!('result' in a)) return malformed('neither result nor error');
      let value: unknown;
      try {
        value = c.decode(a.result);
      } catch (err) {
        return malformed((err as Error).message);
      }
      this.stats.calls++;
      c.resolve(value);
    });
  }

  /** Index a response body by id; anything that is not JSON-RPC is a transient failure. */
  private parse(text: string, ids: number[], status: number) {
    const batch = ids.length > 1;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Failed({ kind: 'answer', status, reason: `malformed answer: not JSON (${JSON.stringify(text.slice(0, 80))})` });
    }
    const out = new Map<number, any>();
    if (Array.isArray(body)) {
      for (const a of body) if (a && typeof a === 'object' && typeof a.id === 'number') out.set(a.id, a);
      return out;
    }
    if (!body || typeof body !== 'object') throw new Failed({ kind: 'answer', status, reason: 'malformed answer: not a JSON-RPC response' });
    const one = body as { id?: unknown; error?: { message?: unknown } };
    if (batch) {
      // One error object for a whole batch: rate limited, or the upstream does not take batches
      // this big (or at all): then later batches are half the size, down to single calls.
      const reason = typeof one.error?.message === 'string' ? one.error.message : 'not an array';
      if (!RATE_LIMITED.test(reason)) this.batchLimit = Math.max(1, Math.floor(ids.length / 2));
      throw new Failed({ kind: 'answer', status, reason: `batch refused: ${reason}` });
    }
    out.set(typeof one.id === 'number' ? one.id : ids[0], one);
    return out;
  }

  private failed(c: Call, err: Error): void {
    const transient = err instanceof Failed ? err.transient : !(err instanceof ChainError);
    if (transient && c.failures < c.retries && !this.closed) {
      const delay = this.backoffMs * 2 ** c.failures;
      c.failures++;
      this.stats.retries++;
      // Not unref'd: a call waiting for its retry is work in progress (start-up has nothing else).
      setTimeout(() => this.enqueue(c), delay);
      return;
    }
    this.stats.calls++;
    const tries = c.failures + 1;
    const out = new ForkUpstreamError(`fork upstream failed: ${c.method} to ${this.displayUrl}: ${err.message}${tries > 1 ? ` (${tries} attempts)` : ''}`);
    out.failure = err instanceof Failed ? err.failure : { kind: 'connection', reason: err.message };
    c.reject(out);
  }

  /** POST `body`; resolves to the response text of a 2xx (or a 4xx carrying JSON-RPC) and its status. */
  private post(body: string): Promise<{ status: number; text: string }> {
    this.stats.httpRequests++;
    const url = this.url;
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = transport.request(
        url,
        {
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', accept: 'application/json', ...this.headers, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (e) => done(new Failed({ kind: 'connection', errno: (e as NodeJS.ErrnoException).code, reason: `answer cut off: ${e.message}` })));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) return done(undefined, text, status);
            const reason = `HTTP ${status}${res.statusMessage ? ' ' + res.statusMessage : ''}`;
            // A node that limits requests (node-rpc's shared mode among them) says why in a JSON-RPC error.
            if (status === 429 || status >= 500 || status === 408) return done(new Failed({ kind: 'status', status, reason: withRpcMessage(reason, text) }));
            // Some upstreams answer JSON-RPC errors with a 4xx status: take the body if it is one.
            if (/^\s*[[{]/.test(text) && /"jsonrpc"/.test(text)) return done(undefined, text, status);
            done(new Failed({ kind: 'answer', status, reason }, false, `${reason}${text ? `: ${text.slice(0, 120).trim()}` : ''}`));
          });
        },
      );
      let settled = false;
      const timer = setTimeout(() => req.destroy(new Failed({ kind: 'timeout', reason: `no answer within ${this.timeoutMs} ms` })), this.timeoutMs);
      const done = (err?: Error, text?: string, status = 200) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve({ status, text: text! });
      };
      req.on('error', (e) => {
        const errno = (e as NodeJS.ErrnoException).code;
        done(e instanceof Failed ? e : new Failed({ kind: 'connection', errno, reason: e.message || errno || 'connection failed' }));
      });
      req.end(body);
    });
  }
}

/** `data` of an upstream error as bytes when it is hex (revert data); otherwise dropped. */
function errorData(data: unknown): Uint8Array | undefined {
  if (typeof data === 'string' && /^0x([0-9a-fA-F]{2})*$/.test(data)) return hexToBytes(data as `0x${string}`);
  return undefined;
}

/** A fork URL: http(s) only. */
export function parseUpstreamUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ChainError(`invalid fork URL ${JSON.stringify(url)}: expected http(s)://host[:port][/path]`, undefined, -32602);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ChainError(`invalid fork URL ${JSON.stringify(url)}: only http:// and https:// upstreams are supported`, undefined, -32602);
  }
  return u;
}

/**
 * A URL fit for logs and banners: credentials and query dropped, path parts long enough to be API
 * keys elided.
 */
export function displayUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const path = u.pathname
    .split('/')
    .map((p) => (p.length >= 16 ? '…' : p))
    .join('/');
  return `${u.protocol}//${u.host}${path === '/' ? '' : path}`;
}
