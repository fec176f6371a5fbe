/**
 * The consensus gate: every case of the ethereum/tests GeneralStateTests (in the shared
 * conformance folder beside the checkout) whose post state's fork the node offers, on the node's
 * engine with that fork's rules, untraced and traced. The shared archive holds Cancun post states;
 * files with Prague or Osaka post states (ethereum/tests, or execution-spec-tests' state_tests,
 * same format) run as soon as they are in it, or from any folder given with `--tests`.
 *
 *   node dist/test/consensus/run.js [--sample N] [--mode untraced|traced|both] [--workers N] [--only TEXT] [--progress]
 *                                   [--fuzz PROGRAMS] [--seed S] [--skip-slow] [--fork NAMES] [--tests DIR] [--help]
 *
 * `--fork NAMES` (comma-separated, any case) runs only the post states of those forks.
 * `--tests DIR` reads the state test files under DIR instead of the shared archive.
 * `--skip-slow` leaves out the files listed in slow.ts (minutes each here).
 * `--fuzz PROGRAMS` then runs the traced = untraced differential (fuzz.ts) on that many generated
 * programs, split over the workers with seeds S, S+1, …, and prints `fuzz: …`.
 * `--sample N` runs every N-th case (a deterministic tenth with 10). Prints each failure and ends
 * with `consensus: N passed, M failed`; exits 1 on any failure.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { differential, type Mismatch } from './fuzz.js';
import { isSlow } from './slow.js';
import { HARDFORKS, type SupportedHardfork } from '../../src/chain/core/config.js';
import { cases, hardforkOf, runCase, type CaseResult, type StateTestJson } from './stateTest.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * The shared conformance folder: `../shared/conformance` beside the checkout, or the folder
 * NODE_RPC_CONFORMANCE names.
 */
const SHARED = process.env.NODE_RPC_CONFORMANCE || join(ROOT, '..', 'shared', 'conformance');

/** Why the state tests cannot run here (the shared archive is missing), or undefined when they can. */
export function archiveMissing(shared = SHARED): string | undefined {
  if (existsSync(join(shared, 'GeneralStateTests.tgz'))) return undefined;
  const where = shared === SHARED && !process.env.NODE_RPC_CONFORMANCE ? '../shared/conformance/GeneralStateTests.tgz beside the checkout' : join(shared, 'GeneralStateTests.tgz');
  return `the state tests archive is missing: expected ${where}`;
}

/**
 * Unpack `archive` once per version of its content into `into` (the temp folder by default);
 * returns where it went. The version is the content's hash, not the file's time: a conformance
 * folder copied afresh (as each new working session gets it) is the same version and is not
 * unpacked again. A new version takes the place of the last one, so one copy of each archive stays.
 */
export function unpacked(archive: string, name: string, into: string): string {
  const prefix = `node-rpc-state-tests-${name}-`;
  const version = createHash('sha256').update(readFileSync(archive)).digest('hex').slice(0, 16);
  const dir = join(into, `${prefix}${version}`);
  if (!existsSync(join(dir, '.unpacked'))) {
    for (const old of readdirSync(into)) if (old.startsWith(prefix) && !old.startsWith(basename(dir))) rmSync(join(into, old), { recursive: true, force: true });
    // Unpacked beside it and renamed into place: a run that starts meanwhile never reads half a copy.
    const part = mkdtempSync(`${dir}.part-`);
    execFileSync('tar', ['-xzf', archive, '-C', part]);
    writeFileSync(join(part, '.unpacked'), '');
    try {
      renameSync(part, dir);
    } catch {
      // Taken: by another run's complete copy (kept), or by a copy left half done (replaced).
      if (!existsSync(join(dir, '.unpacked'))) {
        rmSync(dir, { recursive: true, force: true });
        renameSync(part, dir);
      } else rmSync(part, { recursive: true, force: true });
    }
  }
  return dir;
}

/** The ethereum/tests GeneralStateTests folder, from the shared archive (of `shared`, a conformance folder; unpacked into `into`). */
export function testsDir(shared = SHARED, into = tmpdir()): string {
  const archive = join(shared, 'GeneralStateTests.tgz');
  const missing = archiveMissing(shared);
  if (missing) throw new Error(missing);
  return join(unpacked(archive, 'GeneralStateTests', into), 'GeneralStateTests');
}

