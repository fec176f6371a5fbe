/**
 * Source maps from real compiler output (fixtures/sourcemaps: solc-js builds laid out as Hardhat's
 * build-info and Foundry's out/, optimizer on and off): decoding, pc → file:line:column inside
 * Contract.function, matching despite immutables, links and metadata hashes, and bad input.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadArtifacts } from '../../src/artifacts/load.js';
import { decodeSourceMap, instructionIndex, SourceText } from '../../src/artifacts/sourceMap.js';

const ROOT = fileURLToPath(new URL('../../../fixtures/sourcemaps', import.meta.url));
export const LAYOUTS = {
  'hardhat-opt': join(ROOT, 'hardhat-opt', 'artifacts'),
  'hardhat-noopt': join(ROOT, 'hardhat-noopt', 'artifacts'),
  'foundry-opt': join(ROOT, 'out-opt'),
  'foundry-noopt': join(ROOT, 'out-noopt'),
};

function runtimeOf(dir: string, name: string): Uint8Array {
  const path = dir.includes('hardhat') ? join(dir, 'src', 'Thrower.sol', `${name}.json`) : join(dir, 'Thrower.sol', `${name}.json`);
  const json = JSON.parse(readFileSync(path, 'utf8'));
  const hex: string = typeof json.deployedBytecode === 'string' ? json.deployedBytecode : json.deployedBytecode.object;
  return Buffer.from(hex.slice(2).replace(/__.{36}__/g, (m) => '0'.repeat(m.length)), 'hex');
}

/** Every location some pc of `code` maps to, as `Contract.function file:line`. */
function locations(dir: string, name: string, patch?: (code: Uint8Array) => void): Set<string> {
  const warnings: string[] = [];
  const a = loadArtifacts([dir], (w) => warnings.push(w));
  assert.deepEqual(warnings, []);
  const code = runtimeOf(dir, name);
  patch?.(code);
  const src = a.sources.code(code, false);
  assert.ok(src, `${name} has a source`);
  assert.equal(src.name, name);
  const out = new Set<string>();
  for (let pc = 0; pc < code.length; pc++) {
    const l = src.locate(pc);
    if (l) out.add(`${l.contract}.${l.function} ${l.file}:${l.line}`);
  }
  return out;
}

