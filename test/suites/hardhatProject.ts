/**
 * A Hardhat 2 project's own test suite run against a JSON-RPC node over HTTP, the way its users
 * run it: `hardhat test --network <url>`. The project's config is kept as it is; a small wrapper
 * config beside it (written here) adds the network and takes solc-js from npm instead of a
 * compiler download, and a mocha reporter (written here) records every test as one JSON line.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const WRAPPER = 'hardhat.node-rpc.config.js';
/** Scratch folder inside the project: solc-js installs, reporter, results. */
export const SCRATCH = '.node-rpc';

const WRAPPER_TEXT = `// Written by node-rpc's suite runner: the project's own config, plus a network served over HTTP
// (NODE_RPC_URL) and a compile override taking solc-js from ${SCRATCH}/solc-<version> (no download).
const fs = require('fs');
const path = require('path');
const { subtask, task } = require('hardhat/config');
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require('hardhat/builtin-tasks/task-names');

subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args, hre, runSuper) => {
  const dir = path.join(__dirname, '${SCRATCH}', 'solc-' + args.solcVersion, 'node_modules', 'solc');
  if (!fs.existsSync(dir)) return runSuper();
  const solc = require(dir);
  return { compilerPath: path.join(dir, 'soljson.js'), isSolcJs: true, version: args.solcVersion, longVersion: solc.version() };
});

task('node-rpc:config', 'print what the suite runner needs to know of this config', async (args, hre) => {
  const h = hre.config.networks.hardhat;
  console.log(JSON.stringify({
    solc: [...new Set([...hre.config.solidity.compilers, ...Object.values(hre.config.solidity.overrides)].map((c) => c.version))],
    hardfork: h.hardfork,
    allowUnlimitedContractSize: h.allowUnlimitedContractSize,
    initialBaseFeePerGas: h.initialBaseFeePerGas === undefined ? null : String(h.initialBaseFeePerGas),
    blockGasLimit: String(h.blockGasLimit),
    accounts: Array.isArray(h.accounts) ? h.accounts.length : h.accounts.count,
    chainId: h.chainId,
    throwOnTransactionFailures: h.throwOnTransactionFailures,
  }));
});

const config = require('./hardhat.config.js');
config.networks = config.networks ?? {};
if (process.env.NODE_RPC_URL) config.networks.noderpc = { url: process.env.NODE_RPC_URL, timeout: 120000 };
if (process.env.NODE_RPC_RESULTS) config.mocha = { ...config.mocha, reporter: path.join(__dirname, '${SCRATCH}', 'reporter.cjs') };
module.exports = config;
`;

const REPORTER_TEXT = `// Written by node-rpc's suite runner: one JSON line per test (and per failed hook) into
// NODE_RPC_RESULTS, a failure line on stdout as it happens, a count every 250 tests.
const fs = require('fs');
const path = require('path');
const Mocha = require('mocha');
const { EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING, EVENT_RUN_END } = Mocha.Runner.constants;
const out = process.env.NODE_RPC_RESULTS;
const root = path.dirname(__dirname);
module.exports = class LineReporter extends Mocha.reporters.Base {
  constructor(runner, options) {
    super(runner, options);
    fs.writeFileSync(out, '');
    let n = 0, failed = 0;
    const write = (test, state, err) => {
      const file = test.file ? path.relative(root, test.file) : (test.parent && test.parent.file ? path.relative(root, test.parent.file) : '?');
      const line = { file, title: test.fullTitle(), state, hook: test.type === 'hook', ms: test.duration };
      if (err) line.error = String((err && err.message) || err).slice(0, 2000);
      fs.appendFileSync(out, JSON.stringify(line) + '\\n');
      if (++n % 250 === 0) console.log('  ' + n + ' tests, ' + failed + ' failed');
    };
    runner.on(EVENT_TEST_PASS, (t) => write(t, 'passed'));
    runner.on(EVENT_TEST_PENDING, (t) => write(t, 'pending'));
    runner.on(EVENT_TEST_FAIL, (t, err) => {
      failed++;
      console.log('  FAIL ' + t.fullTitle() + ': ' + String((err && err.message) || err).split('\\n')[0].slice(0, 200));
      write(t, 'failed', err);
    });
    runner.once(EVENT_RUN_END, () => console.log('  done: ' + n + ' tests, ' + failed + ' failed'));
  }
};
`;

