/**
 * Transport layer: one port serving JSON-RPC over HTTP (POST) and WebSocket (upgrade).
 *
 * This module knows nothing about Ethereum; it moves request text to an `RpcHandler` and the
 * handler's response text back to the client. Decisions:
 *  - HTTP status is 200 for every JSON-RPC answer, errors included (like geth). When the handler
 *    answers nothing (a notification or a batch of notifications) the reply is 200 with an empty
 *    body and `Content-Length: 0`.
 *  - `GET`/`HEAD` without an upgrade answer 200 `{"status":"ok"}` (a health check; geth answers 200
 *    on GET / too), unless the `pages` option serves that path (the explorer for browsers). Methods other than POST/GET/HEAD/OPTIONS: 405.
 *  - CORS is wide open (`*`), preflights answer 204.
 *  - Oversized bodies answer 413, wrong content types 415, both with a JSON-RPC error body.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { CallContext } from '../rpc/registry.js';

/** A response: one string, or pieces to send in order (a large result streamed as it is written). */
export type Body = string | Iterable<string>;

export interface RpcHandler {
  handle(text: string, ctx: CallContext): Promise<Body | undefined>;
}

export interface ServerOptions {
  host: string;
  port: number;
  /** Largest accepted HTTP body / WebSocket message in bytes. Default 16 MiB. */
  maxBodyBytes?: number;
  /** Bytes a WebSocket may have queued for a client that is not reading before it is cut (default 16 MiB). */
  maxSendBuffer?: number;
  /** Told when a slow WebSocket client is cut (for the node's log). */
  onSlowClient?: (remote: string, buffered: number) => void;
  /**
   * Pages served on GET/HEAD besides the health answer (the explorer): asked with the path and the
   * Accept header; `undefined` means the health answer.
   */
  pages?: (path: string, accept: string | undefined) => Page | undefined;
}

/** A static answer to a GET: a content type and a body. */
export interface Page {
  readonly type: string;
  readonly body: Buffer;
}

export interface RpcServer {
  /** `http://host:port`, with the actual port when 0 was requested. */
  readonly url: string;
  /** `ws://host:port`. */
  readonly wsUrl: string;
  readonly port: number;
  /** Stop accepting, close WebSocket clients (1001) and idle HTTP sockets; resolves when closed. */
  close(): Promise<void>;
  /** Stop accepting new connections (and WebSocket upgrades); open ones keep being served. */
  stopListening(): void;
  /** Number of open WebSocket connections. */
  connections(): number;
}

export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_SEND_BUFFER = 16 * 1024 * 1024;
/** Close code for a client cut for not reading (policy violation), and how long its close handshake may take. */
const SLOW_CLIENT_CLOSE = 1008;
const SLOW_CLIENT_GRACE_MS = 1_000;
/** Idle keep-alive sockets are kept this long (Node's default of 5 s is short for benchmarks and tools). */
const KEEP_ALIVE_TIMEOUT_MS = 30_000;
/** How long close() waits for in-flight requests and WebSocket close handshakes before cutting. */
const CLOSE_GRACE_MS = 1_000;

const HTTP_CTX: CallContext = Object.freeze({ transport: 'http' as const });
const EMPTY = Buffer.alloc(0);
const HEALTH_BODY = '{"status":"ok"}';
const ALLOW_METHODS = 'POST, GET, OPTIONS';
const PREFLIGHT_MAX_AGE = '86400';
/** A streamed body goes out in chunks of about this many bytes, other work running between them. */
const STREAM_CHUNK = 16 * 1024;

/**
 * A body's pieces encoded straight into buffers of about STREAM_CHUNK bytes (outside the JS heap,
 * so a 50 MB answer does not make the garbage collector pause other requests).
 */
function* chunked(pieces: Iterable<string>): Generator<Buffer> {
  let buf = Buffer.allocUnsafe(STREAM_CHUNK);
  let at = 0;
  for (const piece of pieces) {
    const most = piece.length * 3;
    if (at + most > buf.length) {
      if (at > 0) yield buf.subarray(0, at);
      buf = Buffer.allocUnsafe(Math.max(STREAM_CHUNK, most));
      at = 0;
    }
    at += buf.write(piece, at);
  }
  if (at > 0) yield buf.subarray(0, at);
}

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** A JSON-RPC error envelope with a null id, for transport-level failures. */
function errorBody(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
}

