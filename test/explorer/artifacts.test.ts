/**
 * Artifact-aware decoding: loading Hardhat/Foundry output (immutables masked, malformed files
 * skipped with one warning), and the names it puts in `node-rpc dev`'s log, auto-detected from
 * the working directory.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ContractFactory, Interface, JsonRpcProvider, Wallet, type Contract } from 'ethers';
import { Artifacts, formatDecoded, formatNumber } from '../../src/artifacts/artifacts.js';
import { loadArtifacts } from '../../src/artifacts/load.js';
import { startCli, type CliNode } from '../support/cli.js';
import { artifact, KEYS } from '../support/node.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/artifacts', import.meta.url));
const ACCOUNT2 = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

describe('artifacts', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'node-rpc-artifacts-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('loads Hardhat-style artifacts and matches deployed code', () => {
    const warnings: string[] = [];
    const a = loadArtifacts([FIXTURES], (w) => warnings.push(w));
    assert.deepEqual(warnings, []);
    const token = artifact('Token');
    assert.equal(a.match(token.deployedBytecode)?.name, 'Token');
    assert.equal(a.match(token.deployedBytecode.slice(0, -2)), undefined, 'other length: no match');
    assert.equal(a.match('0xff' + token.deployedBytecode.slice(4)), undefined, 'other bytes: no match');
    assert.equal(a.match(token.deployedBytecode.slice(0, -20) + 'ff'.repeat(8) + token.deployedBytecode.slice(-4))?.name, 'Token', 'another metadata hash: same contract');
  });

  it('masks immutables and library links (Foundry layout)', () => {
    const code = '6080' + 'aa'.repeat(32) + '6000' + '00'.repeat(20) + 'f3';
    const out = join(dir, 'out', 'Vault.sol');
    mkdirSync(out, { recursive: true });
    writeFileSync(
      join(out, 'Vault.json'),
      JSON.stringify({
        abi: [{ type: 'function', name: 'owner', inputs: [], outputs: [{ type: 'address', name: '' }], stateMutability: 'view' }],
        deployedBytecode: { object: '0x' + code.slice(0, 72) + '__$0123456789abcdef0123456789abcdef01$__' + 'f3', immutableReferences: { '7': [{ start: 2, length: 32 }] }, linkReferences: { 'L.sol': { L: [{ start: 36, length: 20 }] } } },
      }),
    );
    const a = loadArtifacts([join(dir, 'out')], (w) => assert.fail(w));
    const deployed = '0x6080' + '11'.repeat(32) + '6000' + 'be'.repeat(20) + 'f3';
    assert.equal(a.match(deployed)?.name, 'Vault', 'immutable value and linked library address ignored');
    assert.equal(a.match('0x6081' + '11'.repeat(32) + '6000' + 'be'.repeat(20) + 'f3'), undefined, 'a byte outside the masks differs');
  });

  it('skips a malformed file with one warning each and keeps the rest', () => {
    const bad = join(dir, 'bad');
    mkdirSync(bad, { recursive: true });
    copyFileSync(join(FIXTURES, 'Token.json'), join(bad, 'Token.json'));
    writeFileSync(join(bad, 'Broken.json'), '{ "abi": [');
    writeFileSync(join(bad, 'Weird.json'), '{ "abi": 5 }');
    writeFileSync(join(bad, 'package.json'), '{ "name": "not an artifact" }');
    const warnings: string[] = [];
    const a = loadArtifacts([bad], (w) => warnings.push(w));
    assert.equal(warnings.length, 2, warnings.join('\n'));
    assert.match(warnings[0], /Broken\.json/);
    assert.match(warnings[1], /Weird\.json: "abi" is not a list/);
    assert.equal(a.size, 1);
    assert.deepEqual(loadArtifacts([join(dir, 'missing')], (w) => warnings.push(w)).size, 0);
    assert.match(warnings[2], /missing is not a folder or a \.json file/);
  });

  it('decodes calls, events and errors, custom and built-in', () => {
    const a = new Artifacts();
    const t = artifact('Token');
    a.add({ name: 'Token', abi: t.abi, code: '', masks: [] });
    const call = a.decodeCall('0xa9059cbb' + ACCOUNT2.slice(2).toLowerCase().padStart(64, '0') + (10n ** 18n).toString(16).padStart(64, '0'));
    assert.equal(call && formatDecoded(call), 'transfer(0x3C44…93BC, 1e18)');
    assert.equal(call?.contract, 'Token');
    const err = a.decodeError(new Interface(t.abi).encodeErrorResult('InsufficientBalance', [ACCOUNT2, 0, 5n * 10n ** 18n]));
    assert.equal(err && formatDecoded(err), 'InsufficientBalance(0x3C44…93BC, 0, 5e18)');
    const panic = a.decodeError('0x4e487b71' + '11'.padStart(64, '0'));
    assert.equal(panic?.args[0].value, 'arithmetic overflow or underflow');
    assert.equal(a.decodeCall('0x12345678'), undefined);
    assert.equal(formatNumber(1234567n), '1234567');
    assert.equal(formatNumber(25n * 10n ** 17n), '2.5e18');
    assert.equal(formatNumber(10n ** 6n), '1e6');
  });

  describe('node-rpc dev log', () => {
    let node: CliNode;
    let token: Contract;
    before(async () => {
      const project = join(dir, 'project');
      mkdirSync(join(project, 'artifacts', 'contracts', 'Token.sol'), { recursive: true });
      copyFileSync(join(FIXTURES, 'Token.json'), join(project, 'artifacts', 'contracts', 'Token.sol', 'Token.json'));
      writeFileSync(join(project, 'artifacts', 'contracts', 'Token.sol', 'Bad.json'), 'not json');
      // No --artifacts: ./artifacts of the working directory is found by itself.
      node = await startCli([], 15_000, { cwd: project });
      const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, cacheTimeout: -1 });
      const t = artifact('Token');
      token = (await new ContractFactory(t.abi, t.bytecode, new Wallet(KEYS[0], provider)).deploy('Token', 'TKN', 10n ** 24n)) as Contract;
      await token.waitForDeployment();
    });
    after(async () => node?.stop());

    it('names the contract, function and custom error of each transaction', async () => {
      const ok = await token.transfer(ACCOUNT2, 10n ** 18n);
      await ok.wait();
      const bob = new Wallet(KEYS[1], token.runner!.provider);
      const failed = await (token.connect(bob) as Contract).transfer(ACCOUNT2, 5n * 10n ** 18n, { gasLimit: 100_000 });
      await failed.wait().catch(() => undefined);
      const deadline = Date.now() + 5_000;
      while (!node.output().includes(failed.hash) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const out = node.output();
      assert.equal(out.match(/warning: artifacts: skipped .*Bad\.json/g)?.length, 1, out);
      assert.match(out, new RegExp(`tx ${ok.hash}  Token\\.transfer\\(0x3C44…93BC, 1e18\\)  gas \\d+  success`));
      assert.match(out, new RegExp(`tx ${failed.hash}  Token\\.transfer\\(0x3C44…93BC, 5e18\\)  gas \\d+  reverted: InsufficientBalance\\(0x7099…79C8, 0, 5e18\\)`));
      assert.match(out, /Explorer: open http:\/\/127\.0\.0\.1:\d+\/ in a browser \(1 contract from artifacts\)/);
    });
  });
});
