/** Starts the anvil binary shipped as a devDependency, for differential tracing tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ANVIL_BIN = fileURLToPath(new URL('../../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', import.meta.url));

export function anvilAvailable(): boolean {
  return process.platform === 'linux' && process.arch === 'x64' && existsSync(ANVIL_BIN);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export class Anvil {
  private id = 1;

  private constructor(
    private readonly proc: ChildProcess,
    readonly url: string,
  ) {}

  static async start(extraArgs: string[] = []): Promise<Anvil> {
    const port = await freePort();
    const args = ['--port', String(port), '--host', '127.0.0.1', '--chain-id', '984', '--hardfork', 'prague', '--base-fee', '0', '--silent', '--steps-tracing', ...extraArgs];
    const proc = spawn(ANVIL_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d) => (stderr += String(d)));
    const anvil = new Anvil(proc, `http://127.0.0.1:${port}`);
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`anvil exited early: ${stderr}`);
      try {
        await anvil.request('eth_chainId', []);
        return anvil;
      } catch {
        if (Date.now() > deadline) {
          proc.kill();
          throw new Error(`anvil did not start: ${stderr}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  async request(method: string, params: unknown[]): Promise<any> {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: this.id++, method, params }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      this.proc.once('exit', () => resolve());
      this.proc.kill('SIGTERM');
    });
  }
}

/** Paths at which two JSON values differ (`[]` when equal). */
export function jsonDiff(a: unknown, b: unknown, path = '$', out: string[] = [], max = 20): string[] {
  if (out.length >= max) return out;
  if (a === b) return out;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    out.push(`${path}: ${JSON.stringify(a)?.slice(0, 200)} != ${JSON.stringify(b)?.slice(0, 200)}`);
    return out;
  }
  if (Array.isArray(a) !== Array.isArray(b)) {
    out.push(`${path}: array/object mismatch`);
    return out;
  }
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) out.push(`${path}: length ${a.length} != ${bb.length}`);
    for (let i = 0; i < Math.min(a.length, bb.length); i++) jsonDiff(a[i], bb[i], `${path}[${i}]`, out, max);
    return out;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
    if (!(k in ao)) out.push(`${path}.${k}: missing != ${JSON.stringify(bo[k])?.slice(0, 200)}`);
    else if (!(k in bo)) out.push(`${path}.${k}: ${JSON.stringify(ao[k])?.slice(0, 200)} != missing`);
    else jsonDiff(ao[k], bo[k], `${path}.${k}`, out, max);
    if (out.length >= max) break;
  }
  return out;
}
