/**
 * Loads the node's bundle (dist/node.cjs) for both ways in: the `node-rpc` command
 * (bin/node-rpc.js) and the package (`import { createNode } from 'node-rpc'`, dist/index.js).
 * Bundled on its own into dist/load.cjs; it imports nothing but Node.
 *
 * The bundle is compiled from a V8 code cache when a matching one exists (what Node 22's
 * module.enableCompileCache does, which Node 20 lacks, and which does nothing for an ES module
 * there). It saves ~40 ms of every start of the command, and ~25 ms of every process or worker
 * thread that imports the package (a test runner's worker per test file). The cache:
 * - lives in $NODE_COMPILE_CACHE or $XDG_CACHE_HOME/node-rpc (default ~/.cache/node-rpc), keyed
 *   by the bundle's path, size and mtime and by the Node version and architecture;
 * - is written by a process that started without a usable one, two seconds into its run or at its
 *   exit if sooner, so it holds the bytecode of what a start and the first requests compiled. A
 *   `dev` server that has answered no request two seconds in writes it half a second after its
 *   first answer instead (the CLI emits `node-rpc:serving` and `node-rpc:answered` on process);
 * - is not replaced once written, unless a process found it unusable; NODE_DISABLE_COMPILE_CACHE=1
 *   turns it off. Any failure falls back to a plain compile.
 */
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { threadId } from 'node:worker_threads';

/** When a start without a usable cache writes one: its start and first requests are compiled by then. */
export const SAVE_AFTER_MS = 2_000;
/** After a server's first answer, when it writes a cache it held back for that answer. */
export const SAVE_AFTER_ANSWER_MS = 500;
/**
 * At most this many caches stay in the folder, the newest. Each bundle path (a checkout, an
 * install, a version) has its own, and one whose bundle is gone is never read again; a bundle whose
 * cache was dropped writes it again at its next start.
 */
export const KEEP_CACHES = 16;
/** The names of the caches this loader writes (and of the `cli-` ones earlier versions wrote). */
const CACHE_NAME = /^(?:node|cli)-[0-9a-f]{12}-.+\.v8$/;

/** What dist/node.cjs exports (src/cli/entry.ts); typed loosely here, the package's declarations type it. */
export interface Bundle {
  runCli(argv: string[]): void;
  createNode(options?: unknown): Promise<unknown>;
}

interface CacheFile {
  dir: string;
  prefix: string;
  path: string;
}

const loaded = new Map<string, Bundle>();

/** The exports of the bundle at `file` (dist/node.cjs), compiled once per thread. */
export function loadBundle(file: string): Bundle {
  let bundle = loaded.get(file);
  if (bundle === undefined) loaded.set(file, (bundle = compile(file)));
  return bundle;
}

function compile(file: string): Bundle {
  const cache = cacheFile(file);
  let cachedData: Buffer | undefined;
  try {
    if (cache) cachedData = readFileSync(cache.path);
  } catch {}
  // Neither the file's text nor the cache's bytes are kept: the Script holds the wrapped text it
  // compiles lazy functions from, and a second copy (1.4 MB) and the cache (1.1 MB) would only add
  // to the node's memory for as long as it runs.
  const script = new Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
  const hadCache = cachedData !== undefined;
  cachedData = undefined;
  if (cache && (!hadCache || script.cachedDataRejected)) saveLater(script, cache, script.cachedDataRejected === true);
  const bundle = { exports: {} as Bundle, filename: file, id: file };
  (script.runInThisContext() as (...args: unknown[]) => void)(bundle.exports, createRequire(file), bundle, file, dirname(file));
  return bundle.exports;
}

/**
 * Write the cache once the start is behind it, or at exit if that comes first. Not only at exit: a
 * process that runs for hours has let go of the bytecode of what it ran at start (V8 flushes
 * bytecode left unused), and its cache would miss what the next start needs. A cache some other
 * process wrote in the meantime is kept, unless this one found the file unusable (`replace`).
 */
function saveLater(script: Script, cache: CacheFile, replace: boolean): void {
  const write = () => {
    clearTimeout(timer);
    process.removeListener('exit', write);
    save(script, cache, replace);
  };
  // A cache written by a server that had answered nothing would leave out the bytecode of the
  // request path: ~10 ms of every later start.
  const events = process as NodeJS.EventEmitter;
  let serving = false;
  let answered = false;
  let due = false;
  events.once('node-rpc:serving', () => (serving = true));
  events.once('node-rpc:answered', () => {
    answered = true;
    if (!due) return;
    clearTimeout(timer);
    timer = setTimeout(write, SAVE_AFTER_ANSWER_MS).unref();
  });
  let timer = setTimeout(() => {
    due = true;
    if (!serving || answered) write();
  }, SAVE_AFTER_MS).unref();
  process.once('exit', write);
}

function cacheFile(file: string): CacheFile | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const dir = process.env.NODE_COMPILE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'node-rpc');
    const { size, mtimeMs } = statSync(file);
    const where = createHash('sha256').update(file).digest('hex').slice(0, 12);
    const prefix = `node-${where}-`;
    return { dir, prefix, path: join(dir, `${prefix}${size}-${Math.floor(mtimeMs)}-${process.version}-${process.arch}.v8`) };
  } catch {
    return undefined;
  }
}

/** Write the cache (functions compiled so far included), drop this bundle's older ones and all but the newest others. */
function save(script: Script, { dir, prefix, path }: CacheFile, replace: boolean): void {
  try {
    if (!replace && existsSync(path)) return;
    mkdirSync(dir, { recursive: true });
    // Threads of one process (a test runner's workers) write temporary files of their own.
    const tmp = `${path}.${process.pid}.${threadId}`;
    writeFileSync(tmp, script.createCachedData());
    if (replace) renameSync(tmp, path);
    else publishOnce(tmp, path);
    prune(dir, prefix, path);
  } catch {}
}

/** Remove this bundle's caches other than `path`, and other bundles' beyond the newest KEEP_CACHES. */
export function prune(dir: string, prefix: string, path: string): void {
  const others: Array<{ file: string; mtime: number }> = [];
  for (const f of readdirSync(dir)) {
    if (!CACHE_NAME.test(f)) continue;
    const file = join(dir, f);
    if (file === path) continue;
    if (f.startsWith(prefix)) rmSync(file, { force: true });
    else {
      try {
        others.push({ file, mtime: statSync(file).mtimeMs });
      } catch {}
    }
  }
  others.sort((a, b) => b.mtime - a.mtime);
  for (const { file } of others.slice(KEEP_CACHES - 1)) rmSync(file, { force: true });
}

/** Give `tmp` the name `path` unless a file has it by now (two starts at once: the first one stays). */
function publishOnce(tmp: string, path: string): void {
  try {
    linkSync(tmp, path);
  } catch (err) {
    // Where hard links are not supported, the last writer wins instead.
    if ((err as NodeJS.ErrnoException)?.code !== 'EEXIST') {
      renameSync(tmp, path);
      return;
    }
    rmSync(tmp, { force: true });
    throw err;
  }
  rmSync(tmp, { force: true });
}
