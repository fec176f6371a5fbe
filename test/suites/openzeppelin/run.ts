/**
 * OpenZeppelin Contracts' own Hardhat 2 test suite against node-rpc over HTTP, and against a
 * baseline (the hardhat node over HTTP, or hardhat's in-process network), from a checkout given
 * with --dir. Nothing of the suite is part of this repository.
 *
 *   npm run test:oz -- --dir <checkout> [--target node-rpc,hardhat-node,hardhat,anvil] [--grep TEXT]
 *                      [--report] [test files…]
 *
 * Installs the checkout's packages (npm ci, once), solc-js of its configured version (once) and
 * compiles (hardhat's cache). node-rpc gets the flags the project's hardhat network implies
 * (hardfork, allowUnlimitedContractSize, accounts, chain id, gas limit, base fee) where node-rpc
 * has them. Each run's tests go to <checkout>/.node-rpc/results-<target>[-subset].jsonl; then it
 * prints `N passed, M failed` per target, the failures by file and by error, and the tests that
 * passed on the baseline (hardhat-node, else hardhat) but failed on node-rpc. `--report` prints
 * from the saved results without running.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compile, prepare, projectConfig, readResults, runTests, SCRATCH, startServer, WRAPPER, type ProjectConfig, type Server, type TestLine } from '../hardhatProject.js';
import { anvilBinary } from '../../support/anvil.js';
import { countLine, failureReport, regressions } from '../summary.js';

const BIN = fileURLToPath(new URL('../../../../bin/node-rpc.js', import.meta.url));
const TARGETS = ['node-rpc', 'hardhat-node', 'hardhat', 'anvil'] as const;
type Target = (typeof TARGETS)[number];

const USAGE = 'usage: npm run test:oz -- --dir <checkout> [--target node-rpc,hardhat-node,hardhat,anvil] [--grep TEXT] [--report] [test files…]';

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
    s.on('error', fail);
  });
}

/** node-rpc's flags for what the project's hardhat network sets, where node-rpc has the flag. */
export function nodeRpcFlags(cfg: ProjectConfig, help: string): { flags: string[]; notes: string[] } {
  const flags = ['--silent', '--accounts', String(cfg.accounts), '--chain-id', String(cfg.chainId), '--gas-limit', cfg.blockGasLimit];
  const notes: string[] = [];
  if (cfg.hardfork !== undefined) {
    // The flag's description (wrapped over lines up to the next flag) lists the hardforks node-rpc has.
    const described = /--hardfork[^\n]*(?:\n(?!\s*-)[^\n]*)*/.exec(help)?.[0] ?? '';
    if (new RegExp(`\\b${cfg.hardfork}\\b`).test(described)) flags.push('--hardfork', cfg.hardfork);
    else notes.push(`node-rpc has no hardfork '${cfg.hardfork}': running its default`);
  }
  if (cfg.allowUnlimitedContractSize) {
    if (help.includes('--disable-code-size-limit')) flags.push('--disable-code-size-limit');
    else notes.push('node-rpc has no --disable-code-size-limit: contracts over 24 KiB fail to deploy');
  }
  if (cfg.throwOnTransactionFailures) {
    if (help.includes('--throw-on-transaction-failures')) flags.push('--throw-on-transaction-failures');
    else notes.push('node-rpc has no --throw-on-transaction-failures: a failed transaction is answered with its hash');
  }
  if (cfg.initialBaseFeePerGas !== null) flags.push('--base-fee', cfg.initialBaseFeePerGas);
  return { flags, notes };
}

