/**
 * The loader's V8 code cache for the bundle: written by a start without one (two seconds in, or at
 * exit; a node that has answered nothing by then, after its first answer), used by the next, never
 * replaced by a later writer, rebuilt when unusable, off on request; one cache for the command and
 * the package, written once by worker threads that import the package together.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { KEEP_CACHES, prune } from '../../src/launch/load.js';
import { startCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

async function runOnce(env: NodeJS.ProcessEnv): Promise<void> {
  const node = await startCli([], 15_000, { env });
  try {
    assert.equal(await node.rpc('eth_chainId'), '0x3d8');
  } finally {
    assert.equal(await node.stop(), 0);
  }
}

const caches = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.v8'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll until `dir` holds a cache file; fails after `ms`. */
async function cacheWritten(dir: string, ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const [file] = caches(dir);
    if (file !== undefined) return file;
    if (Date.now() > deadline) throw new Error(`no cache file after ${ms} ms`);
    await sleep(50);
  }
}

test('a start without a cache writes one; the next start uses it as is', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'node-rpc-cc-'));
  try {
    await runOnce({ NODE_COMPILE_CACHE: dir });
    const [file, ...more] = caches(dir);
    assert.ok(file, 'a cache file was written');
    assert.deepEqual(more, []);
    const before = statSync(join(dir, file));
    assert.ok(before.size > 100_000, `cache of ${before.size} bytes`);
    await runOnce({ NODE_COMPILE_CACHE: dir });
    assert.deepEqual(caches(dir), [file]);
    assert.equal(statSync(join(dir, file)).mtimeMs, before.mtimeMs, 'an accepted cache is not rewritten');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unusable cache is ignored and replaced; NODE_DISABLE_COMPILE_CACHE writes none', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'node-rpc-cc-'));
  try {
    await runOnce({ NODE_COMPILE_CACHE: dir });
    const [file] = caches(dir);
    writeFileSync(join(dir, file!), 'not a code cache');
    await runOnce({ NODE_COMPILE_CACHE: dir });
    assert.notEqual(readFileSync(join(dir, file!), 'utf8').slice(0, 16), 'not a code cache');
    const off = mkdtempSync(join(tmpdir(), 'node-rpc-cc-'));
    try {
      await runOnce({ NODE_COMPILE_CACHE: off, NODE_DISABLE_COMPILE_CACHE: '1' });
      assert.deepEqual(caches(off), []);
    } finally {
      rmSync(off, { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a running node writes the cache without exiting, and a later writer keeps the first cache', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'node-rpc-cc-'));
  try {
    // Two starts without a cache at once: whichever writes first, the other leaves its file alone,
    // at its two-second mark and at its exit alike.
    const [a, b] = await Promise.all([startCli([], 15_000, { env: { NODE_COMPILE_CACHE: dir } }), startCli([], 15_000, { env: { NODE_COMPILE_CACHE: dir } })]);
    try {
      assert.equal(await a.rpc('eth_chainId'), '0x3d8');
      const file = await cacheWritten(dir, 10_000);
      assert.equal(a.proc.exitCode, null, 'written while the node runs');
      const first = statSync(join(dir, file));
      await sleep(2_500);
      assert.equal(await b.rpc('eth_chainId'), '0x3d8');
      assert.equal(await a.stop(), 0);
      assert.equal(await b.stop(), 0);
      assert.deepEqual(caches(dir), [file]);
      assert.equal(statSync(join(dir, file)).mtimeMs, first.mtimeMs, 'the first cache is kept');
    } finally {
      await a.stop();
      await b.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a node that has answered nothing two seconds in writes the cache after its first answer', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'node-rpc-cc-'));
  try {
    const node = await startCli([], 15_000, { env: { NODE_COMPILE_CACHE: dir } });
    try {
      // Idle past the two-second mark: the request path has not run, so no cache yet.
      await sleep(3_000);
      assert.deepEqual(caches(dir), []);
      assert.equal(await node.rpc('eth_chainId'), '0x3d8');
      await cacheWritten(dir, 10_000);
      assert.equal(node.proc.exitCode, null, 'written while the node runs');
    } finally {
      assert.equal(await node.stop(), 0);
    }
    assert.equal(caches(dir).length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const LIB = fileURLToPath(new URL('../../index.js', import.meta.url));

/** A process that imports the package (in `threads` worker threads at once, or on its main thread), runs a chain, closes it and exits. */
async function libraryProcess(env: NodeJS.ProcessEnv, threads = 0): Promise<string> {
  const chain = `const { createNode } = await import(${JSON.stringify(LIB)}); const n = await createNode(); const id = await n.provider.request({ method: 'eth_chainId' }); await n.close();`;
  const script =
    threads === 0
      ? `${chain} console.log(id);`
      : `import { Worker } from 'node:worker_threads'; import { once } from 'node:events';
         const code = ${JSON.stringify(`(async () => { ${chain} (await import('node:worker_threads')).parentPort.postMessage(id); })()`)};
         const ids = await Promise.all(Array.from({ length: ${threads} }, async () => { const w = new Worker(code, { eval: true }); const [id] = await once(w, 'message'); await once(w, 'exit'); return id; }));
         console.log(ids.join(','));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...env }, timeout: 60_000 });
  return stdout.trim();
}

test('the package and the command share one cache: each uses the one the other wrote', async () => {
  const dir = tempDir('node-rpc-cc-');
  assert.equal(await libraryProcess({ NODE_COMPILE_CACHE: dir }), '0x3d8');
  const [file, ...more] = caches(dir);
  assert.ok(file, 'a process that imported the package wrote the cache at its exit');
  assert.deepEqual(more, []);
  const written = statSync(join(dir, file)).mtimeMs;
  // An unusable cache would be replaced: an unchanged file is one the command accepted.
  await runOnce({ NODE_COMPILE_CACHE: dir });
  assert.deepEqual(caches(dir), [file]);
  assert.equal(statSync(join(dir, file)).mtimeMs, written, 'the command used the cache as is');

  const other = tempDir('node-rpc-cc-');
  await runOnce({ NODE_COMPILE_CACHE: other });
  const [cliFile] = caches(other);
  const cliWritten = statSync(join(other, cliFile!)).mtimeMs;
  assert.equal(await libraryProcess({ NODE_COMPILE_CACHE: other }), '0x3d8');
  assert.deepEqual(caches(other), [cliFile]);
  assert.equal(statSync(join(other, cliFile!)).mtimeMs, cliWritten, 'the package used the cache as is');
});

test('worker threads importing the package at once leave one cache and no temporary file', async () => {
  const dir = tempDir('node-rpc-cc-');
  assert.equal(await libraryProcess({ NODE_COMPILE_CACHE: dir }, 3), '0x3d8,0x3d8,0x3d8');
  assert.equal(caches(dir).length, 1);
  assert.deepEqual(readdirSync(dir).filter((f) => !f.endsWith('.v8')), [], 'no temporary file is left');
  assert.ok(statSync(join(dir, caches(dir)[0]!)).size > 100_000);
});

test('the folder keeps the newest caches of other bundles and nothing else of this one', () => {
  const dir = tempDir('node-rpc-cc-');
  const name = (hash: number, size: number) => `node-${hash.toString(16).padStart(12, '0')}-${size}-1-v20.20.2-x64.v8`;
  const others = Array.from({ length: KEEP_CACHES + 4 }, (_, i) => name(i + 1, 1000));
  others.push(`cli-${'f'.repeat(12)}-1000-1-v20.20.2-x64.v8`); // an earlier version's name, the oldest
  others.forEach((f, i) => {
    writeFileSync(join(dir, f), 'x');
    const t = 1_700_000_000 + (i === others.length - 1 ? -1 : i);
    utimesSync(join(dir, f), t, t);
  });
  const mine = name(0xabc, 2000);
  const olderMine = name(0xabc, 1999);
  writeFileSync(join(dir, mine), 'x');
  writeFileSync(join(dir, olderMine), 'x');
  // Not this loader's: Node's own compile cache (a folder), a file named otherwise, a temporary file.
  mkdirSync(join(dir, 'v22.12.0-x64-0d2e0f'));
  writeFileSync(join(dir, 'notes.v8'), 'x');
  writeFileSync(join(dir, `${mine}.123.0`), 'x');
  prune(dir, `node-${(0xabc).toString(16).padStart(12, '0')}-`, join(dir, mine));
  const left = readdirSync(dir).sort();
  const kept = others.slice(others.length - 1 - (KEEP_CACHES - 1), others.length - 1);
  assert.deepEqual(left, [...kept, mine, `${mine}.123.0`, 'notes.v8', 'v22.12.0-x64-0d2e0f'].sort());
});
