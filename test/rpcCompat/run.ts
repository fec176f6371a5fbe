/**
 * The execution-apis conformance suite (`rpc-compat`), run as hive's rpc-compat simulator runs it:
 * the node starts on the suite's genesis.json with mining off and imports its chain.rlp (the
 * `node-rpc dev` command, `--init` and `--import`), then each test file's requests are sent in
 * order on one WebSocket connection and each answer is compared with the expected one as JSON.
 * The node runs with geth's RPC gas cap (50,000,000; node-rpc's default is the block gas limit
 * when that is larger), which the expected answers show as the gas of calls that name none. As
 * hive does, when both the answer and the expected response are errors their messages are not
 * compared (codes are), and a `speconly` test checks only that an answer of the expected kind
 * (result or error) came. The suite comes from ../shared/rpc-compat/execution-apis-rpc-compat.tgz
 * beside the checkout, unpacked once per version of the archive (as the consensus gate unpacks
 * its archives).
 *
 * `node dist/test/rpcCompat/run.js [--only TEXT] [--shared DIR]` (DIR: the folder holding the
 * archive, by default ../shared/rpc-compat beside the checkout) prints each failure with its first difference,
 * the pass count per method, and exits non-zero when a test fails that `KNOWN` does not list, or
 * a test `KNOWN` lists passes (the list stays what the README says).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { startCli, type CliNode } from '../support/cli.js';
import { unpacked } from '../consensus/run.js';
import { KNOWN } from './known.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SHARED = join(ROOT, '..', 'shared', 'rpc-compat');
const ARCHIVE = 'execution-apis-rpc-compat.tgz';

/** The suite's folder (genesis.json, chain.rlp, one folder of .io files per method), unpacked from `shared` into `into`. */
export function suiteDir(shared = SHARED, into = tmpdir()): string {
  const archive = join(shared, ARCHIVE);
  if (!existsSync(archive)) throw new Error(`the rpc-compat archive is missing: expected ../shared/rpc-compat/${ARCHIVE} beside the checkout`);
  const dir = unpacked(archive, 'rpc-compat', into);
  return existsSync(join(dir, 'rpc-compat')) ? join(dir, 'rpc-compat') : dir;
}

/** One request and the response it must get. */
export interface Exchange {
  request: string;
  expected: string;
}

export interface TestFile {
  /** `method/name` (the file's path without `.io`). */
  name: string;
  method: string;
  speconly: boolean;
  exchanges: Exchange[];
}

/** Every test file of the suite, sorted by method then name. */
export function testFiles(dir: string): TestFile[] {
  const out: TestFile[] = [];
  for (const method of readdirSync(dir).sort()) {
    const folder = join(dir, method);
    if (!statSync(folder).isDirectory()) continue;
    for (const file of readdirSync(folder).sort()) {
      if (!file.endsWith('.io')) continue;
      out.push(parseTest(`${method}/${file.slice(0, -3)}`, method, readFileSync(join(folder, file), 'utf8')));
    }
  }
  return out;
}

/** A test file: `//` comments (`// speconly:` marks a test whose answers are checked only for their kind), `>>` requests, `<<` responses. */
export function parseTest(name: string, method: string, text: string): TestFile {
  const test: TestFile = { name, method, speconly: false, exchanges: [] };
  let request: string | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('//')) {
      if (/^\/\/\s*speconly:/.test(line)) test.speconly = true;
    } else if (line.startsWith('>> ')) {
      request = line.slice(3);
    } else if (line.startsWith('<< ')) {
      if (request === undefined) throw new Error(`${name}: a response with no request before it`);
      test.exchanges.push({ request, expected: line.slice(3) });
      request = undefined;
    }
  }
  return test;
}

