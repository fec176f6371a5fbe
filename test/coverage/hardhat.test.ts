/**
 * Coverage and gas reports from the node for a Hardhat project (fixtures/coverage/hardhat)
 * whose tests are written with viem under node:test: `node-rpc dev --coverage <dir>
 * --gas-report <file>` serves them, node_coverage / node_gasReport read the reports while it
 * runs, and on exit lcov.info and coverage-final.json are written, which `nyc report` and genhtml
 * take. The gas report equals the receipts' gasUsed. createNode({ coverage }) does the same in
 * process, and node_resetCoverage starts over.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { custom, encodeFunctionData } from 'viem';
import { startCli, type CliNode } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { createNode } from '../../src/lib/index.js';
import { branchHits, fileOf, functionHits, hardhat, HARDHAT_PROJECT, lineHits, NYC, receiptsGas, run, selector, type FileCoverage } from './support.js';

const require = createRequire(import.meta.url);
const { scenario } = require(`${HARDHAT_PROJECT}/test/scenario.cjs`) as { scenario: (transport: unknown, artifact: (name: string) => Promise<unknown>) => Promise<{ bank: string; counter: string; proxy: string }> };
const artifact = async (name: string) => JSON.parse(readFileSync(`${HARDHAT_PROJECT}/artifacts/contracts/${name === 'Bank' ? 'Bank' : 'Proxy'}.sol/${name}.json`, 'utf8'));

/** What the suite reaches in Bank.sol, compiled without the optimizer. */
export const BANK_FUNCTIONS = {
  'Bank.onlyOwner': 2,
  'Bank.constructor': 1,
  'Bank.deposit': 3, // two mined, one eth_call that reverts (the estimates of the two do not count)
  'Bank.withdraw': 2,
  'Bank.fee': 1,
  'Bank.canBorrow': 2,
  'Bank.isSpecial': 1,
  'Bank.sum': 1,
  'Bank.halvings': 0,
  'Bank.setOwner': 2,
};
export const BANK_BRANCHES: Array<[string, number[]]> = [
  ['13:if', [1, 1]], // require in the modifier: passes (owner), fails (alice)
  ['22:if', [2, 1]], // require(msg.value > 0)
  ['30:if', [1, 1]], // if (amount > held)
  ['38:cond-expr', [1, 0]], // member ? … : … (never a non-member)
  ['42:binary-expr', [1, 1]], // &&: right side evaluated, short circuit
  ['46:if', [1, 0]], // if (… || …) never false
  ['46:binary-expr', [1, 0]], // ||: short circuit (owner), right side never evaluated
  ['54:if', [3, 1]], // the for loop: three iterations, one exit
  ['60:if', [0, 0]], // the while loop of halvings, never called
];
export const BANK_MISSED_LINES = [49, 60, 61, 62];

function checkBank(bank: FileCoverage): void {
  assert.deepEqual(functionHits(bank), BANK_FUNCTIONS);
  assert.deepEqual(branchHits(bank), BANK_BRANCHES);
  const missed = [...lineHits(bank)].filter(([, hit]) => !hit).map(([line]) => line);
  assert.deepEqual(missed, BANK_MISSED_LINES);
}

