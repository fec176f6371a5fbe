import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { bigIntToBytes, bytesToHex, bytesToUnprefixedHex, setLengthLeft, setLengthRight } from '@ethereumjs/util';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MARKER, PRISTINE, applyPatches, checkPins, parseDiff, readPatches, type PackagePatch } from '../../src/build/patchDeps.js';
import { tempDir } from '../support/tmp.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPT = join(ROOT, 'dist', 'src', 'build', 'patchDeps.js');

/** A node_modules folder with one package `@x/lib` at `version` holding `lib.js`, and a patches folder. */
function sandbox(version: string, lib: string) {
  const dir = tempDir('node-rpc-patch-');
  const nm = join(dir, 'node_modules');
  mkdirSync(join(nm, '@x', 'lib'), { recursive: true });
  writeFileSync(join(nm, '@x', 'lib', 'package.json'), JSON.stringify({ name: '@x/lib', version }));
  writeFileSync(join(nm, '@x', 'lib', 'lib.js'), lib);
  mkdirSync(join(dir, 'patches'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ dependencies: { '@x/lib': '1.0.0' } }));
  const build = () => execFileSync(process.execPath, [SCRIPT, nm, join(dir, 'patches'), join(dir, 'package.json')], { encoding: 'utf8', stdio: 'pipe' });
  return { dir, nm, file: join(nm, '@x', 'lib', 'lib.js'), patch: join(dir, 'patches', '@x+lib+1.0.0.patch'), build };
}

const LIB = 'a();\nslow();\nb();\nc();\n';
const diff = (line: string) => `Why: slow() was slow.\n\ndiff --git a/lib.js b/lib.js\n--- a/lib.js\n+++ b/lib.js\n@@ -1,3 +1,4 @@\n a();\n-slow();\n+${MARKER}demo */\n+${line}\n b();\n`;
const wrongPins = (range: string) => ({ dependencies: { '@x/lib': range } });

test('a unified diff applies to the pristine file; the build keeps the pristine copy', () => {
  const s = sandbox('1.0.0', LIB);
  writeFileSync(s.patch, diff('fast();'));
  assert.match(s.build(), /patched @x\/lib\/lib\.js/);
  assert.equal(readFileSync(s.file, 'utf8'), `a();\n${MARKER}demo */\nfast();\nb();\nc();\n`);
  assert.equal(readFileSync(join(s.nm, PRISTINE, '@x', 'lib@1.0.0', 'lib.js'), 'utf8'), LIB);
  assert.equal(s.build(), '', 'a second build changes nothing');
});

test('changing one line of a patch and building again applies the new line', () => {
  const s = sandbox('1.0.0', LIB);
  writeFileSync(s.patch, diff('fast();'));
  s.build();
  writeFileSync(s.patch, diff('faster();'));
  s.build();
  assert.equal(readFileSync(s.file, 'utf8'), `a();\n${MARKER}demo */\nfaster();\nb();\nc();\n`);
  // A patch removed: its file goes back to the published text.
  rmSync(s.patch);
  assert.match(s.build(), /restored @x\/lib\/lib\.js/);
  assert.equal(readFileSync(s.file, 'utf8'), LIB);
});

test('another installed version fails the build in one line naming the package', () => {
  const s = sandbox('1.0.1', LIB);
  writeFileSync(s.patch, diff('fast();'));
  assert.throws(s.build, (e: { stderr: string; status: number }) => {
    assert.equal(e.status, 1);
    assert.equal(e.stderr.trim().split('\n').length, 1);
    assert.match(e.stderr, /^@x\/lib 1\.0\.1 is installed, but node-rpc is pinned to and checked against 1\.0\.0/);
    return true;
  });
  assert.equal(readFileSync(s.file, 'utf8'), LIB);
  assert.throws(() => checkPins(s.nm, wrongPins('^1.0.0'), readPatches(join(s.dir, 'patches'))), /@x\/lib must be pinned to one exact version in package\.json, not '\^1\.0\.0'/);
});

test('a hunk whose context changed fails the build naming the patch, and nothing is written', () => {
  const s = sandbox('1.0.0', 'a();\nquick();\nb();\n');
  writeFileSync(s.patch, diff('fast();'));
  assert.throws(s.build, (e: { stderr: string }) => /dependency patch @x\+lib\+1\.0\.0\.patch no longer applies to lib\.js: the code at line 1 changed/.test(e.stderr));
  assert.equal(readFileSync(s.file, 'utf8'), 'a();\nquick();\nb();\n');
  assert.equal(existsSync(join(s.nm, PRISTINE)), false);
});

