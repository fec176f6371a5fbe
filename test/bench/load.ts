// Closed-loop HTTP load generator for JSON-RPC, kept deliberately light so that
// on a 2-core machine most of the second core is left to the node under test:
//
// - raw `net` sockets with keep-alive, one pre-encoded request (head + body)
//   Buffer written as-is for every request;
// - `depth` requests in flight per socket (HTTP/1.1 pipelining; responses come
//   back in order, so only a FIFO of start times is kept per socket);
// - responses are framed (Content-Length or chunked) but never JSON-parsed: a
//   response counts as OK when the status is 200 and the body has no `"error"`.
//
// It runs on the caller's thread (the bench's main thread, which is otherwise
// idle during a load phase); the node is always a separate process.

import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { bareServer } from './bare.js';
import { CpuMeter, startBare } from './harness.js';

export interface LoadOptions {
  url: string;
  /** JSON-RPC request body, encoded once; or several, sent in rotation (no two requests in a row alike). */
  body: Buffer | Buffer[];
  /** Number of keep-alive sockets. */
  connections: number;
  /** Requests in flight per socket (1 = no pipelining). */
  depth: number;
  /** Measured phase. */
  durationMs: number;
  /** Unmeasured phase before it (connections warm, JIT warm). */
  warmupMs: number;
  /** Node pid, to report its CPU use during the measured phase. */
  pid?: number;
}

export interface LoadResult {
  /** Successful responses during the measured phase. */
  ok: number;
  /** Non-200, JSON-RPC error, or lost (connection closed) responses. */
  errors: number;
  elapsedMs: number;
  /** Successful responses per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU use of this process (the load generator), % of one core. */
  clientCpu: number;
  /** CPU use of the node process, % of one core (may exceed 100 for threaded nodes). */
  nodeCpu?: number;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const ERROR_KEY = Buffer.from('"error"');

interface Frame {
  /** Offset just past this response, or -1 if incomplete. */
  end: number;
  ok: boolean;
  close: boolean;
}

const INCOMPLETE: Frame = { end: -1, ok: false, close: false };

/** Frame one HTTP/1.1 response starting at `off`. Stateless: re-run when more data arrives. */
function frame(buf: Buffer, off: number): Frame {
  const hdrEnd = buf.indexOf(CRLFCRLF, off);
  if (hdrEnd < 0) return INCOMPLETE;
  const status = (buf[off + 9]! - 48) * 100 + (buf[off + 10]! - 48) * 10 + (buf[off + 11]! - 48);
  const head = buf.toString('latin1', off, hdrEnd).toLowerCase();
  const close = head.includes('\r\nconnection: close');
  const bodyStart = hdrEnd + 4;
  const cl = head.indexOf('\r\ncontent-length:');
  if (cl >= 0) {
    const len = parseInt(head.slice(cl + 17), 10);
    const end = bodyStart + len;
    if (end > buf.length) return INCOMPLETE;
    const ok = status === 200 && buf.subarray(bodyStart, end).indexOf(ERROR_KEY) < 0;
    return { end, ok, close };
  }
  if (head.includes('\r\ntransfer-encoding:') && head.includes('chunked')) {
    let p = bodyStart;
    let ok = status === 200;
    for (;;) {
      const lineEnd = buf.indexOf(CRLF, p);
      if (lineEnd < 0) return INCOMPLETE;
      const size = parseInt(buf.toString('latin1', p, lineEnd), 16);
      if (Number.isNaN(size)) return { end: buf.length, ok: false, close: true };
      if (size === 0) {
        // No trailers expected: the terminating CRLF follows.
        const end = lineEnd + 4;
        if (end > buf.length) return INCOMPLETE;
        return { end, ok, close };
      }
      const dataEnd = lineEnd + 2 + size;
      if (dataEnd + 2 > buf.length) return INCOMPLETE;
      if (buf.subarray(lineEnd + 2, dataEnd).indexOf(ERROR_KEY) >= 0) ok = false;
      p = dataEnd + 2;
    }
  }
  // No body framing (e.g. 204) — treat as an empty body.
  return { end: bodyStart, ok: false, close };
}

/** Run a closed loop: every completed request is immediately replaced by a new one. */
export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const url = new URL(opts.url);
  const host = url.hostname;
  const port = Number(url.port || 80);
  const head = (body: Buffer) =>
    `POST ${url.pathname}${url.search} HTTP/1.1\r\n` +
    `Host: ${url.host}\r\n` +
    `Content-Type: application/json\r\n` +
    `Content-Length: ${body.length}\r\n` +
    `Connection: keep-alive\r\n\r\n`;
  const requests = (Array.isArray(opts.body) ? opts.body : [opts.body]).map((body) => Buffer.concat([Buffer.from(head(body), 'latin1'), body]));
  let nextRequest = 0;

  let running = true;
  let measuring = false;
  let ok = 0;
  let errors = 0;
  let lat = new Float64Array(1 << 16);
  let nLat = 0;
  let fatal: Error | undefined;
  let consecutiveFailures = 0;

  const record = (startedAt: number, good: boolean) => {
    if (!measuring) return;
    if (!good) {
      errors++;
      return;
    }
    ok++;
    if (nLat === lat.length) {
      const bigger = new Float64Array(lat.length * 2);
      bigger.set(lat);
      lat = bigger;
    }
    lat[nLat++] = performance.now() - startedAt;
  };

  class Conn {
    sock!: net.Socket;
    pending: Buffer | null = null;
    starts: number[] = [];
    inflight = 0;
    announcedClose = false;

