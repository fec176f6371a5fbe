/** growingCaches: LRUs that start small hold, order and evict as full-size ones from the start would. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account, createAddressFromString } from '@ethereumjs/util';
import { CacheType, Caches } from '@ethereumjs/statemanager';
import { START, growingCaches } from '../../src/chain/engine/growingCaches.js';

const addr = (i: number) => createAddressFromString('0x' + i.toString(16).padStart(40, '0'));
const lruOf = (caches: Caches) => (caches.account as unknown as { _lruCache: { max: number } })._lruCache;

test('past its start size a cache keeps every entry, and evicts the least recently used at the full size, as a full-size LRU does', () => {
  const full = START * 3;
  const grown = growingCaches(full);
  const plain = new Caches({ account: { type: CacheType.LRU, size: full }, storage: { type: CacheType.LRU, size: full }, code: { type: CacheType.LRU, size: Math.floor(full / 10) } });
  assert.equal(lruOf(grown).max, START);
  assert.deepEqual(grown.settings, plain.settings);
  const total = full + 500;
  for (let i = 0; i < total; i++) {
    for (const c of [grown, plain]) {
      c.account!.put(addr(i), new Account(BigInt(i)));
      // Reads move entries to the front: the first 100 stay the most recently used.
      if (i > START && i % 7 === 0) c.account!.get(addr(i % 100));
    }
    if (i === START - 1) assert.equal(lruOf(grown).max, START);
    if (i === START) assert.equal(lruOf(grown).max, full);
  }
  assert.equal(grown.account!.size(), plain.account!.size());
  for (let i = 0; i < total; i++) {
    const a = grown.account!.get(addr(i));
    const b = plain.account!.get(addr(i));
    assert.equal(a === undefined, b === undefined, `entry ${i}`);
    if (a !== undefined) assert.deepEqual(a.accountRLP, b!.accountRLP);
  }
  // The grown LRU is emptied as the others are (cacheClear.ts).
  grown.clear();
  assert.equal(grown.account!.size(), 0);
});

test('checkpoints and reverts across the growth restore what was there before', () => {
  const caches = growingCaches(START * 2);
  for (let i = 0; i < START; i++) caches.account!.put(addr(i), new Account(1n));
  caches.checkpoint();
  for (let i = 0; i < START; i++) caches.account!.put(addr(i + START), new Account(2n));
  caches.account!.put(addr(0), new Account(3n));
  assert.equal(lruOf(caches).max, START * 2);
  caches.revert();
  assert.deepEqual(caches.account!.get(addr(0))!.accountRLP, new Account(1n).serialize());
  assert.equal(caches.account!.get(addr(START + 1)), undefined);
});
