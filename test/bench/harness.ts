// Benchmark harness: start/stop nodes as child processes, read their RSS and
// CPU time from /proc, and talk JSON-RPC to them over a keep-alive HTTP client.
//
// Nodes always run in their own process; the harness (and the load generator in
// ./load.ts) run on this process's main thread. See README.md in this folder for
// the reasoning on a 2-core machine.

import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { anvilBinary as installedAnvil, freePort } from '../support/anvil.js';

// ---------------------------------------------------------------------------
// Scenario contract

export interface Metric {
  value: number;
  unit: string;
}

export type Metrics = Record<string, Metric>;

export interface Scenario {
  /** Short identifier, used by `--scenario <name>`. */
  name: string;
  /** One line, shown by `--help`. */
  description: string;
  run(node: BenchNode): Promise<Metrics>;
}

/** Thrown by a scenario that does not apply to a node (e.g. boot time of a `--target`). */
export class SkipScenario extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SkipScenario';
  }
}

export interface BenchOptions {
  /** Shorter durations / fewer iterations, for smoke runs. */
  quick: boolean;
}

/** What a scenario gets: one running node plus what it needs to start more of the same kind. */
export interface BenchNode {
  /** Column label: 'node-rpc', 'anvil', or the `--label` of a `--target`. */
  label: string;
  url: string;
  /** Chain id reported by the node (984 for the spawned ones). */
  chainId: number;
  /** OS pid when the harness started the node; undefined for `--target`. */
  pid?: number;
  /** How to start another instance of this node; undefined for `--target`. */
  spec?: NodeSpec;
  rpc: RpcClient;
  options: BenchOptions;
  /** Per-node scratch space shared by scenarios (e.g. the deployed token). */
  cache: Map<string, unknown>;
}

// ---------------------------------------------------------------------------
// Locations

let rootCache: string | undefined;

/**
 * The repository root: the nearest ancestor of this file holding package.json,
 * skipping the build output folder (tsc may copy package.json into dist/).
 */
export function repoRoot(): string {
  if (rootCache) return rootCache;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (basename(dir) !== 'dist' && existsSync(join(dir, 'package.json'))) return (rootCache = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the repository root (package.json)');
    dir = up;
  }
}

/** The anvil binary shipped by the dev dependency, or undefined. */
export function anvilBinary(): string | undefined {
  try {
    return installedAnvil();
  } catch {
    return undefined;
  }
}

/** First line of `anvil --version`, or undefined. */
export function anvilVersion(): string | undefined {
  const bin = anvilBinary();
  if (!bin) return undefined;
  try {
    return execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 }).split('\n')[0]?.trim();
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------
// Spawning nodes

export interface NodeSpec {
  label: string;
  command: string;
  args(port: number): string[];
  cwd?: string;
  /**
   * Run with a home folder of its own, removed once the process has exited. anvil keeps the
   * states of old blocks on disk under ~/.foundry/anvil/tmp and removes them only on a graceful
   * exit: the `mining` scenario's blocks left tens of GB there over a day of runs.
   */
  ownHome?: boolean;
}

export const CHAIN_ID = 984;

export function nodeRpcSpec(): NodeSpec {
  const root = repoRoot();
  const bin = join(root, 'bin', 'node-rpc.js');
  if (!existsSync(join(root, 'dist', 'node.cjs'))) {
    throw new Error('node-rpc is not built (dist/node.cjs missing): run `npm run build`');
  }
  return {
    label: 'node-rpc',
    command: process.execPath,
    args: (port) => [bin, 'dev', '--port', String(port), '--silent'],
    cwd: root,
  };
}

export function anvilSpec(): NodeSpec {
  const bin = anvilBinary();
  if (!bin) throw new Error('anvil is not installed (@foundry-rs/anvil-linux-amd64)');
  return {
    label: 'anvil',
    command: bin,
    args: (port) => ['--port', String(port), '--chain-id', String(CHAIN_ID), '--silent'],
    ownHome: true,
  };
}

export { freePort };

export interface RunningNode {
  label: string;
  pid: number;
  port: number;
  url: string;
  chainId: number;
  /** Spawn → first successful eth_chainId answer, in ms. */
  bootMs: number;
  /** Last few KB of the child's stdout+stderr, for diagnostics. */
  output(): string;
  stop(): Promise<void>;
}

