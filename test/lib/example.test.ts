/**
 * The example project (examples/library): its test files, each with its own chain from createNode,
 * run in parallel by mocha (`--parallel`: a worker process per file at a time), as a user would run
 * them with the project's .mocharc.json. They import the package by its name, which resolves to
 * this build.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EXAMPLE = `${ROOT}examples/library`;
const MOCHA = `${ROOT}node_modules/mocha/bin/mocha.js`;

test('examples/library: viem, ethers and two-chain test files pass, run in parallel by mocha', () => {
  assert.equal(readdirSync(`${EXAMPLE}/test`).filter((f) => f.endsWith('.test.js')).length, 3);
  const r = spawnSync(process.execPath, [MOCHA, '--jobs', '3', '--reporter', 'tap'], { cwd: EXAMPLE, encoding: 'utf8', timeout: 240_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^# pass (\d+)$/m);
  assert.equal(Number(/^# pass (\d+)$/m.exec(r.stdout)![1]), 6, r.stdout);
  assert.match(r.stdout, /^# fail 0$/m);
});
