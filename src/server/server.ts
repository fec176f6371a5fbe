/**
 * Transport layer: one port serving JSON-RPC over HTTP (POST) and WebSocket (upgrade).
 *
 * This module knows nothing about Ethereum; it moves request text to an `RpcHandler` and the
 * handler's response text back to the client. Decisions:
 *  - HTTP status is 200 for every JSON-RPC answer, errors included (like geth). When the handler
 *    answers nothing (a notification or a batch of notifications) the reply is 200 with an empty
 *    body and `Content-Length: 0`. A body refused by its rate-limit tier is 429 (see gate.ts).
 *  - `GET /metrics` is the Prometheus text of metrics.ts, `GET /health` a JSON status. Other
 *    `GET`/`HEAD` without an upgrade answer 200 `{"status":"ok"}` (geth answers 200 on GET / too),
 *    unless the `pages` option serves that path (the explorer for browsers). Methods other than
 *    POST/GET/HEAD/OPTIONS: 405.
 *  - CORS is wide open (`*`) unless `cors` says otherwise; preflights answer 204.
 *  - Oversized bodies answer 413, wrong content types 415, a Host not allowed 403, an unknown API
 *    key 401, all with a JSON-RPC error body.
 *  - Everything of the shared mode (gate.ts: hosts, keys, per-IP connections, rate limits; the
 *    access log) is off unless asked for; a plain dev server then allocates nothing for it per
 *    request.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { CallContext } from './context.js';
import type { AccessEntry } from './access.js';
import { Admission, limitHeaders } from './admission.js';
import { StayAwake } from './awake.js';
import { corsHeaders } from './cors.js';
import { Gate, isRefusal, type Client, type GateOptions, type Refusal } from './gate.js';
import { Metrics, type Gauge } from './metrics.js';
import { serveSocket } from './socket.js';
import { acceptableContentType, chunked, drainedOrClosed, errorBody, formatHost, ignore, internalErrorBody, nextTurn, rawResponse, type Body, type RpcHandler } from './wire.js';

export type { Body, RpcHandler } from './wire.js';

export interface ServerOptions extends GateOptions {
  host: string;
  port: number;
  /** Largest accepted HTTP body / WebSocket message in bytes. Default 16 MiB. */
  maxBodyBytes?: number;
  /** Bytes a WebSocket may have queued for a client that is not reading before it is cut (default 16 MiB). */
  maxSendBuffer?: number;
  /** Told when a slow WebSocket client is cut (for the node's log). */
  onSlowClient?: (remote: string, buffered: number) => void;
  /**
   * Pages and routes served on GET/HEAD besides the health answer (the explorer, REST routes of
   * the layers above): asked with the path, the Accept header and the query string (without `?`);
   * `undefined` means the health answer.
   */
  pages?: (path: string, accept: string | undefined, query: string) => Page | undefined;
  /** Origins allowed to read answers in browsers: `*` (default) or a list (empty: none). */
  cors?: readonly string[] | '*';
  /** Counters behind GET /metrics; the caller may share them with its dispatcher's observer. */
  metrics?: Metrics;
  /** Numbers the transport does not own, read for each GET /metrics (blocks, pool, subscriptions). */
  gauges?: () => readonly Gauge[];
  /** Fields added to the GET /health answer (e.g. the block number). */
  health?: () => Record<string, unknown>;
  /** Told of every request once answered (the shared mode's access log). */
  onAccess?: (entry: AccessEntry) => void;
  /** Seconds a WebSocket may stay far over its rate limit before it is closed with 1008 (default 10). */
  overrunCloseSeconds?: number;
  /** Keeps the event loop polling between answers and requests (awake.ts); a new one by default. */
  stayAwake?: StayAwake;
}

/** An answer to a GET: a content type and a body, with its status (200 unless given). */
export interface Page {
  readonly type: string;
  readonly body: Buffer;
  readonly status?: number;
}

export interface RpcServer {
  /** `http://host:port`, with the actual port when 0 was requested. */
  readonly url: string;
  /** `ws://host:port`. */
  readonly wsUrl: string;
  readonly port: number;
  /** The counters behind GET /metrics. */
  readonly metrics: Metrics;
  /** Stop accepting, close WebSocket clients (1001) and idle HTTP sockets; resolves when closed. */
  close(): Promise<void>;
  /** Stop accepting new connections (and WebSocket upgrades); open ones keep being served. */
  stopListening(): void;
  /** Number of open WebSocket connections. */
  connections(): number;
  /** Replace the known API keys (the key file was reloaded); no effect when keys are off. */
  setApiKeys(keys: readonly string[]): void;
}

