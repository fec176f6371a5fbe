/**
 * The node's coverage against solidity-coverage's on the same suite (fixtures/coverage/hardhat:
 * test/scenario.cjs, run by `hardhat coverage` through mocha/bank.cjs on Hardhat's in-process
 * network, and by createNode through viem here), the same sources compiled without the
 * optimizer: the same lines, functions and branches covered, but for the differences the README
 * lists. With the optimizer on, the difference is measured (the README states it).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { before, describe, test } from 'node:test';
import { custom } from 'viem';
import { createNode } from '../../src/lib/index.js';
import { branchHits, fileOf, hardhat, HARDHAT_PROJECT, lineHits, type FileCoverage } from './support.js';

const require = createRequire(import.meta.url);
const { scenario } = require(`${HARDHAT_PROJECT}/test/scenario.cjs`) as { scenario: (transport: unknown, artifact: (name: string) => Promise<unknown>) => Promise<unknown> };
/** This test's own build of the project (the optimizer on and off), beside the one other tests use. */
const BUILD = 'build-compare';
const ARTIFACTS = `${HARDHAT_PROJECT}/${BUILD}/artifacts`;
const artifact = async (name: string) => JSON.parse(readFileSync(`${ARTIFACTS}/contracts/${name === 'Bank' ? 'Bank' : 'Proxy'}.sol/${name}.json`, 'utf8'));

interface Theirs extends FileCoverage {
  l: Record<string, number>;
}

/** The suite on a node of this process, with the project as compiled now; the node's Istanbul JSON. */
async function ours(): Promise<Record<string, FileCoverage>> {
  const node = await createNode({ coverage: true, artifacts: [ARTIFACTS] });
  try {
    await scenario(custom(node.provider, { retryCount: 0 }), artifact);
    return (await node.provider.request({ method: 'node_coverage' })) as Record<string, FileCoverage>;
  } finally {
    await node.close();
  }
}

const covered = (m: Map<number, boolean> | Array<[number, boolean]>) => new Set([...m].filter(([, hit]) => hit).map(([line]) => line));
const functionsCovered = (f: FileCoverage) => Object.entries(f.fnMap).map(([k, fn]) => [fn.line, f.f[k]! > 0] as const);
/** Branches as `line:type` with which of their sides ran. */
const sides = (list: Array<[string, number[]]>) => list.map(([where, counts]) => [where, counts.map((n) => n > 0)] as const);

/** Where the two differ for one file: lines and functions covered by one only, branches whose sides differ. */
function compare(mine: FileCoverage, theirs: Theirs, ignoreBranches: { mine: string[]; theirs: string[] }) {
  const theirLines = new Map(Object.entries(theirs.l).map(([l, n]) => [Number(l), n > 0] as const));
  const myLines = lineHits(mine);
  const lines = {
    onlyTheirs: [...theirLines.keys()].filter((l) => !myLines.has(l)),
    onlyMine: [...myLines.keys()].filter((l) => !theirLines.has(l)),
    coveredDiffer: [...myLines.keys()].filter((l) => theirLines.has(l) && theirLines.get(l) !== myLines.get(l)),
  };
  const theirFns = new Map(functionsCovered(theirs));
  const functions = functionsCovered(mine).filter(([line, hit]) => theirFns.get(line) !== hit).map(([line]) => line);
  const a = sides(branchHits(mine)).filter(([w]) => !ignoreBranches.mine.includes(w));
  const b = sides(branchHits(theirs)).filter(([w]) => !ignoreBranches.theirs.includes(w));
  const branches = { mine: a.length, theirs: b.length, sidesDiffer: a.filter(([w, s], i) => JSON.stringify(b[i]?.[1]) !== JSON.stringify(s) || b[i]![0].split(':')[0] !== w.split(':')[0]).map(([w]) => w) };
  return { lines, covered: { mine: covered(myLines).size, theirs: covered(theirLines).size }, functions, branches };
}

