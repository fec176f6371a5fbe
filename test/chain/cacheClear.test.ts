/** cheapClears: an LRU emptied entry by entry behaves as one cleared whole, whatever was in it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account, createAddressFromString } from '@ethereumjs/util';
import { CacheType, Caches } from '@ethereumjs/statemanager';
import { cheapClears } from '../../src/chain/engine/cacheClear.js';

const addr = (i: number) => createAddressFromString('0x' + i.toString(16).padStart(40, '0'));

test('a cache emptied by pops (few entries) or by clear (many) is empty and fills again as new', () => {
  for (const n of [1, 3, 6, 7, 64, 100, 150]) {
    const caches = new Caches({ account: { type: CacheType.LRU, size: 100 }, storage: { type: CacheType.LRU, size: 100 }, code: { type: CacheType.LRU, size: 10 } });
    cheapClears(caches);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < n; i++) caches.account!.put(addr(i + round), new Account(BigInt(i + 1)));
      assert.equal(caches.account!.size(), Math.min(n, 100));
      caches.clear();
      assert.equal(caches.account!.size(), 0, `${n} entries, round ${round}`);
      for (let i = 0; i < n; i++) assert.equal(caches.account!.get(addr(i + round)), undefined);
    }
    // Full again past capacity: the oldest are evicted as in a new cache.
    for (let i = 0; i < 120; i++) caches.account!.put(addr(i), new Account(BigInt(i)));
    assert.equal(caches.account!.size(), 100);
    assert.equal(caches.account!.get(addr(0)), undefined);
    assert.notEqual(caches.account!.get(addr(119)), undefined);
  }
});
