/**
 * The state manager empties its caches at every setStateRoot (a call at another block, a revert,
 * every run of an estimate's search). lru-cache's clear writes every slot of its preallocated
 * arrays, 100,000 per cache here, however few entries it holds (and so does deleting its last
 * entry): about a millisecond of every test of a suite-shaped workload went there. An LRU holding
 * few entries is emptied by evicting them one by one (`pop`), which leaves it as a clear would:
 * no entries, no free list, head and tail at slot 0. A fuller one still takes the whole clear.
 */
import type { Caches } from '@ethereumjs/statemanager';

export interface Lru {
  readonly size: number;
  readonly max: number;
  pop(): unknown;
  clear(): void;
}

/** Up to this share of its capacity, an LRU is emptied entry by entry. */
const FEW = 1 / 16;

export function cheapClears(caches: Caches): void {
  for (const cache of [caches.account, caches.storage, caches.code]) {
    const lru = (cache as unknown as { _lruCache?: Lru } | undefined)?._lruCache;
    if (lru !== undefined) cheapClear(lru);
  }
}

export function cheapClear(lru: Lru): void {
  const clear = lru.clear.bind(lru);
  lru.clear = () => {
    if (lru.size > lru.max * FEW) return clear();
    while (lru.size > 0) lru.pop();
  };
}