/**
 * Every folder of state tests the shared conformance folder holds: GeneralStateTests, then each
 * other archive there (`*.tgz`, `*.tar.gz`, such as an execution-spec-tests release with the
 * filled tests of newer forks), from its `state_tests` folder when it has one (a release also
 * carries blockchain tests, of another format). Archives are unpacked into `into`.
 */
export function sharedDirs(shared = SHARED, into = tmpdir()): string[] {
  const dirs = [testsDir(shared, into)];
  for (const name of readdirSync(shared).sort()) {
    if (name === 'GeneralStateTests.tgz' || !/\.(tgz|tar\.gz)$/.test(name)) continue;
    const dir = unpacked(join(shared, name), name.replace(/\.(tgz|tar\.gz)$/, ''), into);
    dirs.push(findFolder(dir, 'state_tests') ?? dir);
  }
  return dirs;
}

/** The first folder named `name` at or below `dir` (breadth first), if any. */
function findFolder(dir: string, name: string): string | undefined {
  let level = [dir];
  while (level.length) {
    const next: string[] = [];
    for (const d of level) {
      for (const entry of readdirSync(d).sort()) {
        const full = join(d, entry);
        if (!statSync(full).isDirectory()) continue;
        if (entry === name) return full;
        next.push(full);
      }
    }
    level = next;
  }
  return undefined;
}

function jsonFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...jsonFiles(full));
    else if (name.endsWith('.json')) out.push(full);
  }
  return out;
}

/** A file's name in reports: its path below the folder of state tests it came from. */
function nameOf(bases: readonly string[], file: string): string {
  return relative(bases.find((b) => file.startsWith(b + sep)) ?? bases[0]!, file);
}

/** One unit of work: one file's cases in one mode. */
interface Unit {
  file: string;
  /** The global number of the file's first case (so a sample is the same however the work is dealt). */
  offset: number;
  traced: boolean;
}

/** What every unit of one run shares. */
interface RunSettings {
  /** The folders of state tests the files come from. */
  bases: string[];
  sample: number;
  /** Print each unit as it ends, with its time and the heap in use (to find a slow or hungry case). */
  progress?: boolean;
  /** Only the post states of these forks (default: every fork the node offers). */
  forks?: SupportedHardfork[];
}

/** A line on stderr now (a worker's process.stderr is flushed only when its event loop turns). */
const say = (line: string) => writeSync(2, line + '\n');

/** Run one unit; the case numbering is global so a sample is the same however the work is dealt. */
async function runUnit(unit: Unit, settings: RunSettings): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  const name = nameOf(settings.bases, unit.file);
  const started = Date.now();
  const json = JSON.parse(readFileSync(unit.file, 'utf8')) as Record<string, StateTestJson>;
  let n = unit.offset;
  for (const c of cases(name, json, forkSet(settings.forks))) {
    if (n++ % settings.sample !== 0) continue;
    let r: CaseResult;
    try {
      r = await runCase(c, unit.traced);
      if (unit.traced) r = { ...r, id: `${r.id} (traced)` };
    } catch (err) {
      r = { id: `${c.id}${unit.traced ? ' (traced)' : ''}`, fork: c.fork, ok: false, reason: `threw: ${(err as Error).message.split('\n')[0]}` };
    }
    if (!r.ok) say(`FAIL ${r.id}: ${r.reason}`);
    results.push(r);
  }
  if (settings.progress) say(`${((Date.now() - started) / 1000).toFixed(1)} s ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MiB ${name}${unit.traced ? ' (traced)' : ''}`);
  return results;
}

const forkSet = (forks: SupportedHardfork[] | undefined) => (forks === undefined ? undefined : new Set(forks));

/** Count a file's cases without running them (for the global numbering). */
function caseCount(file: string, bases: string[], forks: SupportedHardfork[] | undefined): number {
  return cases(nameOf(bases, file), JSON.parse(readFileSync(file, 'utf8')), forkSet(forks)).length;
}

