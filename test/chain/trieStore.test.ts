/**
 * The node's trie node store: values are copied into slabs and read back as views, a key written
 * again with the same bytes takes no more room, and a replica built from the logged writes reads
 * the same slabs and opens the same state roots as the node.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account, Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { makeCommon } from '../../src/chain/engine/common.js';
import { createEngine } from '../../src/chain/engine/engine.js';
import { NodeStore, SLAB } from '../../src/chain/engine/nodeStore.js';
import { RecordedStore, StoreReplica } from '../../src/chain/exec/offload/replica.js';
import { NO_HISTORY } from '../support/engine.js';

/** Slabs of 1 MiB, so a few thousand entries fill several. */
const MiB = 1 << 20;

test('values are copied into slabs: later changes to the array written do not reach the store', () => {
  const store = new NodeStore(MiB);
  const whole = new Uint8Array([1, 2, 3]);
  store.set('a', whole);
  const big = new Uint8Array(4096).fill(7);
  store.set('b', big.subarray(10, 42));
  whole[0] = 9;
  big.fill(0);
  assert.deepEqual(store.get('a'), new Uint8Array([1, 2, 3]));
  assert.deepEqual(store.get('b'), new Uint8Array(32).fill(7));
  assert.equal(store.get('a')!.buffer, store.get('b')!.buffer, 'small values share a slab');
  assert.equal(store.get('missing'), undefined);
  assert.equal(store.size, 2);
});

test('the node\'s store takes 32 MiB slabs (each a mapping of its own) and counts only the bytes written', () => {
  const store = new NodeStore();
  assert.equal(SLAB, 32 * MiB);
  store.set('a', new Uint8Array(100));
  assert.equal(store.get('a')!.buffer.byteLength, SLAB);
  assert.equal(store.used, 104, 'each value after its 4-byte length');
  store.set('big', new Uint8Array(SLAB / 4));
  assert.equal(store.get('big')!.buffer.byteLength, SLAB / 4 + 4, 'over a quarter of a slab: a slab of its own');
  assert.throws(() => new NodeStore(SLAB + 1), RangeError);
});

test('a value longer than any trie node (contract code) comes back as the same array every time', () => {
  const store = new NodeStore(MiB);
  store.set('code', new Uint8Array(533).fill(0x5b));
  store.set('node', new Uint8Array(532).fill(1));
  assert.equal(store.get('code'), store.get('code'), 'the interpreter keeps its code analysis by identity');
  assert.notEqual(store.get('node'), store.get('node'));
  assert.deepEqual(store.get('node'), store.get('node'));
  const replica = new StoreReplica();
  const recorded = new RecordedStore(MiB);
  recorded.set('code', new Uint8Array(2000).fill(0x60));
  replica.apply(recorded.startLog());
  assert.equal(replica.get('code'), replica.get('code'));
});

test('entries across many slabs, a value bigger than a quarter slab, rewrites and deletions', () => {
  const store = new NodeStore(MiB);
  const value = (i: number) => new Uint8Array(1 + ((i * 37) % 600)).fill(i & 0xff);
  for (let i = 0; i < 10_000; i++) store.set(`k${i}`, value(i));
  const huge = new Uint8Array(700_000).map((_, i) => i % 251);
  store.set('code', huge);
  store.set('after', value(3));
  assert.ok(store.used > 3 * (1 << 20), 'several slabs filled');
  for (let i = 0; i < 10_000; i += 7) assert.deepEqual(store.get(`k${i}`), value(i), `entry ${i}`);
  assert.deepEqual(store.get('code'), huge);
  assert.deepEqual(store.get('after'), value(3));

  const used = store.used;
  store.set('k5', value(5));
  assert.equal(store.used, used, 'the same bytes under the same key take no more room');
  store.set('k5', new Uint8Array([42]));
  assert.deepEqual(store.get('k5'), new Uint8Array([42]), 'other bytes under a key replace the old ones');
  assert.equal(store.delete('k6'), true);
  assert.equal(store.get('k6'), undefined);
  assert.equal(store.size, 10_001);
  assert.ok(![...store.entries()].some(([k]) => k === 'k6'), 'a deleted key is not listed');
});