/** One eth_chainId request on a fresh connection; resolves to the chain id or rejects. */
function probeChainId(port: number, timeoutMs: number): Promise<number> {
  const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}';
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result?: string };
            if (res.statusCode === 200 && typeof msg.result === 'string') resolve(Number(BigInt(msg.result)));
            else reject(new Error(`bad eth_chainId answer (HTTP ${res.statusCode})`));
          } catch (e) {
            reject(e as Error);
          }
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error('probe timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export { sleep };

/**
 * Start a bare server: node with `args` and a free port as its last argument, which writes a line
 * to stdout once it listens. Its URL and a kill switch.
 */
export async function startBare(args: string[]): Promise<{ url: string; kill: () => void }> {
  const port = await freePort();
  const bare = spawn(process.execPath, [...args, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      bare.stdout!.once('data', () => resolve());
      bare.once('exit', (code) => reject(new Error(`the bare server exited (${code})`)));
    });
  } catch (err) {
    bare.kill('SIGKILL');
    throw err;
  }
  return { url: `http://127.0.0.1:${port}`, kill: () => bare.kill('SIGKILL') };
}

/**
 * Start a node on a free port and wait until it answers eth_chainId.
 * Boot time is measured from just before spawn() to the first successful answer
 * (polled every ~2 ms, so resolution is a few ms).
 */
export async function startNode(spec: NodeSpec, opts: { timeoutMs?: number } = {}): Promise<RunningNode> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const port = await freePort();
  let tail = '';
  const keep = (c: Buffer) => {
    tail = (tail + c.toString('utf8')).slice(-4096);
  };
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  const home = spec.ownHome ? mkdtempSync(join(tmpdir(), 'node-rpc-bench-home-')) : undefined;
  const t0 = performance.now();
  const child: ChildProcess = spawn(spec.command, spec.args(port), {
    cwd: spec.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: home === undefined ? process.env : { ...process.env, HOME: home },
  });
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      if (home !== undefined) rmSync(home, { recursive: true, force: true });
      resolve();
    });
  });
  let spawnError: Error | undefined;
  child.once('error', (e) => {
    spawnError = e;
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (!exited) child.kill('SIGKILL');
    }, 5_000);
    await exitPromise;
    clearTimeout(timer);
  };

  let chainId: number | undefined;
  for (;;) {
    if (spawnError) throw new Error(`${spec.label}: failed to spawn: ${spawnError.message}`);
    if (exited) {
      throw new Error(
        `${spec.label}: exited during boot (code ${exited.code}, signal ${exited.signal})\n${tail.trim()}`,
      );
    }
    try {
      chainId = await probeChainId(port, 1_000);
      break;
    } catch {
      if (performance.now() - t0 > timeoutMs) {
        await stop();
        throw new Error(`${spec.label}: no eth_chainId answer within ${timeoutMs} ms\n${tail.trim()}`);
      }
      await sleep(2);
    }
  }
  const bootMs = performance.now() - t0;
  if (child.pid === undefined) throw new Error(`${spec.label}: no pid`);
  return {
    label: spec.label,
    pid: child.pid,
    port,
    url: `http://127.0.0.1:${port}`,
    chainId,
    bootMs,
    output: () => tail,
    stop,
  };
}

// ---------------------------------------------------------------------------
// /proc readings

/** Resident set size of a process in MiB (VmRSS from /proc/<pid>/status). */
export function readRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

let clkTck: number | undefined;
function clockTicks(): number {
  if (clkTck === undefined) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

/** User+system CPU time of a whole process (all threads) in ms, from /proc/<pid>/stat. */
export function readCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  return ((utime + stime) * 1000) / clockTicks();
}

/** Measures CPU use of this process and (if known) the node process over an interval. */
export class CpuMeter {
  private wall = performance.now();
  private self = process.cpuUsage();
  private node: number | undefined;
  constructor(private readonly pid?: number) {
    this.node = pid === undefined ? undefined : safeCpu(pid);
  }
  /** CPU use in percent of one core since construction: { client, node }. */
  read(): { client: number; node?: number } {
    const dt = performance.now() - this.wall;
    const u = process.cpuUsage(this.self);
    const client = ((u.user + u.system) / 1000 / dt) * 100;
    let node: number | undefined;
    if (this.pid !== undefined && this.node !== undefined) {
      const now = safeCpu(this.pid);
      if (now !== undefined) node = ((now - this.node) / dt) * 100;
    }
    return { client, node };
  }
}

function safeCpu(pid: number): number | undefined {
  try {
    return readCpuMs(pid);
  } catch {
    return undefined;
  }
}

/**
 * Wait until the given processes are idle: together under 5% of a core over two 250 ms windows
 * in a row. A node can still be busy after a scenario, e.g. finishing a request the client gave up
 * on, and would otherwise take CPU from the next measurement. Returns the ms waited beyond the two
 * quiet windows; gives up after `timeoutMs` (returns -1). Without /proc (not Linux) returns 0 at once.
 */
export async function waitIdle(pids: number[], timeoutMs = 120_000): Promise<number> {
  const total = () => pids.reduce((sum, pid) => sum + (safeCpu(pid) ?? 0), 0);
  if (pids.length === 0 || pids.every((pid) => safeCpu(pid) === undefined)) return 0;
  const t0 = performance.now();
  const window = 250;
  let quiet = 0;
  let before = total();
  while (quiet < 2) {
    if (performance.now() - t0 > timeoutMs) return -1;
    await sleep(window);
    const now = total();
    quiet = now - before < window * 0.05 ? quiet + 1 : 0;
    before = now;
  }
  return performance.now() - t0 - 2 * window;
}