describe('coverage and gas reports of a Hardhat project tested with viem under node:test', () => {
  let node: CliNode;
  const dir = tempDir('node-rpc-coverage-');
  before(async () => {
    const compiled = await hardhat(['compile']);
    assert.equal(compiled.code, 0, compiled.out);
    node = await startCli(['--coverage', `${dir}/coverage`, '--gas-report', `${dir}/gas.json`, '--artifacts', `${HARDHAT_PROJECT}/artifacts`]);
  });
  after(async () => node?.stop());

  test('the suite runs; node_coverage has its statements, branches, functions and lines; node_gasReport equals the receipts; on exit lcov.info and coverage-final.json, which nyc report and genhtml take', async () => {
    const suite = await run(process.execPath, ['--test', 'test/bank.test.mjs'], HARDHAT_PROJECT, { NODE_RPC_URL: node.url });
    assert.equal(suite.code, 0, suite.out);
    assert.match(suite.out, /# pass 1\n/, suite.out);

    const json = (await node.rpc('node_coverage')) as Record<string, FileCoverage>;
    checkBank(fileOf(json, 'Bank.sol'));
    assert.deepEqual(functionHits(fileOf(json, 'Proxy.sol')), { 'Counter.increment': 3, 'Proxy.constructor': 1, 'Proxy.fallback': 4 });
    assert.match(await node.rpc('node_coverage', ['lcov']), /^TN:\nSF:.*Bank\.sol\n/);
    assert.match(await node.rpc('node_coverage', ['summary']), /contracts\/Bank\.sol +\| +\d/);
    const bad = await node.send('node_coverage', ['html']);
    assert.equal(bad.error?.code, -32602);

    // The gas report: the receipts' gasUsed per contract and function, proxies under their implementation.
    const report = await node.rpc('node_gasReport');
    const { calls, deployments } = await receiptsGas((m, p) => node.rpc(m, p));
    const bankAddress = report.contracts.Bank.deployments[0].address;
    const proxyAddress = report.contracts.Proxy.deployments[0].address;
    const expect = (to: string, sig: string) => {
      const gas = calls.get(`${to}:${selector(sig)}`)!;
      const sorted = [...gas].sort((a, b) => a - b);
      return { calls: gas.length, min: sorted[0], max: sorted[sorted.length - 1], avg: Math.round(gas.reduce((a, b) => a + b, 0) / gas.length) };
    };
    const pick = (m: { calls: number; min: number; max: number; avg: number }) => ({ calls: m.calls, min: m.min, max: m.max, avg: m.avg });
    assert.deepEqual(pick(report.contracts.Bank.methods.deposit), expect(bankAddress, 'deposit()'));
    assert.deepEqual(pick(report.contracts.Bank.methods.withdraw), expect(bankAddress, 'withdraw(uint256)'));
    assert.deepEqual(pick(report.contracts.Bank.methods.setOwner), expect(bankAddress, 'setOwner(address)'));
    assert.deepEqual(pick(report.contracts.Counter.methods.increment), expect(proxyAddress, 'increment(uint256)'));
    assert.equal(report.contracts.Proxy.methods.increment, undefined, 'counted under the implementation');
    for (const name of ['Bank', 'Counter', 'Proxy']) {
      const d = report.contracts[name].deployments[0];
      assert.equal(d.gas, deployments.get(d.address));
      assert.equal(d.codeSize, ((await node.rpc('eth_getCode', [d.address, 'latest'])) as string).length / 2 - 1);
    }
    assert.equal(report.codeSizeLimit, 24576);

    assert.equal(await node.stop('SIGINT'), 0);
    const out = node.output();
    assert.match(out, /Coverage \(lcov\.info, coverage-final\.json in .*\):\n-+\|/);
    assert.match(out, /contracts\/Bank\.sol +\| +[\d.]+ \| +[\d.]+ \| +90 \| +[\d.]+ \| 49,60-62/);
    assert.match(out, /Gas report \(JSON in .*gas\.json\):\nContract +Method/);
    assert.match(out, /Counter +increment +3 /);
    assert.deepEqual(JSON.parse(readFileSync(`${dir}/gas.json`, 'utf8')), report);
    const written = JSON.parse(readFileSync(`${dir}/coverage/coverage-final.json`, 'utf8')) as Record<string, FileCoverage>;
    checkBank(fileOf(written, 'Bank.sol'));

    const nyc = await run(process.execPath, [NYC, 'report', '--temp-dir', `${dir}/coverage`, '--report-dir', `${dir}/nyc`, '--reporter=text', '--reporter=html', '--extension', '.sol'], HARDHAT_PROJECT);
    assert.equal(nyc.code, 0, nyc.out);
    assert.match(nyc.out, / Bank\.sol +\| +[\d.]+ \| +[\d.]+ \| +90 \| +[\d.]+ \| 49,60-62/);
    assert.ok(existsSync(`${dir}/nyc/contracts/Bank.sol.html`) || existsSync(`${dir}/nyc/Bank.sol.html`), 'nyc wrote the HTML page of Bank.sol');
    const genhtml = await run('genhtml', ['--branch-coverage', '-o', `${dir}/genhtml`, `${dir}/coverage/lcov.info`], HARDHAT_PROJECT);
    assert.equal(genhtml.code, 0, genhtml.out);
    assert.match(genhtml.out, /functions\.+: 92\.3% \(12 of 13 functions\)/);
  });

  test('createNode({ coverage: true }) counts the same suite in process; node_resetCoverage zeroes every count; estimates do not count, traces do', async () => {
    const lib = await createNode({ coverage: true, artifacts: [`${HARDHAT_PROJECT}/artifacts`] });
    try {
      // No retries: viem retries a failed request of a custom transport, which would run the reverting eth_calls again.
      const { bank } = await scenario(custom(lib.provider, { retryCount: 0 }), artifact);
      const json = (await lib.provider.request({ method: 'node_coverage' })) as Record<string, FileCoverage>;
      checkBank(fileOf(json, 'Bank.sol'));
      assert.equal(await lib.provider.request({ method: 'node_resetCoverage' }), true);
      const reset = fileOf((await lib.provider.request({ method: 'node_coverage' })) as Record<string, FileCoverage>, 'Bank.sol');
      assert.ok(Object.values(reset.s).every((n) => n === 0) && Object.values(reset.f).every((n) => n === 0) && Object.values(reset.b).flat().every((n) => n === 0));
      // An estimate does not count; a traced call does, the ternary's other side included.
      const { abi } = await artifact('Bank');
      const from = lib.accounts[0]!.address;
      await lib.provider.request({ method: 'eth_estimateGas', params: [{ from, to: bank, value: '0x1', data: encodeFunctionData({ abi, functionName: 'deposit' }) }] });
      await lib.provider.request({ method: 'debug_traceCall', params: [{ to: bank, data: encodeFunctionData({ abi, functionName: 'fee', args: [1000n, false] }) }, 'latest', { tracer: 'callTracer' }] });
      const after = fileOf((await lib.provider.request({ method: 'node_coverage' })) as Record<string, FileCoverage>, 'Bank.sol');
      assert.equal(functionHits(after)['Bank.deposit'], 0);
      assert.equal(functionHits(after)['Bank.fee'], 1);
      assert.deepEqual(branchHits(after).find(([where]) => where === '38:cond-expr'), ['38:cond-expr', [0, 1]]);
      await assert.rejects(lib.provider.request({ method: 'node_gasReport' }), /--gas-report is off/);
    } finally {
      await lib.close();
    }
  });

  test('a node without the flags has no report methods', async () => {
    const lib = await createNode({});
    try {
      await assert.rejects(lib.provider.request({ method: 'node_coverage' }), (err: { code: number }) => err.code === -32601);
    } finally {
      await lib.close();
    }
  });
});