export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_SEND_BUFFER = 16 * 1024 * 1024;
/** Idle keep-alive sockets are kept this long (Node's default of 5 s is short for benchmarks and tools). */
const KEEP_ALIVE_TIMEOUT_MS = 30_000;
/** How long close() waits for in-flight requests and WebSocket close handshakes before cutting. */
const CLOSE_GRACE_MS = 1_000;

const EMPTY = Buffer.alloc(0);
const HEALTH_BODY = '{"status":"ok"}';
const ALLOW_METHODS = 'POST, GET, OPTIONS';
const PREFLIGHT_MAX_AGE = '86400';

type Headers = Record<string, string | number>;

/** Per-request bookkeeping of the access log (only when one is kept). */
interface Visit {
  readonly arrived: number;
  readonly started: number;
  client?: Client;
  admission?: Admission;
}

export function startServer(handler: RpcHandler, options: ServerOptions): Promise<RpcServer> {
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxSendBuffer = options.maxSendBuffer ?? DEFAULT_MAX_SEND_BUFFER;
  const tooLargeBody = errorBody(-32600, `request body too large: the limit is ${maxBody} bytes`);
  const metrics = options.metrics ?? new Metrics();
  const onAccess = options.onAccess;
  const gate = new Gate(options, onAccess !== undefined);
  const corsFor = corsHeaders(options.cors ?? '*');
  const awake = options.stayAwake ?? new StayAwake();
  let closing = false;
  let upgradesRefused = false;

  const writeHead = (res: ServerResponse, status: number, headers: Headers): void => {
    metrics.response(status);
    if (closing) headers.Connection = 'close';
    res.writeHead(status, headers);
  };

  /** Write a complete response. Headers are built in one object; Content-Length always set. */
  const respond = (res: ServerResponse, status: number, body: string, cors: Readonly<Record<string, string>>, extra?: Headers): void => {
    if (res.headersSent || res.destroyed) return;
    const headers: Headers = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) };
    for (const k in cors) headers[k] = cors[k];
    if (extra !== undefined) Object.assign(headers, extra);
    writeHead(res, status, headers);
    res.end(body);
  };

  const refuse = (res: ServerResponse, r: Refusal, cors: Readonly<Record<string, string>>): void =>
    respond(res, r.status, errorBody(r.code, r.message), cors, r.status === 429 ? { Connection: 'close' } : undefined);

  const servePage = (res: ServerResponse, headOnly: boolean, page: Page): void => {
    if (res.headersSent || res.destroyed) return;
    writeHead(res, page.status ?? 200, { 'Content-Type': page.type, 'Content-Length': page.body.length, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
    res.end(headOnly ? undefined : page.body);
  };

  /**
   * Write a streamed body with chunked transfer encoding: a chunk at a time, waiting for the
   * socket to drain and letting other requests run between chunks. A failure while writing ends
   * the response early (the client sees truncated JSON; the status line was already sent).
   */
  const respondStream = async (res: ServerResponse, pieces: Iterable<string>, cors: Readonly<Record<string, string>>, extra?: Headers): Promise<void> => {
    if (res.headersSent || res.destroyed) return;
    const headers: Headers = { 'Content-Type': 'application/json', ...cors, ...extra };
    writeHead(res, 200, headers);
    try {
      for (const chunk of chunked(pieces)) {
        if (res.destroyed) return;
        if (!res.write(chunk)) await drainedOrClosed(res);
        else await nextTurn();
      }
    } catch {
      res.destroy();
      return;
    }
    res.end();
  };

  const dispatch = (res: ServerResponse, text: string, cors: Readonly<Record<string, string>>, client: Client | undefined, visit: Visit | undefined): void => {
    // The socket stands for the client: the node lets changes from different clients take turns.
    let ctx: CallContext = { transport: 'http', client: res.req.socket };
    let admission: Admission | undefined;
    if (client !== undefined) {
      admission = new Admission(client, metrics);
      ctx = { transport: 'http', client: res.req.socket, admit: admission.admit };
      if (visit !== undefined) visit.admission = admission;
    }
    let pending: Promise<Body | undefined>;
    try {
      pending = handler.handle(text, ctx);
    } catch (err) {
      respond(res, 200, internalErrorBody(err), cors, limitHeaders(client, admission));
      return;
    }
    pending.then(
      (out) => {
        const extra = limitHeaders(client, admission);
        const status = admission !== undefined && admission.refused > 0 ? 429 : 200;
        if (out === undefined || typeof out === 'string') respond(res, status, out ?? '', cors, extra);
        else void respondStream(res, out, cors, extra);
      },
      (err: unknown) => respond(res, 200, internalErrorBody(err), cors, limitHeaders(client, admission)),
    );
  };

  const onPost = (req: IncomingMessage, res: ServerResponse, cors: Readonly<Record<string, string>>, visit: Visit | undefined): void => {
    const contentType = req.headers['content-type'];
    if (!acceptableContentType(contentType)) {
      respond(res, 415, errorBody(-32600, `invalid content type ${JSON.stringify(contentType)}: expected application/json`), cors);
      // The body is never read: Node discards it after the response and keeps the connection.
      return;
    }
    let client: Client | undefined;
    if (gate.identifies) {
      const c = gate.client(req, 'http');
      if (isRefusal(c)) return refuse(res, c, cors);
      client = c;
      if (visit !== undefined) visit.client = c;
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxBody) {
      respond(res, 413, tooLargeBody, cors, { Connection: 'close' });
      return;
    }
    // Collect chunks: the common case is a single chunk, used as is without copying.
    let first: Buffer | undefined;
    let chunks: Buffer[] | undefined;
    let size = 0;
    let rejected = false;
    req.on('data', (chunk: Buffer) => {
      if (rejected) return;
      size += chunk.length;
      if (size > maxBody) {
        rejected = true;
        first = undefined;
        chunks = undefined;
        respond(res, 413, tooLargeBody, cors, { Connection: 'close' });
        return;
      }
      if (first === undefined) first = chunk;
      else if (chunks === undefined) chunks = [first, chunk];
      else chunks.push(chunk);
    });
    req.on('end', () => {
      if (rejected) return;
      const body = chunks !== undefined ? Buffer.concat(chunks, size) : (first ?? EMPTY);
      dispatch(res, body.toString('utf8'), cors, client, visit);
    });
  };

  /** GET /metrics: the counters, the transport's connections, and the caller's gauges. */
  const serveMetrics = (res: ServerResponse, headOnly: boolean): void => {
    server.getConnections((err, open) => {
      const gauges: Gauge[] = [
        { name: 'http_connections', help: 'Open TCP connections (WebSocket ones included).', value: err ? 0 : open },
        { name: 'ws_connections', help: 'Open WebSocket connections.', value: clients.size },
      ];
      let text: string;
      try {
        text = metrics.render([...gauges, ...(options.gauges?.() ?? [])]);
      } catch (e) {
        text = `# gauges failed: ${(e as Error).message}\n` + metrics.render(gauges);
      }
      servePage(res, headOnly, { type: 'text/plain; version=0.0.4; charset=utf-8', body: Buffer.from(text) });
    });
  };

  const serveHealth = (res: ServerResponse, cors: Readonly<Record<string, string>>): void => {
    try {
      respond(res, 200, JSON.stringify({ status: 'ok', ...options.health?.(), wsConnections: clients.size }), cors);
    } catch (err) {
      respond(res, 503, JSON.stringify({ status: 'error', message: (err as Error).message }), cors);
    }
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    // Client aborts and malformed bodies surface here; the socket is torn down by Node.
    req.on('error', ignore);
    res.on('error', ignore);
    awake.started();
    res.on('close', awake.ended);
    const cors = corsFor(req.headers.origin);
    let visit: Visit | undefined;
    if (onAccess !== undefined) {
      const v: Visit = (visit = { arrived: Date.now(), started: performance.now() });
      res.once('close', () =>
        onAccess({
          time: v.arrived,
          ip: v.client?.ip ?? gate.ip(req),
          transport: 'http',
          verb: req.method ?? '?',
          methods: v.admission?.methods ?? [],
          status: res.statusCode,
          ms: performance.now() - v.started,
          key: v.client?.key?.prefix,
        }),
      );
    }
    const refused = gate.check(req);
    if (refused !== undefined) return refuse(res, refused, cors);
    const held = gate.enter(req);
    if (held !== undefined) {
      if (typeof held !== 'function') return refuse(res, held, cors);
      res.once('close', held);
    }
    switch (req.method) {
      case 'POST':
        onPost(req, res, cors, visit);
        return;
      case 'GET':
      case 'HEAD': {
        const [path, query = ''] = (req.url ?? '/').split('?', 2);
        if (path === '/metrics') return serveMetrics(res, req.method === 'HEAD');
        if (path === '/health') return serveHealth(res, cors);
        const page = options.pages?.(path, req.headers.accept, query);
        if (page === undefined) respond(res, 200, HEALTH_BODY, cors);
        else servePage(res, req.method === 'HEAD', page);
        return;
      }
      case 'OPTIONS': {
        if (res.headersSent) return;
        const requested = req.headers['access-control-request-headers'];
        const headers: Headers = {
          ...cors,
          'Access-Control-Allow-Methods': ALLOW_METHODS,
          'Access-Control-Allow-Headers': requested !== undefined && requested !== '' ? requested : '*',
          'Access-Control-Max-Age': PREFLIGHT_MAX_AGE,
          'Content-Length': '0',
        };
        writeHead(res, 204, headers);
        res.end();
        return;
      }
      default:
        respond(res, 405, errorBody(-32600, `method ${req.method ?? '?'} not allowed: use POST`), cors, { Allow: `${ALLOW_METHODS}, HEAD` });
    }
  };

  const server: Server = createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, noDelay: true }, onRequest);

  // WebSocket on the same port.
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxBody, perMessageDeflate: false, clientTracking: false });
  const clients = new Set<WebSocket>();
  const socketOptions = { handler, maxSendBuffer, onSlowClient: options.onSlowClient, metrics, onAccess, overrunCloseSeconds: options.overrunCloseSeconds ?? 10, awake };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', ignore);
    const arrived = Date.now();
    const log = (status: number, client: Client | undefined): void =>
      onAccess?.({ time: arrived, ip: client?.ip ?? gate.ip(req), transport: 'ws', verb: 'GET', methods: [], status, ms: Date.now() - arrived, key: client?.key?.prefix });
    if (closing || upgradesRefused) {
      socket.end(rawResponse(503, ''));
      return;
    }
    let refused = gate.check(req);
    let client: Client | undefined;
    let release: (() => void) | undefined;
    if (refused === undefined) {
      const held = gate.enter(req);
      if (held !== undefined) {
        if (typeof held === 'function') release = held;
        else refused = held;
      }
    }
    if (refused === undefined && gate.identifies) {
      const c = gate.client(req, 'ws');
      if (isRefusal(c)) refused = c;
      else client = c;
    }
    if (refused !== undefined) {
      release?.();
      metrics.response(refused.status);
      log(refused.status, client);
      socket.end(rawResponse(refused.status, errorBody(refused.code, refused.message)));
      return;
    }
    // Released when the socket closes, whether or not the handshake completes.
    if (release !== undefined) socket.once('close', release);
    // ws validates the handshake itself and answers 400 for non-WebSocket upgrades.
    wss.handleUpgrade(req, socket, head, (ws) => {
      log(101, client);
      clients.add(ws);
      serveSocket(ws, req, client, socketOptions, forget(clients, ws));
    });
  });

  return new Promise<RpcServer>((resolve, reject) => {
    const onListenError = (err: Error): void => reject(err);
    server.once('error', onListenError);
    server.listen(options.port, options.host, () => {
      server.off('error', onListenError);
      server.on('error', ignore);
      const port = (server.address() as AddressInfo).port;
      const hostPart = `${formatHost(options.host)}:${port}`;
      let closePromise: Promise<void> | undefined;

      let listenerClosed: Promise<void> | undefined;
      const stopListening = (): Promise<void> => (listenerClosed ??= new Promise<void>((r) => server.close(() => r())));
      const close = (): Promise<void> => {
        closePromise ??= new Promise<void>((done) => {
          closing = true;
          gate.close();
          const serverClosed = stopListening();
          server.closeIdleConnections();
          const wsClosed = [...clients].map(
            (ws) =>
              new Promise<void>((r) => {
                if (ws.readyState === WebSocket.CLOSED) return r();
                ws.once('close', () => r());
                ws.close(1001, 'server shutting down');
              }),
          );
          // After the grace period, cut whatever is still open (slow clients, long requests).
          const timer = setTimeout(() => {
            for (const ws of clients) ws.terminate();
            server.closeAllConnections();
          }, CLOSE_GRACE_MS);
          timer.unref();
          void Promise.all([serverClosed, ...wsClosed]).then(() => {
            clearTimeout(timer);
            wss.close();
            done();
          });
        });
        return closePromise;
      };

      resolve({
        url: `http://${hostPart}`,
        wsUrl: `ws://${hostPart}`,
        port,
        metrics,
        close,
        stopListening: () => {
          upgradesRefused = true;
          void stopListening();
        },
        connections: () => clients.size,
        setApiKeys: (keys) => gate.setApiKeys(keys),
      });
    });
  });
}

/**
 * A socket's "gone" callback, made outside the upgrade handler: a closure made inside it would keep
 * the handler's whole scope (the upgrade request, its headers, the head buffer) for the life of the
 * connection.
 */
function forget(clients: Set<WebSocket>, ws: WebSocket): () => void {
  return () => clients.delete(ws);
}