// ---------------------------------------------------------------------------
// JSON-RPC client (node:http, keep-alive)

export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number | undefined,
    message: string,
    readonly data?: unknown,
  ) {
    super(`${method}: ${message}${code !== undefined ? ` (code ${code})` : ''}`);
    this.name = 'RpcError';
  }
}

interface RpcResponse {
  id?: unknown;
  result?: unknown;
  error?: { code?: number; message?: string; data?: unknown };
}

export interface RpcCall {
  method: string;
  params?: unknown[];
}

/** A small JSON-RPC client over node:http with a keep-alive Agent. */
export class RpcClient {
  readonly target: URL;
  private readonly agent: http.Agent;
  private readonly timeoutMs: number;
  private nextId = 1;

  constructor(url: string, opts: { maxSockets?: number; timeoutMs?: number } = {}) {
    this.target = new URL(url);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 8, scheduling: 'lifo' });
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  /** POST a pre-encoded body; resolves to the raw response body. */
  post(body: Buffer | string): Promise<Buffer> {
    const buf = typeof body === 'string' ? Buffer.from(body) : body;
    return this.postOnce(buf).catch((err: Error & { code?: string; reused?: boolean }) => {
      // A reused keep-alive socket the server had just closed: safe to retry once.
      if (err.reused && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) return this.postOnce(buf);
      throw err;
    });
  }

  private postOnce(buf: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent: this.agent,
          host: this.target.hostname,
          port: this.target.port || 80,
          path: this.target.pathname + this.target.search,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': buf.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const out = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
            if (res.statusCode !== 200) {
              reject(new Error(`HTTP ${res.statusCode}: ${out.toString('utf8', 0, Math.min(out.length, 300))}`));
            } else resolve(out);
          });
          res.on('error', reject);
        },
      );
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`request timeout after ${this.timeoutMs} ms`)));
      req.on('error', (e: Error & { reused?: boolean }) => {
        e.reused = req.reusedSocket;
        reject(e);
      });
      req.end(buf);
    });
  }

  /** Encode a request body once, for repeated raw posts. */
  encode(method: string, params: unknown[] = []): Buffer {
    return Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  }

  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const id = this.nextId++;
    const raw = await this.post(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    const msg = JSON.parse(raw.toString('utf8')) as RpcResponse;
    if (msg.error) throw new RpcError(method, msg.error.code, msg.error.message ?? 'error', msg.error.data);
    if (!('result' in msg)) throw new RpcError(method, undefined, 'response has neither result nor error');
    return msg.result as T;
  }

  /** Send a batch; returns results in request order, throwing on the first error. */
  async batch(calls: RpcCall[]): Promise<unknown[]> {
    const base = this.nextId;
    this.nextId += calls.length;
    const body = JSON.stringify(
      calls.map((c, i) => ({ jsonrpc: '2.0', id: base + i, method: c.method, params: c.params ?? [] })),
    );
    const msg = JSON.parse((await this.post(body)).toString('utf8')) as RpcResponse[];
    if (!Array.isArray(msg)) throw new Error('batch answer is not an array');
    const byId = new Map(msg.map((m) => [m.id, m]));
    return calls.map((c, i) => {
      const m = byId.get(base + i);
      if (!m) throw new RpcError(c.method, undefined, 'missing from batch answer');
      if (m.error) throw new RpcError(c.method, m.error.code, m.error.message ?? 'error', m.error.data);
      return m.result;
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * Warm the benchmark's own JSON-RPC client before anything is measured: `calls` calls to a stub
 * server in this process. Otherwise the node measured first pays for the client's JIT warm-up (its
 * HTTP and JSON code), and a node answered with more requests (anvil's receipt polls) pays more.
 */
export async function warmClient(calls = 3_000): Promise<void> {
  const answer = Buffer.from('{"jsonrpc":"2.0","id":1,"result":null}');
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const rpc = new RpcClient(`http://127.0.0.1:${port}`);
  try {
    for (let i = 0; i < calls; i++) await rpc.call('eth_getTransactionReceipt', ['0x' + '00'.repeat(32)]);
  } finally {
    rpc.close();
    server.close();
  }
}

// ---------------------------------------------------------------------------
// Statistics

/** Percentile (0..100) of an unsorted sample, nearest-rank on a sorted copy. */
export function percentile(values: ArrayLike<number>, p: number): number {
  const n = values.length;
  if (n === 0) return NaN;
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  const rank = Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1));
  return sorted[rank]!;
}

export function median(values: ArrayLike<number>): number {
  return percentile(values, 50);
}
