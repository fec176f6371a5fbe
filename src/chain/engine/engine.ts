/**
 * The execution engine exactly as the node runs it: its Common (fixed hardfork, memoized
 * parameters), the state trie hashing keys through the preimage store, the state manager with its
 * caches and fork read-through, and the VM over them. The node builds its chain on one; the
 * consensus tests (test/consensus) run the Ethereum state tests on others built the same way.
 */
import type { Common } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { CacheType, Caches } from '@ethereumjs/statemanager';
import { growingCaches } from './growingCaches.js';
import { ValueEncoding } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';
import { ForkLink, NodeStateManager } from './forkState.js';
import { keccak256 } from '../core/keccak.js';
import { installFastLoop } from './loop/install.js';
import { NodeDB, NodeStore, type NodeMap } from './nodeStore.js';
import { NodeTrie } from './nodeTrie.js';
import { Preimages } from './preimages.js';

export interface Engine {
  common: Common;
  preimages: Preimages;
  stateTrie: NodeTrie;
  state: NodeStateManager;
  vm: VM;
}

/** Where an engine keeps its state, and how much of it stays decoded. */
export interface EngineOptions {
  /** The fork read-through (default: none). */
  link?: ForkLink;
  /** The trie's nodes and code, as bytes by hex key (default: an empty NodeStore). */
  nodes?: NodeMap;
  /**
   * Accounts in each of the account and storage caches (default 100,000; code: a tenth), or
   * `unbounded` for caches that never evict (the cache must hold every entry a run modifies: an
   * evicted one loses its write).
   */
  cacheSize?: number | 'unbounded';
}

/** A fresh engine; `history` answers BLOCKHASH. */
export async function createEngine(common: Common, history: EVMMockBlockchainInterface, options: EngineOptions = {}): Promise<Engine> {
  const { link = new ForkLink(), nodes = new NodeStore(), cacheSize = 100_000 } = options;
  const preimages = new Preimages();
  // Keys and nodes hashed with the WebAssembly keccak (the Common's too); the keys written go to
  // the preimages a state dump needs.
  // Values as bytes: the default (hex text) kept every node twice as text and converted each node
  // written to hex. No byte cache (ethereumjs's LRU of 50,000 encoded nodes): the store is in
  // memory, and a Map read is cheaper than the cache's bookkeeping. What costs is decoding, so
  // NodeTrie keeps the few hundred nodes last used decoded instead (nodeTrie.ts).
  const stateTrie = new NodeTrie(
    {
      db: new NodeDB(nodes),
      valueEncoding: ValueEncoding.Bytes,
      useKeyHashing: true,
      useKeyHashingFunction: keccak256,
    },
    undefined,
    preimages.written,
  );
  // Account/code/storage caches (off by default in ethereumjs) keep the live state warm. Reads go
  // through to the fork upstream while there is a fork; otherwise this is the plain Merkle state.
  const caches =
    cacheSize === 'unbounded'
      ? new Caches({ account: { type: CacheType.ORDERED_MAP }, storage: { type: CacheType.ORDERED_MAP }, code: { type: CacheType.ORDERED_MAP } })
      : growingCaches(cacheSize);
  const state = new NodeStateManager({ link, common, caches, trie: stateTrie });
  // Writes outside blocks go into the trie before the caches could evict them (cachedState.ts).
  if (cacheSize !== 'unbounded') state.flushEvery = Math.max(1, Math.floor(cacheSize / 10));
  await installFastLoop();
  const vm = await createVM({ common, stateManager: state, blockchain: history, setHardfork: false });
  return { common, preimages, stateTrie, state, vm };
}
