/**
 * The state caches start small and take their full size when they first fill. lru-cache
 * allocates its whole capacity up front: at 100,000 accounts and 100,000 storage slots that is
 * about 5.6 MB of arrays per node, written out at every start (most of the RSS and ~4 ms of a boot
 * whose chain holds a few dozen accounts), for caches a dev chain rarely fills. Each LRU here is
 * created with room for START entries; the first `set` that would evict moves its entries, oldest
 * first, into an LRU of the full size, which replaces it. Nothing is evicted below the full size,
 * so what the caches hold, and when a write goes to the trie (flushEvery), is what full-size LRUs
 * would give.
 */
import { CacheType, Caches } from '@ethereumjs/statemanager';
import { cheapClear, type Lru } from './cacheClear.js';

/** Entries each LRU has room for until it first fills. */
export const START = 1024;

interface GrowingLru extends Lru {
  has(key: string): boolean;
  set(key: string, value: unknown): unknown;
  rentries(): Iterable<[string, unknown]>;
  readonly constructor: new (options: { max: number; updateAgeOnGet: boolean }) => GrowingLru;
}

/** LRU caches of `size` accounts and storage slots (code: a tenth), allocated as they fill. */
export function growingCaches(size: number): Caches {
  const full = { account: size, storage: size, code: Math.max(1, Math.floor(size / 10)) };
  const caches = new Caches({
    account: { type: CacheType.LRU, size: Math.min(START, full.account) },
    storage: { type: CacheType.LRU, size: Math.min(START, full.storage) },
    code: { type: CacheType.LRU, size: Math.min(START, full.code) },
  });
  for (const kind of ['account', 'storage', 'code'] as const) {
    // Copies of the caches (shallowCopy) read their sizes here: the configured ones.
    caches.settings[kind].size = full[kind];
    const holder = caches[kind] as unknown as { _lruCache: GrowingLru };
    const small = holder._lruCache;
    cheapClear(small);
    if (small.max >= full[kind]) continue;
    const set = small.set.bind(small);
    small.set = (key, value) => {
      if (small.size < small.max || small.has(key)) return set(key, value);
      // lru-cache's own class, as ethereumjs created it (updateAgeOnGet as there).
      const big = new small.constructor({ max: full[kind], updateAgeOnGet: true });
      for (const [k, v] of small.rentries()) big.set(k, v);
      cheapClear(big);
      holder._lruCache = big;
      return big.set(key, value);
    };
  }
  return caches;
}