/** The branches only one side has: the node's `&&` and loop conditions, solidity-coverage's modifier invocation (onlyOwner on setOwner). */
const BANK_IGNORED = { mine: ['42:binary-expr', '54:if', '60:if'], theirs: ['66:if'] };

const statementsCovered = (f: FileCoverage) => Object.values(f.s).filter((n) => n > 0).length;

describe('the node against solidity-coverage on the same suite', () => {
  let theirs: Record<string, Theirs>;
  let unoptimized: FileCoverage | undefined;
  before(async () => {
    // solidity-coverage compiles its instrumented contracts into the project's artifacts folder
    // (with Hardhat > 2.0.3 it keeps Hardhat's paths): a folder of its own keeps them out of the
    // artifacts the other coverage tests read meanwhile.
    const r = await hardhat(['coverage'], { COVERAGE_BUILD: 'build-solidity-coverage' });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /1 passing/);
    theirs = JSON.parse(readFileSync(`${HARDHAT_PROJECT}/coverage.json`, 'utf8')) as Record<string, Theirs>;
  });

  test('without the optimizer: the same lines, functions and branches covered, but for the listed differences', async () => {
    const compiled = await hardhat(['compile', '--force'], { COVERAGE_BUILD: BUILD });
    assert.equal(compiled.code, 0, compiled.out);
    const mine = await ours();
    unoptimized = fileOf(mine, 'Bank.sol');
    const bank = compare(fileOf(mine, 'Bank.sol'), fileOf(theirs, 'Bank.sol') as Theirs, BANK_IGNORED);
    assert.deepEqual(bank, UNOPTIMIZED_BANK);
    assert.deepEqual(statementsCovered(unoptimized), 20);
    const proxy = compare(fileOf(mine, 'Proxy.sol'), fileOf(theirs, 'Proxy.sol') as Theirs, { mine: [], theirs: [] });
    assert.deepEqual(proxy, { lines: { onlyTheirs: [], onlyMine: [], coveredDiffer: [] }, covered: { mine: 4, theirs: 4 }, functions: [], branches: { mine: 0, theirs: 0, sidesDiffer: [] } });
  });

  test('with the optimizer on (200 runs): the difference measured', async () => {
    const compiled = await hardhat(['compile', '--force'], { COVERAGE_OPTIMIZER: '1', COVERAGE_BUILD: BUILD });
    assert.equal(compiled.code, 0, compiled.out);
    {
      const mine = await ours();
      const optimized = fileOf(mine, 'Bank.sol');
      const bank = compare(optimized, fileOf(theirs, 'Bank.sol') as Theirs, BANK_IGNORED);
      assert.deepEqual(bank, UNOPTIMIZED_BANK, 'lines, functions and branches covered as without the optimizer');
      assert.ok(unoptimized, 'the run without the optimizer came first');
      // Statements: the for loop's `i++` (line 54) has no instructions of its own once optimized.
      assert.deepEqual({ statements: Object.keys(optimized.s).length, covered: statementsCovered(optimized), coveredUnoptimized: statementsCovered(unoptimized) }, { statements: 24, covered: 19, coveredUnoptimized: 20 });
      const missed = Object.entries(optimized.statementMap).filter(([k]) => optimized.s[k] === 0 && unoptimized!.s[k]! > 0).map(([, loc]) => loc.start.line);
      assert.deepEqual(missed, [54]);
      // Calls counted by the instructions solc maps to a whole function: the optimizer moves those, so counts are not calls.
      const calls = (f: FileCoverage) => Object.fromEntries(Object.entries(f.fnMap).map(([k, fn]) => [fn.name, f.f[k]]));
      assert.notDeepEqual(calls(optimized), calls(unoptimized));
    }
  });
});

/** Bank.sol against solidity-coverage: line 14 is the modifier's `_;`, to which solc maps no instruction. */
const UNOPTIMIZED_BANK = {
  lines: { onlyTheirs: [14], onlyMine: [], coveredDiffer: [] },
  covered: { mine: 18, theirs: 19 },
  functions: [],
  branches: { mine: 6, theirs: 6, sidesDiffer: [] },
};