test('logged writes reach a replica, each key once at its latest place, deletions included; the bytes are shared, not sent', () => {
  const store = new RecordedStore(MiB);
  store.set('old', new Uint8Array([9]));
  const replica = new StoreReplica();
  const first = store.startLog();
  assert.equal(first.slabs.length, 1);
  assert.ok(first.slabs[0]!.buffer instanceof SharedArrayBuffer);
  replica.apply(first);
  store.set('a', new Uint8Array([1, 2]));
  store.delete('a');
  store.delete('old');
  store.set('b', new Uint8Array([3]));
  store.delete('b');
  store.set('b', new Uint8Array([4, 5, 6]));
  store.set('big', new Uint8Array(300_000).fill(5));
  const writes = store.take()!;
  assert.deepEqual(writes.keys, ['a', 'old', 'b', 'big']);
  assert.equal(writes.slabs.length, 1, 'only the slab made since: the big value has one of its own');
  replica.apply(writes);
  assert.equal(replica.get('a'), undefined);
  assert.equal(replica.get('old'), undefined);
  assert.deepEqual(replica.get('b'), new Uint8Array([4, 5, 6]));
  assert.equal(replica.get('b')!.buffer, store.get('b')!.buffer, 'the replica reads the store\'s own memory');
  assert.deepEqual(replica.get('big'), new Uint8Array(300_000).fill(5));
  assert.equal(replica.size, 2);
  assert.equal(store.take(), undefined, 'taken writes are not sent twice');
  replica.set('mine', new Uint8Array([7]));
  assert.deepEqual(replica.get('mine'), new Uint8Array([7]));
  assert.equal(store.get('mine'), undefined, 'a replica\'s own writes stay its own');
});

test('writes are logged only while a replica exists, and a replica opens the same roots', async () => {
  const common = makeCommon(984n, 'prague');
  const store = new RecordedStore(MiB);
  const node = await createEngine(common, NO_HISTORY, { nodes: store });
  const a = new Address(hexToBytes('0x00000000000000000000000000000000000000a1'));
  const b = new Address(hexToBytes('0x00000000000000000000000000000000000000b2'));

  await node.state.putAccount(a, new Account(1n, 100n));
  await node.state.putCode(a, hexToBytes('0x6001600101'));
  await node.state.flush();
  const root1 = await node.state.getStateRoot();
  assert.equal(store.take(), undefined, 'nothing is logged without a replica');
  assert.ok(store.size > 0, 'the trie wrote its nodes and the code to the store');
  for (const [, v] of store.entries()) assert.ok(v instanceof Uint8Array, 'the store holds bytes');

  const replica = new StoreReplica();
  replica.apply(store.startLog());
  await node.state.putAccount(b, new Account(0n, 5n));
  await node.state.putStorage(a, new Uint8Array(32).fill(1), hexToBytes('0x2a'));
  await node.state.flush();
  const root2 = await node.state.getStateRoot();
  replica.apply(store.take()!);
  store.stopLog();

  const copy = await createEngine(common, NO_HISTORY, { nodes: replica, cacheSize: 'unbounded' });
  for (const [root, balanceB] of [
    [root1, undefined],
    [root2, 5n],
  ] as const) {
    await copy.state.setStateRoot(root);
    assert.equal(bytesToHex(await copy.state.getStateRoot()), bytesToHex(root));
    assert.equal((await copy.state.getAccount(a))?.balance, 100n);
    assert.equal((await copy.state.getAccount(b))?.balance, balanceB);
    assert.equal(bytesToHex(await copy.state.getCode(a)), '0x6001600101');
  }
  assert.equal(bytesToHex(await copy.state.getStorage(a, new Uint8Array(32).fill(1))), '0x2a');
});

