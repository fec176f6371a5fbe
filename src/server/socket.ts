/**
 * One WebSocket connection: messages to the handler, answers and pushed notifications back in
 * order, cleanups when it closes. In a limited tier every message is admitted by the connection's
 * bucket (or its key's); a message over the limit is answered -32005 and the connection stays
 * open, unless it stays far over for `overrunCloseSeconds` (then it is closed with 1008).
 */
import type { IncomingMessage } from 'node:http';
import { WebSocket, type RawData } from 'ws';
import type { CallContext } from './context.js';
import type { AccessEntry } from './access.js';
import { Admission } from './admission.js';
import type { StayAwake } from './awake.js';
import type { Client } from './gate.js';
import { Overrun } from './limits.js';
import type { Metrics } from './metrics.js';
import { chunked, ignore, internalErrorBody, nextTurn, rawToString, type Body, type RpcHandler } from './wire.js';

/** Close code for a client cut for not reading or for flooding (policy violation), and how long its close handshake may take. */
const POLICY_CLOSE = 1008;
const CLOSE_GRACE_MS = 1_000;

export interface SocketOptions {
  readonly handler: RpcHandler;
  readonly maxSendBuffer: number;
  readonly onSlowClient?: (remote: string, buffered: number) => void;
  readonly metrics: Metrics;
  readonly onAccess?: (entry: AccessEntry) => void;
  /** Seconds a connection may stay far over its rate limit before it is closed. */
  readonly overrunCloseSeconds: number;
  /** Told when a request starts and when it is answered (awake.ts). */
  readonly awake?: StayAwake;
}

export function serveSocket(ws: WebSocket, req: IncomingMessage, client: Client | undefined, options: SocketOptions, onGone: () => void): void {
  const { handler, maxSendBuffer, metrics, onAccess, awake } = options;
  const remote = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
  let closed = false;
  let cleanups: (() => void)[] | undefined;
  const runCleanup = (fn: () => void): void => {
    try {
      fn();
    } catch {
      // A failing cleanup must not prevent the others or crash the process.
    }
  };
  const cut = (reason: string): void => {
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.close(POLICY_CLOSE, reason);
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  };
  /** False (and the client cut) when it stopped reading: it is cut rather than buffered for without bound. */
  const writable = (): boolean => {
    if (closed || ws.readyState !== WebSocket.OPEN) return false;
    if (ws.bufferedAmount <= maxSendBuffer) return true;
    options.onSlowClient?.(remote, ws.bufferedAmount);
    cut(`send buffer over ${maxSendBuffer} bytes: the client is not reading`);
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

  // In a limited or logged tier, `admit` is called by the dispatcher during the synchronous start
  // of handle(): `current` is the record of the message being handed over right then.
  let current: Admission | undefined;
  const overrun = client?.bucket !== undefined ? new Overrun(client.bucket.rate, options.overrunCloseSeconds) : undefined;
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
    ...(client === undefined
      ? {}
      : {
          admit: (methods: readonly string[]): boolean => {
            const a = current ?? new Admission(client, metrics);
            const ok = a.admit(methods);
            if (!ok && overrun?.refuse(a.refused)) cut(`over the rate limit of ${client.bucket!.rate} calls a second for ${options.overrunCloseSeconds} s`);
            return ok;
          },
        }),
  };
  ws.on('error', ignore);
  ws.on('close', () => {
    if (closed) return;
    closed = true;
    onGone();
    const fns = cleanups;
    cleanups = undefined;
    if (fns !== undefined) for (const fn of fns) runCleanup(fn);
  });
  ws.on('message', (data: RawData) => {
    metrics.message();
    // Binary frames are treated as UTF-8 text. Responses go out as each call completes.
    const text = rawToString(data);
    const arrived = onAccess === undefined ? 0 : Date.now();
    const started = onAccess === undefined ? 0 : performance.now();
    const record = client === undefined ? undefined : new Admission(client, metrics);
    let pending: Promise<Body | undefined>;
    current = record;
    awake?.started();
    try {
      pending = handler.handle(text, ctx);
    } catch (err) {
      sendBody(internalErrorBody(err));
      awake?.ended();
      return;
    } finally {
      current = undefined;
    }
    const logged = (): void => {
      if (onAccess === undefined || client === undefined || record === undefined) return;
      const status = record.refused > 0 ? 429 : 200;
      onAccess({ time: arrived, ip: client.ip, transport: 'ws', verb: 'WS', methods: record.methods, status, ms: performance.now() - started, key: client.key?.prefix });
    };
    pending.then(
      (out) => {
        if (out !== undefined) sendBody(out);
        awake?.ended();
        logged();
      },
      (err: unknown) => {
        sendBody(internalErrorBody(err));
        awake?.ended();
        logged();
      },
    );
  });
}
