/** The `node-rpc` command as a child process, for tests of the CLI itself. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { RpcResponse } from './node.js';

export const BIN = fileURLToPath(new URL('../../../bin/node-rpc.js', import.meta.url));

export const stripAnsi = (s: string): string => s.replace(/\u001b\[[0-9;]*m/g, '');

export interface CliNode {
  proc: ChildProcess;
  url: string;
  /** Everything printed so far, stdout and stderr as they came, colors removed. */
  output(): string;
  /** A JSON-RPC call; the whole response. */
  send(method: string, params?: unknown[]): Promise<RpcResponse>;
  /** A JSON-RPC call; its result (an error response throws). */
  rpc(method: string, params?: unknown[]): Promise<any>;
  /** Send `signal` (SIGTERM unless given) if still running; resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Start `node-rpc dev --port 0 ...args` and wait for the banner's URL. */
export async function startCli(args: string[], timeoutMs = 15_000, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliNode> {
  const proc = spawn(process.execPath, [BIN, 'dev', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: options.cwd, env: options.env && { ...process.env, ...options.env } });
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = once(proc, 'exit');
  const deadline = Date.now() + timeoutMs;
  let banner: RegExpExecArray | null;
  while (!(banner = /Listening on (http:\/\/\S+)/.exec(stripAnsi(out)))) {
    if (proc.exitCode !== null) throw new Error(`node-rpc exited early (${proc.exitCode}): ${out}`);
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`no banner: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const url = banner[1];
  const send = async (method: string, params: unknown[] = []) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return (await res.json()) as RpcResponse;
  };
  return {
    proc,
    url,
    output: () => stripAnsi(out),
    send,
    rpc: async (method, params) => {
      const r = await send(method, params);
      if (r.error) throw new Error(`${method}: ${r.error.message}`);
      return r.result;
    },
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const [code] = await exited;
      return code as number | null;
    },
  };
}