test('a rewind to a mark undoes every entry changed since, lets go of the slabs begun since and never writes a byte twice', () => {
  const store = new NodeStore(MiB);
  const value = (i: number, n = 300) => new Uint8Array(n).fill(i & 0xff);
  for (let i = 0; i < 100; i++) store.set(`k${i}`, value(i));
  store.set('code', new Uint8Array(2000).fill(0x5b));
  const code = store.get('code')!;
  const mark = store.mark();
  const slabs = mark.slabs;

  // Since the mark: new keys across several slabs, a value of its own slab, a key given other
  // bytes, a deletion, and a new key deleted again.
  for (let i = 100; i < 9000; i++) store.set(`k${i}`, value(i));
  store.set('huge', new Uint8Array(400_000).fill(3));
  store.set('k5', new Uint8Array([42]));
  store.delete('k6');
  store.set('gone', value(1));
  store.delete('gone');
  const readBefore = store.get('k8000')!;
  assert.ok(store.mark().slabs > slabs + 2);

  assert.equal(store.rewind(mark), 8905);
  assert.equal(store.size, 101);
  for (let i = 0; i < 100; i++) assert.deepEqual(store.get(`k${i}`), value(i), `entry ${i} as it was at the mark`);
  for (const key of ['k100', 'k8999', 'huge', 'gone']) assert.equal(store.get(key), undefined, `${key} is gone`);
  assert.equal(store.get('code'), code, 'the same code array as before');
  assert.equal(store.mark().slabs, slabs, 'the slabs begun since were let go');
  assert.deepEqual(readBefore, value(8000), 'a value read before the rewind keeps its bytes');

  // Writing again after the rewind goes on past the furthest byte written in the slab filled at
  // the mark: that slab was filled up since, so a fresh slab begins.
  const usedAtMark = store.used;
  store.set('next', value(77));
  assert.equal(store.mark().slabs, slabs + 1);
  assert.notEqual(store.get('next')!.buffer, store.get('k0')!.buffer);
  assert.deepEqual(readBefore, value(8000));
  assert.ok(store.used > usedAtMark);
});

test('after a rewind the slab filled at the mark goes on past every byte written in it, so the undone values keep theirs', () => {
  const store = new NodeStore(MiB);
  const value = (i: number, n = 300) => new Uint8Array(n).fill(i & 0xff);
  for (let i = 0; i < 10; i++) store.set(`k${i}`, value(i));
  // What a suite does once per test: a mark, a block's worth of nodes, a rewind (loadFixture).
  for (let round = 0; round < 50; round++) {
    const mark = store.mark();
    for (let i = 0; i < 20; i++) store.set(`r${round}-${i}`, value(round + i));
    const undone = store.get(`r${round}-0`)!;
    const usedBefore = store.used;
    assert.equal(store.rewind(mark), 20);
    assert.equal(store.get(`r${round}-0`), undefined);
    store.set(`after${round}`, value(200 + round));
    const after = store.get(`after${round}`)!;
    assert.equal(after.buffer, store.get('k0')!.buffer, `round ${round}: the same slab, no new one per rewind`);
    assert.ok(after.byteOffset > undone.byteOffset, `round ${round}: written past the undone values`);
    assert.deepEqual(undone, value(round), `round ${round}: an undone value read before the rewind keeps its bytes`);
    assert.equal(store.used, usedBefore + 4 + 300);
    assert.equal(store.mark().slabs, mark.slabs);
  }
});

test('a rewind of mostly new keys (the common case: blocks mined since a snapshot) rebuilds the index and keeps the rest', () => {
  const store = new NodeStore(MiB);
  for (let i = 0; i < 50; i++) store.set(`old${i}`, new Uint8Array([i]));
  const outer = store.mark();
  store.set('between', new Uint8Array([1]));
  const inner = store.mark();
  for (let i = 0; i < 500; i++) store.set(`new${i}`, new Uint8Array(200).fill(i & 0xff));
  assert.equal(store.rewind(inner), 500);
  assert.deepEqual([...store.entries()].map(([k]) => k), [...Array.from({ length: 50 }, (_, i) => `old${i}`), 'between']);
  store.set('after', new Uint8Array([2]));
  assert.equal(store.rewind(outer), 2, 'an older mark undoes what came after it, rewinds included');
  assert.equal(store.size, 50);
  assert.equal(store.rewind(outer), 0, 'nothing left to undo');
  store.endJournal();
  store.set('x', new Uint8Array([3]));
  assert.equal(store.rewind(outer), 0, 'without a journal nothing is undone');
  assert.deepEqual(store.get('x'), new Uint8Array([3]));
});

