/**
 * The launcher's V8 code cache for the bundle: written by a start without one (two seconds in, or at
 * exit; a node that has answered nothing by then, after its first answer), used by the next, never
 * replaced by a later writer, rebuilt when unusable, off on request.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startCli } from '../support/cli.js';

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