function internalErrorBody(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return errorBody(-32603, `internal error: ${message}`);
}

/**
 * Media types accepted as JSON-RPC bodies (geth accepts the same three). Parameters such as
 * `charset` are ignored: bodies are always decoded as UTF-8.
 */
function acceptableContentType(header: string | undefined): boolean {
  // No Content-Type at all is accepted on purpose: `curl -d '{...}' url` without -H sends
  // `application/x-www-form-urlencoded`, but hand-written clients and some scripts send none,
  // and the body is still JSON. Anything explicitly non-JSON (text/plain, form data) is rejected.
  if (header === undefined || header === 'application/json') return true;
  const semi = header.indexOf(';');
  const type = (semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase();
  return type === 'application/json' || type === 'application/json-rpc' || type === 'application/jsonrequest';
}

function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function rawToString(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

export function startServer(handler: RpcHandler, options: ServerOptions): Promise<RpcServer> {
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxSendBuffer = options.maxSendBuffer ?? DEFAULT_MAX_SEND_BUFFER;
  const tooLargeBody = errorBody(-32600, `request body too large: the limit is ${maxBody} bytes`);
  let closing = false;
  let upgradesRefused = false;

  /** Write a complete response. Headers are built in one object; Content-Length always set. */
  const respond = (res: ServerResponse, status: number, body: string, extra?: Record<string, string>): void => {
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
      'Access-Control-Allow-Origin': '*',
    };
    if (extra !== undefined) Object.assign(headers, extra);
    if (closing) headers.Connection = 'close';
    res.writeHead(status, headers);
    res.end(body);
  };

  const servePage = (res: ServerResponse, headOnly: boolean, page: Page): void => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(200, { 'Content-Type': page.type, 'Content-Length': page.body.length, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
    res.end(headOnly ? undefined : page.body);
  };

  /**
   * Write a streamed body with chunked transfer encoding: a chunk at a time, waiting for the
   * socket to drain and letting other requests run between chunks. A failure while writing ends
   * the response early (the client sees truncated JSON; the status line was already sent).
   */
  const respondStream = async (res: ServerResponse, pieces: Iterable<string>): Promise<void> => {
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' };
    if (closing) headers.Connection = 'close';
    res.writeHead(200, headers);
    try {
      for (const chunk of chunked(pieces)) {
        if (res.destroyed) return;
        if (!res.write(chunk)) await new Promise((r) => res.once('drain', r).once('close', r));
        else await nextTurn();
      }
    } catch {
      res.destroy();
      return;
    }
    res.end();
  };

  const dispatch = (res: ServerResponse, text: string): void => {
    let pending: Promise<Body | undefined>;
    try {
      pending = handler.handle(text, HTTP_CTX);
    } catch (err) {
      respond(res, 200, internalErrorBody(err));
      return;
    }
    pending.then(
      (out) => (out === undefined || typeof out === 'string' ? respond(res, 200, out ?? '') : void respondStream(res, out)),
      (err: unknown) => respond(res, 200, internalErrorBody(err)),
    );
  };

  const onPost = (req: IncomingMessage, res: ServerResponse): void => {
    const contentType = req.headers['content-type'];
    if (!acceptableContentType(contentType)) {
      respond(res, 415, errorBody(-32600, `invalid content type ${JSON.stringify(contentType)}: expected application/json`));
      // The body is never read: Node discards it after the response and keeps the connection.
      return;
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxBody) {
      respond(res, 413, tooLargeBody, { Connection: 'close' });
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
        respond(res, 413, tooLargeBody, { Connection: 'close' });
        return;
      }
      if (first === undefined) first = chunk;
      else if (chunks === undefined) chunks = [first, chunk];
      else chunks.push(chunk);
    });
    req.on('end', () => {
      if (rejected) return;
      const body = chunks !== undefined ? Buffer.concat(chunks, size) : (first ?? EMPTY);
      dispatch(res, body.toString('utf8'));
    });
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    // Client aborts and malformed bodies surface here; the socket is torn down by Node.
    req.on('error', ignore);
    res.on('error', ignore);
    switch (req.method) {
      case 'POST':
        onPost(req, res);
        return;
      case 'GET':
      case 'HEAD': {
        const page = options.pages?.((req.url ?? '/').split('?')[0], req.headers.accept);
        if (page === undefined) respond(res, 200, HEALTH_BODY);
        else servePage(res, req.method === 'HEAD', page);
        return;
      }
      case 'OPTIONS': {
        if (res.headersSent) return;
        const requested = req.headers['access-control-request-headers'];
        const headers: Record<string, string> = {
          'Access-Control-Allow-Origin': '*',
          'Access-Control-Allow-Methods': ALLOW_METHODS,
          'Access-Control-Allow-Headers': requested !== undefined && requested !== '' ? requested : '*',
          'Access-Control-Max-Age': PREFLIGHT_MAX_AGE,
          'Content-Length': '0',
        };
        if (closing) headers.Connection = 'close';
        res.writeHead(204, headers);
        res.end();
        return;
      }
      default:
        respond(res, 405, errorBody(-32600, `method ${req.method ?? '?'} not allowed: use POST`), { Allow: `${ALLOW_METHODS}, HEAD` });
    }
  };

  const server: Server = createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, noDelay: true }, onRequest);

  // WebSocket on the same port.
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxBody, perMessageDeflate: false, clientTracking: false });
  const clients = new Set<WebSocket>();

  const onConnection = (ws: WebSocket, req: IncomingMessage): void => {
    const remote = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
    clients.add(ws);
    let closed = false;
    let cleanups: (() => void)[] | undefined;
    const runCleanup = (fn: () => void): void => {
      try {
        fn();
      } catch {
        // A failing cleanup must not prevent the others or crash the process.
      }
    };
    /** False (and the client cut) when it stopped reading: it is cut rather than buffered for without bound. */
    const writable = (): boolean => {
      if (closed || ws.readyState !== WebSocket.OPEN) return false;
      if (ws.bufferedAmount <= maxSendBuffer) return true;
      options.onSlowClient?.(remote, ws.bufferedAmount);
      ws.close(SLOW_CLIENT_CLOSE, `send buffer over ${maxSendBuffer} bytes: the client is not reading`);
      setTimeout(() => ws.terminate(), SLOW_CLIENT_GRACE_MS).unref();
      return false;
    };
    // While a streamed answer goes out as fragments of one message, other messages wait their turn
    // (frames of two messages must not interleave).
    let streaming = false;
    const waiting: Body[] = [];
    const sendBody = (body: Body): void => {
      if (streaming) {
        waiting.push(body);
        return;
      }
      if (typeof body === 'string') {
        if (writable()) ws.send(body);
        return;
      }
      streaming = true;
      void (async () => {
        try {
          for (const chunk of chunked(body)) {
            if (!writable()) return;
            // Fragments of one text message: the first carries the opcode, the rest continue it.
            ws.send(chunk, { fin: false, binary: false });
            await nextTurn();
          }
          if (writable()) ws.send('', { fin: true, binary: false });
        } catch {
          ws.terminate();
        } finally {
          streaming = false;
          while (!streaming && waiting.length > 0) sendBody(waiting.shift()!);
        }
      })();
    };
    const ctx: CallContext = {
      transport: 'ws',
      send(message: string) {
        sendBody(message);
      },
      onClose(fn: () => void) {
        // Registered after the socket went away (a handler finishing late): clean up at once.
        if (closed) runCleanup(fn);
        else (cleanups ??= []).push(fn);
      },
    };
    ws.on('error', ignore);
    ws.on('close', () => {
      if (closed) return;
      closed = true;
      clients.delete(ws);
      const fns = cleanups;
      cleanups = undefined;
      if (fns !== undefined) for (const fn of fns) runCleanup(fn);
    });
    ws.on('message', (data: RawData) => {
      // Binary frames are treated as UTF-8 text. Responses go out as each call completes.
      const text = rawToString(data);
      let pending: Promise<Body | undefined>;
      try {
        pending = handler.handle(text, ctx);
      } catch (err) {
        sendBody(internalErrorBody(err));
        return;
      }
      pending.then(
        (out) => {
          if (out !== undefined) sendBody(out);
        },
        (err: unknown) => sendBody(internalErrorBody(err)),
      );
    });
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', ignore);
    if (closing || upgradesRefused) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    // ws validates the handshake itself and answers 400 for non-WebSocket upgrades.
    wss.handleUpgrade(req, socket, head, onConnection);
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
        close,
        stopListening: () => {
          upgradesRefused = true;
          void stopListening();
        },
        connections: () => clients.size,
      });
    });
  });
}

function ignore(): void {}
