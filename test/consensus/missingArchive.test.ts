/**
 * `npm test` in a checkout without the shared conformance folder beside it: the consensus sample's
 * tests that read the state tests archive report themselves skipped, naming the missing archive;
 * with CI set, a missing archive fails them. The sample runs in a child test process whose
 * conformance folder (NODE_RPC_CONFORMANCE) does not exist.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/tmp.js';

const SAMPLE = fileURLToPath(new URL('./sample.test.js', import.meta.url));

function runSample(ci: boolean): { status: number | null; out: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_RPC_CONFORMANCE: join(tempDir('node-rpc-no-conformance-'), 'conformance') };
  delete env.CI;
  // The child is a test run of its own, not a subtest of this one.
  delete env.NODE_TEST_CONTEXT;
  if (ci) env.CI = 'true';
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', SAMPLE], { env, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, out: r.stdout + r.stderr };
}

const count = (out: string, what: string) => Number(new RegExp(`^# ${what} (\\d+)$`, 'm').exec(out)?.[1]);

test('without the conformance folder, the archive tests are skipped with the reason, and the run passes', () => {
  const { status, out } = runSample(false);
  assert.equal(status, 0, out);
  assert.deepEqual([count(out, 'tests'), count(out, 'skipped'), count(out, 'fail')], [4, 4, 0], out);
  const reasons = out.match(/# SKIP the state tests archive is missing: expected \S+GeneralStateTests\.tgz/g) ?? [];
  assert.equal(reasons.length, 4, out);
});

test('with CI set, a missing archive fails those tests', () => {
  const { status, out } = runSample(true);
  assert.equal(status, 1, out);
  assert.deepEqual([count(out, 'tests'), count(out, 'skipped'), count(out, 'fail')], [4, 0, 4], out);
  assert.match(out, /the state tests archive is missing/);
});