export interface GateOptions {
  sample: number;
  traced: boolean[];
  workers: number;
  only?: string;
  progress?: boolean;
  skipSlow?: boolean;
  forks?: SupportedHardfork[];
  /** A folder of state test files to run instead of the shared archives. */
  dir?: string;
  /** The conformance folder whose archives are run (default: ../shared/conformance beside the checkout). */
  shared?: string;
  /** Where its archives are unpacked (default: the temp folder). */
  unpackInto?: string;
  log?: (line: string) => void;
}

/**
 * Deal the units to `workers` worker threads from one queue, each taking the next unit when it is
 * done. The slow files go first, largest first, each mode a unit of its own, so the run ends when
 * the work does rather than when the unluckiest share of files does.
 */
export async function runGate(options: GateOptions): Promise<{ passed: number; failed: CaseResult[]; byFork: Map<string, { passed: number; failed: number }> }> {
  const bases = options.dir !== undefined ? [options.dir] : sharedDirs(options.shared, options.unpackInto);
  const files = bases.flatMap((b) => jsonFiles(b)).filter((f) => options.only === undefined || f.includes(options.only));
  const settings: RunSettings = { bases, sample: options.sample, progress: options.progress, forks: options.forks };
  const units: Array<Unit & { first: boolean; size: number }> = [];
  let offset = 0;
  for (const file of files) {
    const slow = isSlow(nameOf(bases, file));
    if (!(slow && options.skipSlow)) {
      for (const traced of options.traced) units.push({ file, offset, traced, first: slow, size: statSync(file).size });
    }
    offset += caseCount(file, bases, options.forks);
  }
  const queue = [...units.filter((u) => u.first).sort((a, b) => b.size - a.size), ...units.filter((u) => !u.first)];
  const all: CaseResult[] = [];
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(options.workers, queue.length)) }, () =>
      new Promise<void>((resolve, reject) => {
        const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { settings } satisfies GateWorker });
        const next = () => {
          const unit = queue.shift();
          if (unit === undefined) {
            void worker.terminate().then(() => resolve());
            return;
          }
          worker.postMessage({ file: unit.file, offset: unit.offset, traced: unit.traced } satisfies Unit);
        };
        worker.on('message', (results: CaseResult[]) => {
          all.push(...results);
          next();
        });
        worker.once('error', reject);
        next();
      }),
    ),
  );
  const failed = all.filter((r) => !r.ok);
  for (const f of failed) options.log?.(`FAIL ${f.id}: ${f.reason}`);
  const byFork = new Map<string, { passed: number; failed: number }>();
  for (const r of all) {
    const counts = byFork.get(r.fork ?? '?') ?? { passed: 0, failed: 0 };
    if (r.ok) counts.passed++;
    else counts.failed++;
    byFork.set(r.fork ?? '?', counts);
  }
  return { passed: all.length - failed.length, failed, byFork };
}

/** A gate worker's data: it then runs each unit it is sent and answers with the unit's results. */
interface GateWorker {
  settings: RunSettings;
}

interface FuzzJob {
  fuzz: { seed: number; programs: number };
}

/** The traced = untraced differential over `programs` programs, split over workers with consecutive seeds. */
export async function runFuzz(programs: number, seed: number, workers: number): Promise<{ transactions: number; mismatches: Mismatch[] }> {
  const parts = await Promise.all(
    Array.from({ length: workers }, (_, w) => {
      const share = Math.floor(programs / workers) + (w < programs % workers ? 1 : 0);
      return new Promise<{ transactions: number; mismatch?: Mismatch }>((resolve, reject) => {
        const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { fuzz: { seed: seed + w, programs: share } } satisfies FuzzJob });
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    }),
  );
  return { transactions: parts.reduce((a, p) => a + p.transactions, 0), mismatches: parts.flatMap((p) => (p.mismatch ? [p.mismatch] : [])) };
}

