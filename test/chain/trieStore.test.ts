/**
 * The node's trie node store: values are bytes (shared by the store and the trie's node cache), a
 * view into a larger buffer is stored as its own bytes, and a replica built from the logged writes
 * opens the same state roots as the node.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account, Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { makeCommon } from '../../src/chain/engine/common.js';
import { createEngine } from '../../src/chain/engine/engine.js';
import { RecordedMap, applyWrites, type StoreValue } from '../../src/chain/exec/offload/replica.js';

const history = {
  getBlock: async () => {
    throw new Error('no history');
  },
  putBlock: async () => {},
  shallowCopy() {
    return history;
  },
};

test('a view into a larger buffer is stored as its own bytes; whole arrays are kept as they are', () => {
  const store = new RecordedMap();
  const big = new Uint8Array(4096).fill(7);
  const view = big.subarray(10, 42);
  store.set('a', view);
  const kept = store.get('a')!;
  assert.equal(kept.buffer.byteLength, 32);
  assert.deepEqual(kept, view);
  const whole = new Uint8Array([1, 2, 3]);
  store.set('b', whole);
  assert.equal(store.get('b'), whole);
});

test('logged writes reach a replica in order, deletions included, as views into one buffer', () => {
  const store = new RecordedMap();
  store.set('old', new Uint8Array([9]));
  const replica = new Map<string, StoreValue>();
  applyWrites(replica, store.startLog());
  store.set('a', new Uint8Array([1, 2]));
  store.delete('a');
  store.delete('old');
  store.set('b', new Uint8Array([3]));
  store.delete('b');
  store.set('b', new Uint8Array([4, 5, 6]));
  const writes = store.take()!;
  assert.equal(writes.data.byteLength, 6);
  applyWrites(replica, writes);
  assert.deepEqual([...replica.keys()], ['b']);
  assert.deepEqual(replica.get('b'), new Uint8Array([4, 5, 6]));
  assert.equal(replica.get('b')!.buffer, writes.data.buffer);
  assert.equal(store.take(), undefined, 'taken writes are not sent twice');
});

test('writes are logged only while a replica exists, and a replica opens the same roots', async () => {
  const common = makeCommon(984n, 'prague');
  const store = new RecordedMap();
  const node = await createEngine(common, history, { nodes: store });
  const a = new Address(hexToBytes('0x00000000000000000000000000000000000000a1'));
  const b = new Address(hexToBytes('0x00000000000000000000000000000000000000b2'));

  await node.state.putAccount(a, new Account(1n, 100n));
  await node.state.putCode(a, hexToBytes('0x6001600101'));
  await node.state.flush();
  const root1 = await node.state.getStateRoot();
  assert.equal(store.take(), undefined, 'nothing is logged without a replica');
  for (const v of store.values()) assert.ok(v instanceof Uint8Array, 'the store holds bytes');

  const replica = new Map<string, StoreValue>();
  applyWrites(replica, store.startLog());
  await node.state.putAccount(b, new Account(0n, 5n));
  await node.state.putStorage(a, new Uint8Array(32).fill(1), hexToBytes('0x2a'));
  await node.state.flush();
  const root2 = await node.state.getStateRoot();
  applyWrites(replica, store.take()!);
  store.stopLog();

  const copy = await createEngine(common, history, { nodes: replica, cacheSize: 'unbounded' });
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
