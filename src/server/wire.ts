/**
 * What goes over the wire, below any policy: the handler interface, transport-level error bodies,
 * accepted content types, and streamed bodies cut into buffers.
 */
import type { RawData } from 'ws';
import type { CallContext } from './context.js';

/** A response: one string, or pieces to send in order (a large result streamed as it is written). */
export type Body = string | Iterable<string>;

export interface RpcHandler {
  handle(text: string, ctx: CallContext): Promise<Body | undefined>;
}

/**
 * A streamed body goes out in chunks of about this many bytes, other work running between them.
 * Each chunk is one write and one turn of the event loop: at 16 KiB a 6,400-step struct log
 * (0.8 MB) took 50 of each and ~1.5 ms more per trace than at 256 KiB, while encoding a chunk
 * this size keeps other requests waiting well under a millisecond.
 */
const STREAM_CHUNK = 256 * 1024;

/**
 * A body's pieces encoded straight into buffers of about STREAM_CHUNK bytes (outside the JS heap,
 * so a 50 MB answer does not make the garbage collector pause other requests).
 */
export function* chunked(pieces: Iterable<string>): Generator<Buffer> {
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

export const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * Resolves once `stream` drains or closes, and leaves neither listener behind (a streamed answer
 * waits here once per full socket buffer: listeners left over piled up past Node's warning).
 */
export function drainedOrClosed(stream: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.once('drain', done).once('close', done);
  });
}

/** A JSON-RPC error envelope with a null id, for transport-level failures. */
export function errorBody(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
}

export function internalErrorBody(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return errorBody(-32603, `internal error: ${message}`);
}

/**
 * Media types accepted as JSON-RPC bodies (geth accepts the same three). Parameters such as
 * `charset` are ignored: bodies are always decoded as UTF-8.
 */
export function acceptableContentType(header: string | undefined): boolean {
  // No Content-Type at all is accepted on purpose: `curl -d '{...}' url` without -H sends
  // `application/x-www-form-urlencoded`, but hand-written clients and some scripts send none,
  // and the body is still JSON. Anything explicitly non-JSON (text/plain, form data) is rejected.
  if (header === undefined || header === 'application/json') return true;
  const semi = header.indexOf(';');
  const type = (semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase();
  return type === 'application/json' || type === 'application/json-rpc' || type === 'application/jsonrequest';
}

export function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export function rawToString(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** Reason phrases of the statuses written by hand on a socket (refused WebSocket upgrades). */
const REASONS: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 429: 'Too Many Requests', 503: 'Service Unavailable' };

/** A whole HTTP response as raw text, for a socket that never became a request/response pair. */
export function rawResponse(status: number, body: string, headers: Record<string, string> = {}): string {
  const lines = [`HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`, 'Connection: close', `Content-Length: ${Buffer.byteLength(body)}`];
  if (body !== '') lines.push('Content-Type: application/json');
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

export function ignore(): void {}
