/** anvil (from its npm package) as a reference node for differential tests: the one launcher, and the one free-port helper. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { tempDir } from './tmp.js';

export function anvilBinary(): string {
  const pkg = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json');
  const bin = join(dirname(pkg), 'bin', 'anvil');
  if (!existsSync(bin)) throw new Error(`anvil binary missing at ${bin}`);
  return bin;
}

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface Anvil {
  url: string;
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
  raw(method: string, params?: unknown[]): Promise<{ result?: any; error?: { code: number; message: string; data?: unknown } }>;
  close(): Promise<void>;
}

/** Start anvil on a free port with chain id 984 (unless `args` name one) and the standard dev accounts. */
export async function startAnvil(args: string[] = []): Promise<Anvil> {
  const port = await freePort();
  const chainId = args.includes('--chain-id') ? [] : ['--chain-id', '984'];
  // A home of its own, removed when it exits: anvil keeps old blocks' states under ~/.foundry/anvil/tmp
  // and removes them only on a graceful exit, which SIGTERM is not.
  const home = tempDir('node-rpc-anvil-home-');
  const child: ChildProcess = spawn(anvilBinary(), ['--port', String(port), '--host', '127.0.0.1', ...chainId, '--silent', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, HOME: home },
  });
  child.once('exit', () => rmSync(home, { recursive: true, force: true }));
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const url = `http://127.0.0.1:${port}`;
  let id = 1;
  const raw = async (method: string, params: unknown[] = []) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }) });
    return (await res.json()) as { result?: any; error?: { code: number; message: string; data?: unknown } };
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited early: ${stderr}`);
    try {
      await raw('eth_chainId');
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill();
        throw new Error(`anvil did not start: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 30));
    }
  }
  return {
    url,
    raw,
    async rpc(method, params = []) {
      const r = await raw(method, params);
      if (r.error) throw Object.assign(new Error(r.error.message), r.error);
      return r.result;
    },
    async close() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}
