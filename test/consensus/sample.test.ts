/**
 * The consensus gate's quick sample in `npm test`: every 40th state test case of
 * ethereum/tests (the slow files of slow.ts left out), untraced, on the node's own engine. `npm run test:consensus` runs them all,
 * untraced and traced.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { archiveMissing, runGate, sharedDirs, testsDir } from './run.js';
import { cases, runCase, type StateTestJson } from './stateTest.js';

/**
 * A checkout without the shared conformance folder beside it skips the tests that read the
 * archive, saying why; in CI (the CI variable set) a missing archive fails them.
 */
const missing = archiveMissing();
const needsArchive = { skip: missing !== undefined && !process.env.CI ? missing : false };

test('a deterministic sample of the Ethereum state tests passes on the node engine', needsArchive, async () => {
  const { passed, failed } = await runGate({ sample: 40, traced: [false], workers: 2, skipSlow: true });
  assert.ok(passed > 380, `only ${passed} cases ran`);
  assert.deepEqual(failed.map((f) => `${f.id}: ${f.reason}`), []);
});

test('a traced case whose tracing fails is reported as such, not as a refused transaction', needsArchive, async () => {
  // Two traced runs of one case, 1,024 nested calls that take a few hundred ms: without a limit it
  // passes; with a clock limit of 0 ms the trace is cut at a later call's deadline check, which the
  // gate must report as the failure it is (it used to be taken for runTx's refusal of the
  // transaction, and then read as a wrong state root).
  const name = 'stCallCreateCallCodeTest/Call1024BalanceTooLow.json';
  const [c] = cases(name, JSON.parse(readFileSync(join(testsDir(), name), 'utf8')) as Record<string, StateTestJson>, new Set(['cancun'] as const));
  assert.ok(c, `${name} has a Cancun case`);
  assert.deepEqual(await runCase(c, true), { id: c.id, fork: 'Cancun', ok: true });
  const cut = await runCase(c, true, 0);
  assert.equal(cut.ok, false);
  assert.equal(cut.reason, 'traced run failed: execution timeout');
});

test('every archive in the conformance folder runs: a release of newer forks from its state_tests folder only', needsArchive, async () => {
  // A conformance folder as the shared one may come to hold it: GeneralStateTests.tgz, and an
  // execution-spec-tests release archive, whose blockchain tests (another format) are not read.
  const root = mkdtempSync(join(tmpdir(), 'node-rpc-conformance-'));
  try {
    const example = readFileSync(join(testsDir(), 'stExample/add11.json'));
    const put = (path: string, bytes: Buffer | string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), bytes);
    };
    put('gst/GeneralStateTests/stExample/add11.json', example);
    put('release/fixtures/state_tests/cancun/example/add11.json', example);
    put('release/fixtures/blockchain_tests/cancun/broken.json', '{ not a state test');
    mkdirSync(join(root, 'conformance'));
    execFileSync('tar', ['-czf', join(root, 'conformance', 'GeneralStateTests.tgz'), '-C', join(root, 'gst'), 'GeneralStateTests']);
    execFileSync('tar', ['-czf', join(root, 'conformance', 'fixtures_release.tar.gz'), '-C', join(root, 'release'), 'fixtures']);
    const dirs = sharedDirs(join(root, 'conformance'), root);
    assert.equal(dirs.length, 2);
    assert.match(dirs[1]!, /state_tests$/);
    const one = cases('x', JSON.parse(example.toString('utf8')) as Record<string, StateTestJson>, new Set(['cancun'] as const)).length;
    const { passed, failed } = await runGate({ shared: join(root, 'conformance'), unpackInto: root, sample: 1, traced: [false], workers: 1 });
    assert.deepEqual(failed, []);
    assert.equal(passed, 2 * one);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('an archive is unpacked once per content: a fresh copy of it is not unpacked again, a new version replaces the old', needsArchive, () => {
  const root = mkdtempSync(join(tmpdir(), 'node-rpc-conformance-'));
  try {
    const example = readFileSync(join(testsDir(), 'stExample/add11.json'));
    const pack = (files: string[]) => {
      rmSync(join(root, 'gst'), { recursive: true, force: true });
      for (const f of files) {
        mkdirSync(dirname(join(root, 'gst', 'GeneralStateTests', f)), { recursive: true });
        writeFileSync(join(root, 'gst', 'GeneralStateTests', f), example);
      }
      mkdirSync(join(root, 'conformance'), { recursive: true });
      execFileSync('tar', ['-czf', join(root, 'conformance', 'GeneralStateTests.tgz'), '-C', join(root, 'gst'), 'GeneralStateTests']);
    };
    const copies = () => readdirSync(root).filter((f) => f.startsWith('node-rpc-state-tests-'));
    pack(['stExample/add11.json']);
    const first = testsDir(join(root, 'conformance'), root);
    // The same bytes, written again later (as a conformance folder copied afresh is).
    const archive = join(root, 'conformance', 'GeneralStateTests.tgz');
    const bytes = readFileSync(archive);
    rmSync(archive);
    writeFileSync(archive, bytes);
    utimesSync(archive, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
    assert.equal(testsDir(join(root, 'conformance'), root), first);
    assert.equal(copies().length, 1);
    // Another version: unpacked anew, and the old copy is gone.
    pack(['stExample/add11.json', 'stExample/add12.json']);
    const second = testsDir(join(root, 'conformance'), root);
    assert.notEqual(second, first);
    assert.deepEqual(copies(), [basename(dirname(second))]);
    assert.deepEqual(readdirSync(join(second, 'stExample')).sort(), ['add11.json', 'add12.json']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
