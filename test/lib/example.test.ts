/**
 * The example project (examples/library): its test files, each with its own chain from createNode,
 * run in parallel by node's test runner, as a user would run them. They import the package by its
 * name, which resolves to this build.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

// (NODE_TEST_CONTEXT unset: the runner inside would otherwise report to this one, not to stdout.)

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('examples/library: viem, ethers and two-chain test files pass, run in parallel', () => {
  const files = readdirSync(`${ROOT}examples/library/test`).filter((f) => f.endsWith('.test.js')).map((f) => `examples/library/test/${f}`);
  assert.equal(files.length, 3);
  const r = spawnSync(process.execPath, ['--test', '--test-concurrency=3', '--test-reporter=tap', ...files], { cwd: ROOT, encoding: 'utf8', timeout: 240_000, env: { ...process.env, NODE_TEST_CONTEXT: undefined } });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^# pass (\d+)$/m);
  assert.equal(Number(/^# pass (\d+)$/m.exec(r.stdout)![1]), 6, r.stdout);
  assert.match(r.stdout, /^# fail 0$/m);
});
