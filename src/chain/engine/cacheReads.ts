/**
 * What a read of the trie found, kept in the state manager's caches as read, not as written.
 *
 * ethereumjs's caches have one way in, `put`, and it notes every entry put as changed at the
 * current checkpoint: a flush writes each such entry back into the trie. An account or a slot
 * that was only read went back in too, unchanged: a trie put walking and re-hashing its whole path
 * (~20 µs), or a delete walking to a key that is not there. Every automined block paid for the
 * sender's account read on admission and for the system contracts that do not exist on a dev chain
 * (EIP-2935, EIP-4788, EIP-7002, EIP-7251 and the system address), and every block for each slot
 * a transaction read without writing it.
 *
 * An entry kept here has no change record, so no flush writes it and no revert of a checkpoint
 * takes it out. That is right because it holds what the trie holds for the key: it is read only
 * on a cache miss, and a key changed since the last flush is never a miss (written entries stay
 * in the cache until a flush has put them in the trie). A revert of the state root (setStateRoot:
 * snapshots, calls at other blocks) empties the caches, these entries with them.
 */
import type { AccountCache, CodeCache, StorageCache } from '@ethereumjs/statemanager';
import { bytesToUnprefixedHex, type Address } from '@ethereumjs/util';

/** The two stores an ethereumjs cache keeps its entries in, one of them set (by its type). */
interface Backing<V> {
  _lruCache?: { get(key: string): V | undefined; set(key: string, value: V): unknown };
  _orderedMapCache?: { getElementByKey(key: string): V | undefined; setElement(key: string, value: V): unknown };
}

function set<V>(cache: Backing<V>, key: string, value: V): void {
  if (cache._lruCache !== undefined) cache._lruCache.set(key, value);
  else cache._orderedMapCache!.setElement(key, value);
}

function get<V>(cache: Backing<V>, key: string): V | undefined {
  return cache._lruCache !== undefined ? cache._lruCache.get(key) : cache._orderedMapCache!.getElementByKey(key);
}

/**
 * Keep an account read from the trie as AccountCache.put stores it: its RLP as the trie holds it
 * (canonical, what serializing the decoded account gives), undefined when it is not in the trie.
 */
export function keepAccountRead(cache: AccountCache | undefined, address: Address, accountRLP: Uint8Array | undefined): void {
  if (cache === undefined) return;
  set(cache as unknown as Backing<{ accountRLP: Uint8Array | undefined }>, bytesToUnprefixedHex(address.bytes), { accountRLP });
}

/** Keep a slot read from the trie (its RLP; RLP of empty bytes: an empty slot), as StorageCache.put stores it. */
export function keepStorageRead(cache: StorageCache | undefined, address: Address, key: Uint8Array, value: Uint8Array): void {
  if (cache === undefined) return;
  const backing = cache as unknown as Backing<Map<string, Uint8Array>>;
  const addressHex = bytesToUnprefixedHex(address.bytes);
  const slots = get(backing, addressHex) ?? new Map<string, Uint8Array>();
  slots.set(bytesToUnprefixedHex(key), value);
  set(backing, addressHex, slots);
}

/** Keep code read from the code store, as CodeCache.put stores it. */
export function keepCodeRead(cache: CodeCache | undefined, address: Address, code: Uint8Array): void {
  if (cache === undefined) return;
  set(cache as unknown as Backing<{ code: Uint8Array }>, bytesToUnprefixedHex(address.bytes), { code });
}