async function startTarget(target: Target, dir: string, cfg: ProjectConfig): Promise<Server | undefined> {
  if (target === 'hardhat') return undefined;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  if (target === 'hardhat-node') return startServer(join(dir, 'node_modules', '.bin', 'hardhat'), ['--config', WRAPPER, 'node', '--port', String(port)], dir, url);
  if (target === 'anvil') {
    // For comparison: anvil with the same settings (it has no way to answer a failed transaction with an error).
    const flags = ['--port', String(port), '--silent', '--accounts', String(cfg.accounts), '--chain-id', String(cfg.chainId), '--gas-limit', cfg.blockGasLimit];
    if (cfg.hardfork !== undefined) flags.push('--hardfork', cfg.hardfork);
    if (cfg.allowUnlimitedContractSize) flags.push('--disable-code-size-limit');
    if (cfg.initialBaseFeePerGas !== null) flags.push('--base-fee', cfg.initialBaseFeePerGas);
    console.log(`anvil ${flags.join(' ')}`);
    return startServer(anvilBinary(), flags, dir, url);
  }
  const help = spawnSync(process.execPath, [BIN, 'dev', '--help'], { encoding: 'utf8' }).stdout;
  const { flags, notes } = nodeRpcFlags(cfg, help);
  for (const n of notes) console.log(`note: ${n}`);
  console.log(`node-rpc dev ${flags.join(' ')}`);
  return startServer(process.execPath, [BIN, 'dev', '--port', String(port), ...flags], dir, url);
}

function resultsFile(dir: string, target: Target, subset: boolean): string {
  return join(dir, SCRATCH, `results-${target}${subset ? '-subset' : ''}.jsonl`);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { dir: { type: 'string' }, target: { type: 'string', default: 'node-rpc' }, grep: { type: 'string' }, report: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return void console.log(USAGE);
  if (values.dir === undefined) throw new Error(`--dir is required\n${USAGE}`);
  const dir = resolve(values.dir);
  const targets = values.target.split(',').map((t) => t.trim());
  for (const t of targets) if (!(TARGETS as readonly string[]).includes(t)) throw new Error(`--target: unknown '${t}' (one of ${TARGETS.join(', ')})`);
  const subset = values.grep !== undefined || positionals.length > 0;

  const results = new Map<Target, TestLine[]>();
  if (!values.report) {
    prepare(dir);
    const cfg = projectConfig(dir);
    console.log(`project config: ${JSON.stringify(cfg)}`);
    compile(dir, cfg.solc);
    for (const target of targets as Target[]) {
      const started = Date.now();
      console.log(`\n=== ${target} ===`);
      const server = await startTarget(target, dir, cfg);
      try {
        results.set(target, runTests(dir, server?.url, resultsFile(dir, target, subset), { grep: values.grep, files: positionals }));
      } finally {
        await server?.stop();
      }
      console.log(`${target}: ${Math.round((Date.now() - started) / 1000)} s`);
    }
  }
  // A baseline not run now is its last full run (a subset of node-rpc is compared with the tests it ran).
  for (const t of TARGETS) if (!results.has(t)) results.set(t, readResults(resultsFile(dir, t, subset && t === 'node-rpc')));

  console.log('');
  for (const [t, lines] of results) if (lines.length) console.log(countLine(t, lines));
  const ours = results.get('node-rpc')!;
  if (ours.length) console.log(['', 'node-rpc', ...failureReport(ours)].join('\n'));
  const [baseName, base] = (['hardhat-node', 'hardhat'] as const).map((t) => [t, results.get(t)!] as const).find(([, l]) => l.length) ?? [];
  if (ours.length && base) {
    const { failed, missing } = regressions(base, ours);
    console.log(`\npassed on ${baseName}, failed on node-rpc: ${failed.length}`);
    if (failed.length) console.log(failureReport(failed).join('\n'));
    for (const t of failed) console.log(`  ${t.file} :: ${t.title}\n      ${(t.error ?? '').split('\n')[0]!.slice(0, 200)}`);
    if (!subset) {
      console.log(`passed on ${baseName}, not run on node-rpc (a hook failed before them): ${missing.length}`);
      for (const t of missing.slice(0, 50)) console.log(`  ${t.file} :: ${t.title}`);
    }
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(2);
});