export interface TestLine {
  file: string;
  title: string;
  state: 'passed' | 'failed' | 'pending';
  hook: boolean;
  ms?: number;
  error?: string;
}

export interface ProjectConfig {
  solc: string[];
  hardfork?: string;
  allowUnlimitedContractSize?: boolean;
  initialBaseFeePerGas: string | null;
  blockGasLimit: string;
  accounts: number;
  chainId: number;
  throwOnTransactionFailures?: boolean;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): void {
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

const hardhat = (dir: string) => join(dir, 'node_modules', '.bin', 'hardhat');

/** Write the wrapper config and the reporter into the project; install its packages once. */
export function prepare(dir: string): void {
  if (!existsSync(join(dir, 'hardhat.config.js'))) throw new Error(`${dir} has no hardhat.config.js (a Hardhat 2 project is expected)`);
  mkdirSync(join(dir, SCRATCH), { recursive: true });
  writeFileSync(join(dir, WRAPPER), WRAPPER_TEXT);
  writeFileSync(join(dir, SCRATCH, 'reporter.cjs'), REPORTER_TEXT);
  if (!existsSync(hardhat(dir))) run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], dir);
}

/** What the project's config says: compilers, and its hardhat network (hardfork, size limit, …). */
export function projectConfig(dir: string): ProjectConfig {
  const r = spawnSync(hardhat(dir), ['--config', WRAPPER, 'node-rpc:config'], { cwd: dir, encoding: 'utf8' });
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  if (r.status !== 0 || line === undefined) throw new Error(`reading the hardhat config failed: ${r.stderr}`);
  return JSON.parse(line) as ProjectConfig;
}

/** Install solc-js of each configured version from npm (once), then `hardhat compile`. */
export function compile(dir: string, versions: string[]): void {
  for (const v of versions) {
    const at = join(dir, SCRATCH, `solc-${v}`);
    if (existsSync(join(at, 'node_modules', 'solc', 'soljson.js'))) continue;
    mkdirSync(at, { recursive: true });
    writeFileSync(join(at, 'package.json'), '{"private":true}\n');
    run('npm', ['install', '--no-audit', '--no-fund', `solc@${v}`], at);
  }
  run(hardhat(dir), ['--config', WRAPPER, 'compile'], dir);
}

export interface Server {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** Spawn a server that will listen on `url`, and wait until it answers `eth_chainId` there. */
export async function startServer(cmd: string, args: string[], cwd: string, url: string, timeoutMs = 120_000): Promise<Server> {
  const proc = spawn(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => {
    if (err.length < 20_000) err += d.toString('utf8');
  });
  const exited = once(proc, 'exit');
  const deadline = Date.now() + timeoutMs;
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${cmd} exited early (${proc.exitCode}): ${err}`);
    const ok = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`${cmd} did not answer on ${url}: ${err}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    proc,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** `hardhat test` against `url` (or the in-process network when undefined); returns its lines. */
export function runTests(dir: string, url: string | undefined, resultsFile: string, opts: { grep?: string; files: string[] }): TestLine[] {
  rmSync(resultsFile, { force: true });
  const args = ['--config', WRAPPER, 'test', '--no-compile', '--network', url === undefined ? 'hardhat' : 'noderpc'];
  if (opts.grep !== undefined) args.push('--grep', opts.grep);
  args.push(...opts.files);
  const env: NodeJS.ProcessEnv = { NODE_RPC_RESULTS: resultsFile };
  if (url !== undefined) env.NODE_RPC_URL = url;
  const r = spawnSync(hardhat(dir), args, { cwd: dir, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.error) throw r.error;
  return readResults(resultsFile);
}

export function readResults(file: string): TestLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TestLine);
}