/** The first difference between `got` and `want` as `path: got … want …`, or undefined when they are equal as JSON. */
export function difference(got: unknown, want: unknown, path = ''): string | undefined {
  if (Array.isArray(want) && Array.isArray(got)) {
    for (let i = 0; i < Math.max(got.length, want.length); i++) {
      if (i >= got.length) return `${path}[${i}]: missing, want ${short(want[i])}`;
      if (i >= want.length) return `${path}[${i}]: not expected, got ${short(got[i])}`;
      const d = difference(got[i], want[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (isObject(want) && isObject(got)) {
    // Hashes last: a block's hash differs whenever one of its fields does, which is the cause to name.
    const keys = Object.keys(want).sort((a, b) => Number(/hash$/i.test(a)) - Number(/hash$/i.test(b)) || a.localeCompare(b));
    for (const key of keys) {
      if (!(key in got)) return `${path}.${key}: missing, want ${short(want[key])}`;
      const d = difference(got[key], want[key], `${path}.${key}`);
      if (d !== undefined) return d;
    }
    for (const key of Object.keys(got).sort()) if (!(key in want)) return `${path}.${key}: not expected, got ${short(got[key])}`;
    return undefined;
  }
  return got === want ? undefined : `${path || '.'}: got ${short(got)}, want ${short(want)}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

/** Why `answer` does not match `expected` as hive compares them, or undefined when it does. */
export function mismatch(answer: unknown, expected: unknown, speconly: boolean): string | undefined {
  if (!isObject(answer) || !isObject(expected)) return difference(answer, expected);
  if (speconly) {
    if ('error' in expected !== 'error' in answer) return 'error' in answer ? `error ${short(answer.error)}, want a result` : `result ${short(answer.result)}, want an error`;
    return undefined;
  }
  if (isObject(answer.error) && isObject(expected.error)) {
    const { message: _a, ...got } = answer.error;
    const { message: _b, ...want } = expected.error;
    return difference({ ...answer, error: got }, { ...expected, error: want });
  }
  return difference(answer, expected);
}

/** Send each request of `test` in order on one WebSocket connection; the failure of its first mismatching answer, or undefined. */
export async function runTest(wsUrl: string, test: TestFile, timeoutMs = 30_000): Promise<string | undefined> {
  const ws = new WebSocket(wsUrl);
  const answers: string[] = [];
  let wake: (() => void) | undefined;
  ws.on('message', (data) => {
    answers.push(data.toString());
    wake?.();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  try {
    for (const [i, { request, expected }] of test.exchanges.entries()) {
      ws.send(request);
      const deadline = Date.now() + timeoutMs;
      while (answers.length === 0) {
        if (Date.now() > deadline) return `request ${i + 1}: no answer in ${timeoutMs / 1000} s`;
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      }
      const answer = JSON.parse(answers.shift()!) as unknown;
      const why = mismatch(answer, JSON.parse(expected), test.speconly);
      if (why !== undefined) return `request ${i + 1} (${methodOf(request)}): ${why}`;
    }
    return undefined;
  } finally {
    ws.close();
  }
}

function methodOf(request: string): string {
  try {
    return (JSON.parse(request) as { method?: string }).method ?? '?';
  } catch {
    return '?';
  }
}

export interface SuiteResult {
  /** Tests passed and run, by method. */
  byMethod: Map<string, { passed: number; total: number }>;
  /** Failed tests: name and why. */
  failures: Array<{ name: string; why: string }>;
}

/** Start the node on the suite's chain (genesis, import, mining off) and run every test (or those whose name contains `only`). */
export async function runSuite(dir: string, only?: string, log: (line: string) => void = () => {}): Promise<SuiteResult> {
  const node: CliNode = await startCli(['--init', join(dir, 'genesis.json'), '--import', join(dir, 'chain.rlp'), '--no-mining', '--call-workers', '0', '--rpc-gas-cap', '50000000'], 60_000);
  const result: SuiteResult = { byMethod: new Map(), failures: [] };
  try {
    const wsUrl = node.url.replace(/^http/, 'ws');
    for (const test of testFiles(dir)) {
      if (only !== undefined && !test.name.includes(only)) continue;
      const counts = result.byMethod.get(test.method) ?? { passed: 0, total: 0 };
      result.byMethod.set(test.method, counts);
      counts.total++;
      const why = await runTest(wsUrl, test);
      if (why === undefined) counts.passed++;
      else {
        result.failures.push({ name: test.name, why });
        log(`FAIL ${test.name}: ${why}`);
      }
    }
  } finally {
    await node.stop();
  }
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { only: { type: 'string' }, shared: { type: 'string' } } });
  const dir = suiteDir(values.shared);
  const { byMethod, failures } = await runSuite(dir, values.only, (l) => process.stdout.write(l + '\n'));
  let passed = 0;
  let total = 0;
  for (const [method, c] of [...byMethod].sort()) {
    passed += c.passed;
    total += c.total;
    process.stdout.write(`${method.padEnd(42)} ${c.passed}/${c.total}\n`);
  }
  const failed = new Set(failures.map((f) => f.name));
  const unexpected = failures.filter((f) => KNOWN[f.name] === undefined);
  const fixed = Object.keys(KNOWN).filter((name) => !failed.has(name) && (values.only === undefined || name.includes(values.only)));
  for (const f of unexpected) process.stdout.write(`UNEXPECTED FAILURE ${f.name}: ${f.why}\n`);
  for (const name of fixed) process.stdout.write(`PASSES BUT LISTED AS KNOWN: ${name} (take it out of test/rpcCompat/known.ts and the README)\n`);
  process.stdout.write(`rpc-compat: ${passed} of ${total} passed; ${failures.length - unexpected.length} known failures, ${unexpected.length} unexpected\n`);
  process.exitCode = unexpected.length === 0 && fixed.length === 0 ? 0 : 1;
}
