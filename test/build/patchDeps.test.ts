import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { bigIntToBytes, bytesToHex, bytesToUnprefixedHex, setLengthLeft, setLengthRight } from '@ethereumjs/util';
import { PATCHES, applyPatches, markerOf, patchText, type Patch } from '../../src/build/patchDeps.js';

const sample: Patch = { id: 'sample', file: 'pkg/lib.js', why: 'test', edits: [{ find: 'slow();', replace: 'fast();' }] };

test('a patch replaces its text once, marks the file, and a second run changes nothing', () => {
  const first = patchText('a();\nslow();\nb();\n', sample);
  assert.equal(first.outcome, 'applied');
  assert.equal(first.text, 'a();\n/* node-rpc patch: sample */\nfast();\nb();\n');
  const again = patchText(first.text, sample);
  assert.equal(again.outcome, 'already');
  assert.equal(again.text, first.text);
});

test('a patch whose text is gone or ambiguous fails the build and names itself', () => {
  assert.throws(() => patchText('a();\n', sample), /dependency patch 'sample' no longer applies to pkg\/lib\.js/);
  assert.throws(() => patchText('slow();\nslow();\n', sample), /'sample' no longer applies/);
});

test('a patch with several edits applies all of them, or none when one is missing', () => {
  const two: Patch = { id: 'two', file: 'pkg/lib.js', why: 'test', edits: [{ find: 'a();', replace: 'x();' }, { find: 'b();', replace: 'y();' }] };
  assert.equal(patchText('a();\nb();\n', two).text, '/* node-rpc patch: two */\nx();\n/* node-rpc patch: two */\ny();\n');
  const dir = mkdtempSync(join(tmpdir(), 'node-rpc-patch-'));
  const file = join(dir, two.file);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, 'a();\nc();\n');
  assert.throws(() => applyPatches(dir, [two]), /'two' no longer applies/);
  assert.equal(readFileSync(file, 'utf8'), 'a();\nc();\n');
});

test('applyPatches writes patched files under a node_modules directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'node-rpc-patch-'));
  const file = join(dir, sample.file);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, 'slow();\n');
  assert.deepEqual(applyPatches(dir, [sample]), [{ id: 'sample', outcome: 'applied' }]);
  assert.match(readFileSync(file, 'utf8'), /fast\(\);/);
  assert.deepEqual(applyPatches(dir, [sample]), [{ id: 'sample', outcome: 'already' }]);
});

test('the build applied every dependency patch to the installed packages', () => {
  for (const patch of PATCHES) {
    const text = readFileSync(join(process.cwd(), 'node_modules', patch.file), 'utf8');
    assert.ok(text.includes(markerOf(patch)), `${patch.id} is not applied to ${patch.file}`);
  }
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