test('a file patched by an older build without a pristine copy is refused', () => {
  const s = sandbox('1.0.0', `${MARKER}old */\n` + LIB);
  writeFileSync(s.patch, diff('fast();'));
  assert.throws(s.build, (e: { stderr: string }) => /@x\/lib\/lib\.js holds patches but no pristine copy: reinstall it with npm ci/.test(e.stderr));
});

test('diffs: several hunks, added and removed lines, commentary before the first file', () => {
  const files = parseDiff('notes\n--- a/lib.js\n+++ b/lib.js\n@@ -1,2 +1,2 @@\n-x\n+y\n z\n@@ -5 +5,2 @@\n w\n+v\n');
  assert.deepEqual(files, [
    { path: 'lib.js', hunks: [ { start: 1, before: ['x', 'z'], after: ['y', 'z'] }, { start: 5, before: ['w'], after: ['w', 'v'] } ] },
  ]);
  const patch: PackagePatch = { name: 'p', pkg: '@x/lib', version: '1.0.0', files };
  const s = sandbox('1.0.0', 'x\nz\n3\n4\nw\n');
  applyPatches(s.nm, [patch]);
  assert.equal(readFileSync(s.file, 'utf8'), 'y\nz\n3\n4\nw\nv\n');
});

test('the build applied every dependency patch to the installed packages, all pinned', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  checkPins(join(ROOT, 'node_modules'), manifest);
  const patches = readPatches(join(ROOT, 'src', 'chain', 'engine', 'patches'));
  assert.ok(patches.length >= 4);
  for (const patch of patches) assert.equal({ ...manifest.devDependencies, ...manifest.dependencies }[patch.pkg], patch.version, `${patch.name} is for the pinned version`);
  // All at once (a file no patch names would be restored): nothing to write when the build did it.
  for (const r of applyPatches(join(ROOT, 'node_modules'), patches)) assert.equal(r.outcome, 'unchanged', `${r.file} is not as its patch makes it`);
});

test('the patched padding helpers still pad, keep input, and refuse to truncate', () => {
  const b = new Uint8Array([1, 2, 3]);
  assert.deepEqual(setLengthLeft(b, 5), new Uint8Array([0, 0, 1, 2, 3]));
  assert.deepEqual(setLengthRight(b, 5), new Uint8Array([1, 2, 3, 0, 0]));
  assert.deepEqual(b, new Uint8Array([1, 2, 3]));
  assert.deepEqual(setLengthLeft(new Uint8Array(0), 2), new Uint8Array([0, 0]));
  assert.throws(() => setLengthLeft(new Uint8Array(33), 32), /exceeds target length/);
  assert.deepEqual(setLengthLeft(new Uint8Array([9, 8, 7]), 2, { allowTruncate: true }), new Uint8Array([8, 7]));
});

test('the patched hex encoder gives the same strings, honours views, and still rejects non-bytes', () => {
  assert.equal(bytesToUnprefixedHex(new Uint8Array([0, 1, 0xab, 0xff])), '0001abff');
  assert.equal(bytesToUnprefixedHex(new Uint8Array(0)), '');
  const backing = new Uint8Array([9, 9, 0xde, 0xad, 9]);
  assert.equal(bytesToUnprefixedHex(backing.subarray(2, 4)), 'dead');
  assert.equal(bytesToHex(new Uint8Array(32).fill(0x5a)), '0x' + '5a'.repeat(32));
  assert.throws(() => bytesToUnprefixedHex('0x12' as never), /Uint8Array/);
  assert.throws(() => bytesToUnprefixedHex([1, 2] as never), /Uint8Array/);
});

test('the patched bigIntToBytes gives minimal big-endian bytes and rejects negatives', () => {
  assert.deepEqual(bigIntToBytes(0n), new Uint8Array([0]));
  assert.deepEqual(bigIntToBytes(0xabcn), new Uint8Array([0x0a, 0xbc]));
  assert.deepEqual(bigIntToBytes(2n ** 255n), new Uint8Array([0x80, ...new Array(31).fill(0)]));
  assert.deepEqual(bigIntToBytes(0x0102n, true), new Uint8Array([2, 1]));
  assert.throws(() => bigIntToBytes(-1n));
});
