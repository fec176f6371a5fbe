#!/usr/bin/env node
// Thin launcher into the bundle (dist/cli.cjs). The bundle is compiled from a V8 code cache when a
// matching one exists (what Node 22's module.enableCompileCache does, which Node 20 lacks): about
// 40 ms of every start. The cache lives in $NODE_COMPILE_CACHE or ~/.cache/node-rpc, is keyed by
// the bundle's path, size and mtime and the Node version, and is written by a process that started
// without one, two seconds into its run (or at its exit, if sooner); a server that has answered no
// request by then writes it half a second after its first answer, so the cache holds the request
// path too. NODE_DISABLE_COMPILE_CACHE=1 turns it off. Any failure falls back to a plain compile.
// CommonJS (bin/package.json says so): an ES module entry point would start Node's ES module loader
// first, several ms of every start for nothing the bundle needs.
'use strict';
const { existsSync, linkSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { createHash } = require('node:crypto');
const Module = require('node:module');
const { homedir } = require('node:os');
const { dirname, join } = require('node:path');
const { Script } = require('node:vm');

/** When a start without a usable cache writes one: its start and first requests are compiled by then. */
const SAVE_AFTER_MS = 2_000;
/** After a server's first answer, when it writes a cache it held back for that answer. */
const SAVE_AFTER_ANSWER_MS = 500;
const file = join(__dirname, '..', 'dist', 'cli.cjs');
const cache = cacheFile();
let cachedData;
try {
  if (cache) cachedData = readFileSync(cache.path);
} catch {}
// Neither the file's text nor the cache's bytes are kept: the Script holds the wrapped text it
// compiles lazy functions from, and a second copy (1.3 MB) and the cache (1.1 MB) would only add to
// the node's memory for as long as it runs.
const script = new Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
const hadCache = cachedData !== undefined;
cachedData = undefined;
if (cache && (!hadCache || script.cachedDataRejected)) {
  // Written once the start is behind it, or at exit if that comes first. Not only at exit: a
  // process that runs for hours has let go of the bytecode of what it ran at start (V8 flushes
  // bytecode left unused), and its cache would then miss what the next start needs. A cache some
  // other process wrote in the meantime is kept, unless this one found the file unusable.
  const replace = script.cachedDataRejected === true;
  const write = () => {
    clearTimeout(timer);
    process.removeListener('exit', write);
    save(cache, replace);
  };
  // The CLI tells when it starts serving ('node-rpc:serving') and when it has answered its first
  // request ('node-rpc:answered'). A cache written by a node that had answered nothing would leave
  // out the bytecode of the request path: ~10 ms of every later start.
  let serving = false;
  let answered = false;
  let due = false;
  process.once('node-rpc:serving', () => (serving = true));
  process.once('node-rpc:answered', () => {
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
const bundle = { exports: {}, filename: file, id: file };
script.runInThisContext()(bundle.exports, Module.createRequire(file), bundle, file, dirname(file));

function cacheFile() {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const dir = process.env.NODE_COMPILE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'node-rpc');
    const { size, mtimeMs } = statSync(file);
    const where = createHash('sha256').update(file).digest('hex').slice(0, 12);
    const prefix = `cli-${where}-`;
    return { dir, prefix, path: join(dir, `${prefix}${size}-${Math.floor(mtimeMs)}-${process.version}-${process.arch}.v8`) };
  } catch {
    return undefined;
  }
}

/** Write the cache (functions compiled so far included) and drop this bundle's older ones. */
function save({ dir, prefix, path }, replace) {
  try {
    if (!replace && existsSync(path)) return;
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.${process.pid}`;
    writeFileSync(tmp, script.createCachedData());
    if (replace) renameSync(tmp, path);
    else publishOnce(tmp, path);
    for (const f of readdirSync(dir)) if (f.startsWith(prefix) && f.endsWith('.v8') && join(dir, f) !== path) rmSync(join(dir, f), { force: true });
  } catch {}
}

/** Give `tmp` the name `path` unless a file has it by now (two starts at once: the first one stays). */
function publishOnce(tmp, path) {
  try {
    linkSync(tmp, path);
  } catch (err) {
    // Where hard links are not supported, the last writer wins instead.
    if (err?.code !== 'EEXIST') {
      renameSync(tmp, path);
      return;
    }
    rmSync(tmp, { force: true });
    throw err;
  }
  rmSync(tmp, { force: true });
}