describe('source maps', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'node-rpc-srcmap-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('decodes the compressed form, repeating empty fields', () => {
    assert.deepEqual(decodeSourceMap('1:2:0:-;:3;;4::1:i'), [
      { start: 1, length: 2, file: 0, jump: '-' },
      { start: 1, length: 3, file: 0, jump: '-' },
      { start: 1, length: 3, file: 0, jump: '-' },
      { start: 4, length: 3, file: 1, jump: 'i' },
    ]);
    assert.deepEqual(decodeSourceMap('1:x:0'), [], 'malformed: unusable, no exception');
    assert.deepEqual([...instructionIndex(Uint8Array.from([0x60, 0x01, 0x61, 0x02, 0x03, 0x00]))], [0, -1, 1, -1, -1, 2]);
  });

  it('finds lines, columns and enclosing definitions, skipping comments and strings', () => {
    const text = 'contract A {\n  // function fake() {\n  string s = "function x() {";\n  function f(function (uint) external g) public {\n    g(1);\n  }\n}\n';
    const t = new SourceText('a.sol', text);
    const at = text.indexOf('g(1)');
    assert.deepEqual(t.position(at), { line: 5, column: 5 });
    assert.deepEqual(t.enclosing(at), { contract: 'A', function: 'f' });
    assert.deepEqual(t.enclosing(text.indexOf('string s')), { contract: 'A' });
    assert.equal(t.line(5), '    g(1);');
  });

  for (const [layout, dir] of Object.entries(LAYOUTS)) {
    it(`maps program counters to Solidity (${layout})`, () => {
      const thrower = locations(dir, 'Thrower');
      for (const want of ['Thrower.requireString src/Thrower.sol:27', 'Thrower.custom src/Thrower.sol:31', 'Thrower.invalid src/Thrower.sol:56']) {
        assert.ok(thrower.has(want), `${want} in ${[...thrower].join(', ')}`);
      }
      assert.ok(locations(dir, 'Caller').has('Caller.callRequire src/Thrower.sol:78'));
      assert.ok(locations(dir, 'Checks').has('Checks.atLeast src/Thrower.sol:11'));
    });
  }

  it('matches code whose immutables and metadata hash differ from the artifact', () => {
    const dir = LAYOUTS['foundry-opt'];
    const plain = locations(dir, 'Thrower');
    const changed = locations(dir, 'Thrower', (code) => {
      code[code.length - 10] ^= 0xff; // inside the CBOR metadata
    });
    assert.deepEqual(changed, plain);
    const other = loadArtifacts([dir], () => undefined);
    const code = runtimeOf(dir, 'Thrower');
    code[5] ^= 0xff;
    assert.equal(other.sources.code(code, false), undefined, 'other code: no source');
  });

  it('leaves out a stale build info and an edited source, naming the folder once', () => {
    const hh = join(tmp, 'hh');
    cpSync(LAYOUTS['hardhat-opt'], hh, { recursive: true });
    const thrower = join(hh, 'src', 'Thrower.sol', 'Thrower.json');
    const json = JSON.parse(readFileSync(thrower, 'utf8'));
    json.deployedBytecode = json.deployedBytecode.replace(/5b/, '5c');
    writeFileSync(thrower, JSON.stringify(json));
    const warnings: string[] = [];
    const a = loadArtifacts([hh], (w) => warnings.push(w));
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /hh: src\/Thrower.sol:Thrower differs from the build info .* its source locations are not used/);
    assert.equal(a.sources.code(runtimeOf(LAYOUTS['hardhat-opt'], 'Caller'), false)?.name, 'Caller', 'the other contracts keep theirs');

    const project = join(tmp, 'forge');
    cpSync(join(ROOT, 'src'), join(project, 'src'), { recursive: true });
    cpSync(LAYOUTS['foundry-opt'], join(project, 'out'), { recursive: true });
    writeFileSync(join(project, 'src', 'Thrower.sol'), readFileSync(join(project, 'src', 'Thrower.sol'), 'utf8') + '\n// edited\n');
    const forgeWarnings: string[] = [];
    const b = loadArtifacts([join(project, 'out')], (w) => forgeWarnings.push(w));
    assert.equal(forgeWarnings.length, 1, forgeWarnings.join('\n'));
    assert.match(forgeWarnings[0]!, /out: src\/Thrower.sol changed since it was compiled/);
    const src = b.sources.code(runtimeOf(LAYOUTS['foundry-opt'], 'Thrower'), false);
    const code = runtimeOf(LAYOUTS['foundry-opt'], 'Thrower');
    for (let pc = 0; pc < code.length; pc++) assert.notEqual(src?.locate(pc)?.file, 'src/Thrower.sol', 'the edited file is not used; Log.sol still is');
  });

  it('survives malformed build output', () => {
    const bad = join(tmp, 'bad');
    cpSync(LAYOUTS['hardhat-noopt'], bad, { recursive: true });
    const info = join(bad, 'build-info');
    for (const f of ['src/Thrower.sol/Thrower.dbg.json']) writeFileSync(join(bad, f), '{"buildInfo": 7}');
    const [name] = readdirSync(info);
    writeFileSync(join(info, name!), '{"output": {"contracts": {"src/Thrower.sol": {"Caller": {"evm": {"deployedBytecode": {"object": 5}, "bytecode": {}}}}}}, "input": 3}');
    const warnings: string[] = [];
    const a = loadArtifacts([bad], (w) => warnings.push(w));
    assert.ok(a.size > 0);
    assert.equal(a.sources.code(runtimeOf(LAYOUTS['hardhat-noopt'], 'Caller'), false), undefined);
    assert.ok(warnings.length <= 1, warnings.join('\n'));
  });
});
