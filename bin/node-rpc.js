#!/usr/bin/env node
// Thin launcher into the bundle (dist/cli.cjs). The bundle is compiled from a V8 code cache when a
// matching one exists (what Node 22's module.enableCompileCache does, which Node 20 lacks): about
// 40 ms of every start. The cache lives in $NODE_COMPILE_CACHE or ~/.cache/node-rpc, is keyed by
// the bundle's path, size and mtime and the Node version, and is written when a process without one
// exits. NODE_DISABLE_COMPILE_CACHE=1 turns it off. Any failure falls back to a plain compile.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const file = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
const source = readFileSync(file, 'utf8');
const cache = cacheFile();
let cachedData;
try {
  if (cache) cachedData = readFileSync(cache.path);
} catch {}
const script = new Script(Module.wrap(source), { filename: file, cachedData });
if (cache && (cachedData === undefined || script.cachedDataRejected)) process.once('exit', () => save(cache));
const module = { exports: {}, filename: file, id: file };
script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));

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
function save({ dir, prefix, path }) {
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.${process.pid}`;
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, path);
    for (const f of readdirSync(dir)) if (f.startsWith(prefix) && f.endsWith('.v8') && join(dir, f) !== path) rmSync(join(dir, f), { force: true });
  } catch {}
}
