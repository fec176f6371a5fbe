/** What the coverage tests share: running the fixtures' tools, reading Istanbul JSON, gas from receipts. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { toFunctionSelector } from 'viem';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const HARDHAT_PROJECT = `${ROOT}fixtures/coverage/hardhat`;
export const FOUNDRY_PROJECT = `${ROOT}fixtures/coverage/foundry`;
export const HARDHAT = `${ROOT}node_modules/hardhat/internal/cli/bootstrap.js`;
export const NYC = `${ROOT}node_modules/nyc/bin/nyc.js`;

export function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}, timeout = 300_000): Promise<{ code: number; out: string }> {
  // A test runner started from a test runs on its own, not as this one's child.
  const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, timeout, maxBuffer: 64 * 1024 * 1024, env: { ...inherited, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', FORCE_COLOR: '0', NO_COLOR: '1', ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

export const hardhat = (task: string[], env: Record<string, string> = {}) => run(process.execPath, [HARDHAT, ...task], HARDHAT_PROJECT, env);

interface Loc {
  start: { line: number; column: number };
}
export interface FileCoverage {
  path: string;
  statementMap: Record<string, Loc>;
  fnMap: Record<string, { name: string; line: number }>;
  branchMap: Record<string, { line: number; type: string }>;
  s: Record<string, number>;
  f: Record<string, number>;
  b: Record<string, number[]>;
}

/** One file's coverage by its path's last part. */
export function fileOf(json: Record<string, FileCoverage>, name: string): FileCoverage {
  const key = Object.keys(json).find((k) => k.endsWith('/' + name) || k === name);
  if (key === undefined) throw new Error(`no ${name} in ${Object.keys(json).join(', ')}`);
  return json[key]!;
}

/** Calls of each function, by name (`Bank.deposit`). */
export const functionHits = (f: FileCoverage): Record<string, number> => Object.fromEntries(Object.entries(f.fnMap).map(([k, fn]) => [fn.name, f.f[k]!]));

/** Branches as `line:type` → their sides' counts, in source order. */
export const branchHits = (f: FileCoverage): Array<[string, number[]]> => Object.entries(f.branchMap).map(([k, b]) => [`${b.line}:${b.type}`, f.b[k]!]);

/** Lines with a statement and whether one ran. */
export function lineHits(f: FileCoverage): Map<number, boolean> {
  const lines = new Map<number, boolean>();
  for (const [k, loc] of Object.entries(f.statementMap)) lines.set(loc.start.line, (lines.get(loc.start.line) ?? false) || f.s[k]! > 0);
  return lines;
}

type Rpc = (method: string, params?: unknown[]) => Promise<any>;

/** Every mined transaction's receipt gas: by `to` and selector, and the deployments by address. */
export async function receiptsGas(rpc: Rpc): Promise<{ calls: Map<string, number[]>; deployments: Map<string, number> }> {
  const calls = new Map<string, number[]>();
  const deployments = new Map<string, number>();
  const head = Number(await rpc('eth_blockNumber'));
  for (let n = 1; n <= head; n++) {
    const block = await rpc('eth_getBlockByNumber', ['0x' + n.toString(16), true]);
    for (const tx of block.transactions) {
      const r = await rpc('eth_getTransactionReceipt', [tx.hash]);
      if (r.status !== '0x1') continue;
      if (r.contractAddress) deployments.set(r.contractAddress.toLowerCase(), Number(r.gasUsed));
      else {
        const key = `${tx.to.toLowerCase()}:${tx.input.slice(0, 10)}`;
        calls.set(key, [...(calls.get(key) ?? []), Number(r.gasUsed)]);
      }
    }
  }
  return { calls, deployments };
}

export const selector = (signature: string) => toFunctionSelector(signature);