test('a replica follows a rewind: entry by entry, or a whole new index when most of the store was undone', () => {
  for (const many of [false, true]) {
    const store = new RecordedStore(MiB);
    for (let i = 0; i < 300; i++) store.set(`k${i}`, new Uint8Array(400).fill(i & 0xff));
    store.set('code', new Uint8Array(1000).fill(1));
    const replica = new StoreReplica();
    replica.apply(store.startLog());
    const mark = store.mark();
    const added = many ? 5000 : 20;
    for (let i = 0; i < added; i++) store.set(`n${i}`, new Uint8Array(400).fill(7));
    // Other bytes under an old key make the rewind go entry by entry.
    if (!many) store.set('k1', new Uint8Array([9]));
    store.set('code2', new Uint8Array(1000).fill(2));
    replica.apply(store.take()!);
    assert.deepEqual(replica.get('code2'), new Uint8Array(1000).fill(2));
    store.rewind(mark);
    // Written after the rewind: in slabs at the indexes of the ones let go.
    store.set('late', new Uint8Array(400).fill(8));
    store.set('code3', new Uint8Array(1000).fill(3));
    const writes = store.take()!;
    assert.equal(writes.reset === true, many, many ? 'the whole index again' : 'only what changed');
    replica.apply(writes);
    assert.equal(replica.size, store.size);
    for (const [key, v] of store.entries()) assert.deepEqual(replica.get(key), v, key);
    for (const key of ['n0', 'code2']) assert.equal(replica.get(key), undefined, `${key} is gone from the replica`);
    assert.deepEqual(replica.get('k1'), new Uint8Array(400).fill(1), 'the replica has the value from before the mark again');
    assert.deepEqual(replica.get('code3'), new Uint8Array(1000).fill(3), 'a long value at a reused place is read anew');
    store.stopLog();
  }
});

test('a cleared store (a chain reset) holds nothing and uses up its marks; a replica gets the new store whole', () => {
  const store = new RecordedStore(MiB);
  for (let i = 0; i < 3000; i++) store.set(`k${i}`, new Uint8Array(400).fill(i & 0xff));
  const replica = new StoreReplica();
  replica.apply(store.startLog());
  const mark = store.mark();
  store.set('before', new Uint8Array([1]));
  store.clear();
  assert.equal(store.size, 0);
  assert.equal(store.used, 0, 'every slab let go');
  store.set('genesis', new Uint8Array(1000).fill(5));
  assert.equal(store.rewind(mark), 0, 'marks taken before the clear are used up');
  const writes = store.take()!;
  assert.equal(writes.reset, true);
  replica.apply(writes);
  assert.equal(replica.size, 1);
  assert.equal(replica.get('k1'), undefined);
  assert.deepEqual(replica.get('genesis'), new Uint8Array(1000).fill(5));
  store.stopLog();
});

test('preimages recorded after a mark are forgotten by a rewind to it, one by one or by keeping the rest', async () => {
  const { Preimages } = await import('../../src/chain/engine/preimages.js');
  const { keccak256 } = await import('../../src/chain/core/keccak.js');
  const key = (i: number) => new Uint8Array(20).fill(i);
  const p = new Preimages();
  for (let i = 0; i < 10; i++) p.written(keccak256(key(i)), key(i));
  const outer = p.mark();
  p.written(keccak256(key(10)), key(10));
  const inner = p.mark();
  p.written(keccak256(key(11)), key(11));
  p.written(keccak256(key(3)), key(3));
  p.rewind(inner);
  assert.equal(p.size, 11, 'one by one');
  for (let i = 12; i < 100; i++) p.written(keccak256(key(i)), key(i));
  p.rewind(outer);
  assert.equal(p.size, 10, 'the first ten kept');
  assert.deepEqual(p.get(bytesToHex(keccak256(key(9)))), key(9));
  for (const i of [10, 11, 50]) assert.equal(p.get(bytesToHex(keccak256(key(i)))), undefined, `key ${i} forgotten`);
});

test('a key a rewind put back does not fool a later rewind to an older mark', () => {
  const store = new NodeStore(MiB);
  for (let i = 0; i < 10; i++) store.set(`p${i}`, new Uint8Array([i]));
  const outer = store.mark();
  store.set('n0', new Uint8Array([100]));
  const inner = store.mark();
  store.delete('p3');
  store.rewind(inner);
  assert.deepEqual(store.get('p3'), new Uint8Array([3]), 'put back, now last in the map');
  for (let i = 0; i < 100; i++) store.set(`x${i}`, new Uint8Array([i, 1]));
  store.rewind(outer);
  assert.deepEqual([...store.entries()].map(([k]) => k).sort(), Array.from({ length: 10 }, (_, i) => `p${i}`).sort());
  assert.deepEqual(store.get('p3'), new Uint8Array([3]));
});