    open(): void {
      this.pending = null;
      this.announcedClose = false;
      this.starts = [];
      this.inflight = 0;
      const sock = net.connect({ host, port });
      this.sock = sock;
      sock.setNoDelay(true);
      sock.on('connect', () => {
        consecutiveFailures = 0;
        for (let i = 0; i < opts.depth && running; i++) this.send();
      });
      sock.on('data', (chunk: Buffer) => this.onData(chunk));
      sock.on('error', () => {
        /* handled on close */
      });
      sock.on('close', () => {
        if (this.sock !== sock) return;
        // Requests pipelined behind a `Connection: close` answer were never
        // processed: not errors, the loop re-sends on the new socket. Any other
        // close loses the requests in flight, which count as errors.
        if (!this.announcedClose) for (const t of this.starts) record(t, false);
        this.starts = [];
        this.inflight = 0;
        if (!running) return;
        if (!this.announcedClose && ++consecutiveFailures > 200) {
          fatal = new Error(`load: connections to ${opts.url} keep failing`);
          running = false;
          return;
        }
        setTimeout(() => running && this.open(), consecutiveFailures > 5 ? 10 : 0);
      });
    }

    send(): void {
      this.starts.push(performance.now());
      this.inflight++;
      this.sock.write(requests[nextRequest]!);
      nextRequest = nextRequest + 1 === requests.length ? 0 : nextRequest + 1;
    }

    onData(chunk: Buffer): void {
      let buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
      let off = 0;
      let closeAfter = false;
      while (off < buf.length) {
        const f = frame(buf, off);
        if (f.end < 0) break;
        off = f.end;
        const t = this.starts.shift();
        this.inflight--;
        if (t !== undefined) record(t, f.ok);
        if (f.close) {
          closeAfter = true;
          break;
        }
        if (running) this.send();
      }
      this.pending = off < buf.length && !closeAfter ? buf.subarray(off) : null;
      if (closeAfter) {
        this.announcedClose = true;
        this.sock.destroy();
      }
      buf = null as unknown as Buffer;
    }
  }

  const conns: Conn[] = [];
  for (let i = 0; i < opts.connections; i++) {
    const c = new Conn();
    conns.push(c);
    c.open();
  }

  return new Promise((resolve, reject) => {
    let meter: CpuMeter;
    let t0 = 0;
    setTimeout(() => {
      measuring = true;
      meter = new CpuMeter(opts.pid);
      t0 = performance.now();
      setTimeout(() => {
        const elapsedMs = performance.now() - t0;
        measuring = false;
        running = false;
        const cpu = meter.read();
        const finish = () => {
          for (const c of conns) c.sock.destroy();
          if (fatal) return reject(fatal);
          const sample = lat.subarray(0, nLat).sort();
          const pct = (p: number) =>
            nLat === 0 ? NaN : sample[Math.min(nLat - 1, Math.max(0, Math.ceil((p / 100) * nLat) - 1))]!;
          resolve({
            ok,
            errors,
            elapsedMs,
            rps: (ok * 1000) / elapsedMs,
            p50Ms: pct(50),
            p99Ms: pct(99),
            clientCpu: cpu.client,
            nodeCpu: cpu.node,
          });
        };
        // Let in-flight requests drain (up to 2 s) so sockets close cleanly.
        const deadline = performance.now() + 2_000;
        const drain = () => {
          if (conns.every((c) => c.inflight === 0) || performance.now() > deadline) finish();
          else setTimeout(drain, 5);
        };
        drain();
      }, opts.durationMs);
    }, opts.warmupMs);
  });
}

/** Measured/warm-up durations for a load phase. */
export function loadDurations(quick: boolean): { durationMs: number; warmupMs: number } {
  return quick ? { durationMs: 1_000, warmupMs: 250 } : { durationMs: 3_000, warmupMs: 500 };
}

/**
 * The same load against a bare node:http server (bare.ts) that answers every request with `result`,
 * started for the phase in a process of its own: the most any Node HTTP server can answer in this
 * shape on the machine as it is at that moment, with no work of its own.
 */
export async function bareLoad(opts: Omit<LoadOptions, 'url' | 'pid'>, result: string): Promise<LoadResult> {
  const bare = await startBare(['-e', bareServer(result)]);
  try {
    return await runLoad({ ...opts, url: bare.url });
  } finally {
    bare.kill();
  }
}

/**
 * The usual metrics of a load phase, `rps` named by the caller (e.g. 'calls/s'); with `bare`, the
 * bare server's throughput under the same load (`bareLoad`) and the node's share of it.
 */
export function loadMetrics(r: LoadResult, rateUnit = 'req/s', bare?: LoadResult): Record<string, { value: number; unit: string }> {
  const m: Record<string, { value: number; unit: string }> = {
    throughput: { value: r.rps, unit: rateUnit },
    ...(bare === undefined
      ? {}
      : { 'bare node:http throughput': { value: bare.rps, unit: rateUnit }, 'of the bare server': { value: (100 * r.rps) / bare.rps, unit: '%' } }),
    'latency p50': { value: r.p50Ms, unit: 'ms' },
    'latency p99': { value: r.p99Ms, unit: 'ms' },
    errors: { value: r.errors, unit: 'count' },
    'client CPU': { value: r.clientCpu, unit: '% core' },
  };
  if (r.nodeCpu !== undefined) m['node CPU'] = { value: r.nodeCpu, unit: '% core' };
  return m;
}
