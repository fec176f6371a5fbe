/**
 * Coverage from the node for a Foundry project (fixtures/coverage/foundry): `forge build --ast`
 * (solc-js through the shim), tests written with viem under node:test, `node-rpc dev --coverage
 * <dir> --artifacts out`; on exit lcov.info and coverage-final.json, which nyc report and genhtml
 * take. A library's internal function, an immutable and a constructor are covered too.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startCli, type CliNode } from '../support/cli.js';
import { solcForForge } from '../support/solcShim.js';
import { tempDir } from '../support/tmp.js';
import { branchHits, fileOf, FOUNDRY_PROJECT, functionHits, lineHits, NYC, run, type FileCoverage } from './support.js';

const FORGE = join(dirname(createRequire(import.meta.url).resolve('@foundry-rs/forge-linux-amd64/package.json')), 'bin', 'forge');

function checkVault(vault: FileCoverage): void {
  assert.deepEqual(functionHits(vault), {
    'Shares.toShares': 2,
    'Vault.constructor': 1,
    'Vault.pause': 2,
    'Vault.deposit': 3,
    'Vault.redeem': 2,
    'Vault.sweep': 0,
  });
  assert.deepEqual(branchHits(vault), [
    ['6:if', [1, 1]], // the library's if: the first deposit mints 1:1, the second computes
    ['6:binary-expr', [1, 1]], // ||: short circuit, right side evaluated
    ['25:if', [1, 1]], // require(msg.sender == admin): the admin passes, alice fails
    ['30:if', [1, 2]], // if (paused): the eth_call after pause(true), and two deposits
    ['38:if', [1, 1]], // require(enough shares)
    ['44:if', [1, 0]], // require(ok): the transfer never fails
    ['48:if', [0, 0]], // sweep is never called
  ]);
  assert.deepEqual([...lineHits(vault)].filter(([, hit]) => !hit).map(([line]) => line), [48, 49]);
}

describe('coverage of a Foundry project tested with viem under node:test', () => {
  let node: CliNode;
  const dir = tempDir('node-rpc-forge-coverage-');
  before(async () => {
    const built = await run(FORGE, ['build', '--use', solcForForge(dir), '--offline', '--ast'], FOUNDRY_PROJECT, { HOME: dir, FOUNDRY_DISABLE_NIGHTLY_WARNING: '1' });
    assert.equal(built.code, 0, built.out);
    node = await startCli(['--coverage', `${dir}/coverage`, '--artifacts', `${FOUNDRY_PROJECT}/out`]);
  });
  after(async () => node?.stop());

  test('the suite runs; node_coverage and the files written on exit have its functions, branches and lines; nyc report and genhtml take them', async () => {
    const suite = await run(process.execPath, ['--test', 'test/vault.test.mjs'], FOUNDRY_PROJECT, { NODE_RPC_URL: node.url });
    assert.equal(suite.code, 0, suite.out);
    assert.match(suite.out, /# pass 1\n/, suite.out);
    checkVault(fileOf((await node.rpc('node_coverage')) as Record<string, FileCoverage>, 'Vault.sol'));

    assert.equal(await node.stop('SIGINT'), 0);
    assert.match(node.output(), /src\/Vault\.sol +\| +[\d.]+ \| +[\d.]+ \| +83\.33 \| +[\d.]+ \| 48-49/);
    const written = JSON.parse(readFileSync(`${dir}/coverage/coverage-final.json`, 'utf8')) as Record<string, FileCoverage>;
    assert.deepEqual(Object.keys(written), [`${FOUNDRY_PROJECT}/src/Vault.sol`]);
    checkVault(fileOf(written, 'Vault.sol'));

    const nyc = await run(process.execPath, [NYC, 'report', '--temp-dir', `${dir}/coverage`, '--report-dir', `${dir}/nyc`, '--reporter=text', '--reporter=lcov', '--extension', '.sol'], FOUNDRY_PROJECT);
    assert.equal(nyc.code, 0, nyc.out);
    assert.match(nyc.out, / Vault\.sol +\| +[\d.]+ \| +[\d.]+ \| +83\.33 \| +[\d.]+ \| 48-49/);
    const genhtml = await run('genhtml', ['--branch-coverage', '-o', `${dir}/genhtml`, `${dir}/coverage/lcov.info`], FOUNDRY_PROJECT);
    assert.equal(genhtml.code, 0, genhtml.out);
    assert.match(genhtml.out, /functions\.+: 83\.3% \(5 of 6 functions\)/);
    assert.match(genhtml.out, /branches\.+: 78\.6% \(11 of 14 branches\)/);
  });
});