if (!isMainThread) {
  const job = workerData as GateWorker | FuzzJob;
  if ('fuzz' in job) parentPort!.postMessage(await differential(job.fuzz.seed, job.fuzz.programs));
  else parentPort!.on('message', (unit: Unit) => void runUnit(unit, job.settings).then((results) => parentPort!.postMessage(results)));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const opts = options();
  const traced = opts.mode === 'both' ? [false, true] : [opts.mode === 'traced'];
  const started = Date.now();
  const { passed, failed, byFork } = await runGate({ sample: opts.sample, traced, workers: opts.workers, only: opts.only, progress: opts.progress, skipSlow: opts.skipSlow, forks: opts.forks, dir: opts.tests, log: (l) => process.stdout.write(l + '\n') });
  const perFork = [...byFork].map(([fork, c]) => `${fork} ${c.passed} passed, ${c.failed} failed`).join('; ');
  process.stdout.write(`(${((Date.now() - started) / 1000).toFixed(0)} s${perFork ? `; ${perFork}` : ''})\n`);
  const { fuzz: programs, seed } = opts;
  let mismatched = 0;
  if (programs > 0) {
    const fuzzStarted = Date.now();
    const { transactions, mismatches } = await runFuzz(programs, seed, opts.workers);
    const show = (v: unknown) => (typeof v === 'bigint' ? v.toString() : JSON.stringify(v));
    for (const m of mismatches) process.stdout.write(`FUZZ MISMATCH seed ${m.seed} program ${m.program} gas ${m.gas}: ${m.field} untraced ${show(m.untraced[m.field as keyof typeof m.untraced])} traced ${show(m.traced[m.field as keyof typeof m.traced])}\n`);
    mismatched = mismatches.length;
    process.stdout.write(`fuzz: ${programs} programs from seed ${seed}, ${transactions} transactions traced and untraced, ${mismatched} mismatched (${((Date.now() - fuzzStarted) / 1000).toFixed(0)} s)\n`);
  }
  process.stdout.write(`consensus: ${passed} passed, ${failed.length} failed\n`);
  process.exitCode = failed.length === 0 && mismatched === 0 ? 0 : 1;
}

/** The command line, checked: an unknown flag or a bad value ends the run with its usage, before any case runs. */
function options() {
  const usage = 'usage: node dist/test/consensus/run.js [--sample N] [--mode untraced|traced|both] [--workers N] [--only TEXT] [--progress] [--skip-slow] [--fuzz PROGRAMS] [--seed S] [--fork NAMES] [--tests DIR] [--help]';
  const fail = (message: string): never => {
    process.stderr.write(`${message}\n${usage}\n`);
    process.exit(2);
  };
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        sample: { type: 'string', default: '1' },
        mode: { type: 'string', default: 'both' },
        workers: { type: 'string', default: '2' },
        only: { type: 'string' },
        progress: { type: 'boolean', default: false },
        'skip-slow': { type: 'boolean', default: false },
        fuzz: { type: 'string', default: '0' },
        seed: { type: 'string', default: '1000' },
        fork: { type: 'string' },
        tests: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (err) {
    return fail((err as Error).message);
  }
  if (values.help) {
    process.stdout.write(usage + '\n');
    process.exit(0);
  }
  const count = (name: 'sample' | 'workers' | 'fuzz' | 'seed', least: number): number => {
    const n = Number(values[name]);
    if (!Number.isSafeInteger(n) || n < least) fail(`--${name} must be a whole number ≥ ${least}, not ${JSON.stringify(values[name])}`);
    return n;
  };
  const mode = values.mode!;
  if (mode !== 'both' && mode !== 'traced' && mode !== 'untraced') fail(`--mode must be untraced, traced or both, not ${JSON.stringify(mode)}`);
  let forks: SupportedHardfork[] | undefined;
  if (values.fork !== undefined) {
    forks = values.fork.split(',').map((name) => hardforkOf(name) ?? fail(`--fork: unknown fork ${JSON.stringify(name)}; the node offers ${HARDFORKS.join(', ')}`));
  }
  if (values.tests !== undefined && !(existsSync(values.tests) && statSync(values.tests).isDirectory())) fail(`--tests: ${JSON.stringify(values.tests)} is not a folder`);
  return {
    mode,
    forks,
    tests: values.tests,
    sample: count('sample', 1),
    workers: count('workers', 1),
    fuzz: count('fuzz', 0),
    seed: count('seed', 0),
    only: values.only,
    progress: values.progress!,
    skipSlow: values['skip-slow']!,
  };
}
