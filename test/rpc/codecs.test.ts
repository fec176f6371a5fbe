import assert from 'node:assert/strict';
import { test } from 'node:test';
import { address, blockId, blockNumberOrTag, bool, bytesN, data, optional, quantity, struct, uint } from '../../src/rpc/codecs.js';
import { RpcError } from '../../src/rpc/errors.js';

function rejects(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => err instanceof RpcError && err.code === -32602 && pattern.test(err.message));
}

test('quantity accepts minimal hex and rejects every other shape', () => {
  assert.equal(quantity.parse('0x0', '0'), 0n);
  assert.equal(quantity.parse('0x1f', '0'), 31n);
  assert.equal(quantity.parse('0xFF', '0'), 255n);
  rejects(() => quantity.parse('0x', '0'), /empty hex/);
  rejects(() => quantity.parse('0x01', '0'), /leading zero/);
  rejects(() => quantity.parse('12', '0'), /without 0x prefix/);
  rejects(() => quantity.parse('0xg1', '0'), /invalid hex QUANTITY/);
  rejects(() => quantity.parse(12, '1'), /argument 1: expected a hex QUANTITY string, got number/);
  rejects(() => quantity.parse(null, '0'), /got null/);
});

test('uint bounds to safe integers', () => {
  assert.equal(uint.parse('0x10', '0'), 16);
  rejects(() => uint.parse('0x20000000000000', '0'), /too large/);
});

test('data needs 0x, hex digits and an even length', () => {
  assert.deepEqual(data.parse('0x', '0'), new Uint8Array());
  assert.deepEqual(data.parse('0x0aff', '0'), new Uint8Array([10, 255]));
  assert.deepEqual(data.parse('0xDeadBEEF' + '01'.repeat(5000), '0'), Uint8Array.from([0xde, 0xad, 0xbe, 0xef, ...new Array(5000).fill(1)]));
  rejects(() => data.parse('0xabc', '0'), /odd length/);
  rejects(() => data.parse('abcd', '0'), /without 0x prefix/);
  rejects(() => data.parse('0xzz', '0'), /invalid hex string/);
  rejects(() => data.parse({}, '0'), /got object/);
});

test('fixed-size DATA and addresses check their length', () => {
  assert.equal(bytesN(32).parse('0x' + '11'.repeat(32), '0').length, 32);
  rejects(() => bytesN(32, 'hash').parse('0x11', '0'), /expected hash \(32 bytes\), got 1 bytes/);
  assert.equal(address.parse('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', '0').toString(), '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
  rejects(() => address.parse('0x1234', '0'), /address/);
});

test('block references: tags, numbers and EIP-1898 objects', () => {
  assert.deepEqual(blockNumberOrTag.parse('latest', '1'), { kind: 'tag', tag: 'latest' });
  assert.deepEqual(blockNumberOrTag.parse('finalized', '1'), { kind: 'tag', tag: 'finalized' });
  assert.deepEqual(blockNumberOrTag.parse('0x2', '1'), { kind: 'number', number: 2n });
  rejects(() => blockNumberOrTag.parse('newest', '1'), /expected a block number or one of latest/);
  rejects(() => blockNumberOrTag.parse({ blockNumber: '0x1' }, '1'), /expected a block number/);
  const hash = '0x' + 'ab'.repeat(32);
  const byHash = blockId.parse({ blockHash: hash, requireCanonical: true }, '1');
  assert.equal(byHash.kind, 'hash');
  assert.equal(byHash.kind === 'hash' && byHash.requireCanonical, true);
  assert.deepEqual(blockId.parse({ blockNumber: '0x5' }, '1'), { kind: 'number', number: 5n });
  rejects(() => blockId.parse({ blockHash: hash, blockNumber: '0x1' }, '1'), /both blockHash and blockNumber/);
  rejects(() => blockId.parse({}, '1'), /needs blockHash or blockNumber/);
  rejects(() => blockId.parse({ blockHash: '0x12' }, '1'), /1\.blockHash/);
});

test('optional and struct name the field at fault', () => {
  assert.equal(optional(bool, false).parse(undefined, '1'), false);
  assert.equal(optional(bool).parse(null, '1'), undefined);
  const s = struct({ a: quantity, b: optional(data) });
  assert.deepEqual(s.parse({ a: '0x1', extra: 1 }, '0'), { a: 1n, b: undefined });
  rejects(() => s.parse({}, '0'), /argument 0\.a: missing value/);
  rejects(() => s.parse({ a: '0x1', b: 5 }, '0'), /argument 0\.b/);
  rejects(() => s.parse([], '0'), /expected object, got array/);
});
