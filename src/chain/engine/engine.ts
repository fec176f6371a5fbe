/**
 * The execution engine exactly as the node runs it: its Common (fixed hardfork, memoized
 * parameters), the state trie hashing keys through the preimage store, the state manager with its
 * caches and fork read-through, and the VM over them. The node builds its chain on one; the
 * consensus tests (test/consensus) run the Ethereum state tests on others built the same way.
 */
import type { Common } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { CacheType, Caches } from '@ethereumjs/statemanager';
import { createVM, type VM } from '@ethereumjs/vm';
import { ForkLink, NodeStateManager } from '../fork/state.js';
import { installFastLoop } from './loop/install.js';
import { Preimages } from './preimages.js';

export interface Engine {
  common: Common;
  preimages: Preimages;
  stateTrie: MerklePatriciaTrie;
  state: NodeStateManager;
  vm: VM;
}

/** A fresh engine with an empty state; `history` answers BLOCKHASH, `link` the fork (if any). */
export async function createEngine(common: Common, history: EVMMockBlockchainInterface, link = new ForkLink()): Promise<Engine> {
  const preimages = new Preimages();
  // No `common` here: the trie would take the Common's keccak over `preimages.hash` and forget the
  // preimages a state dump needs (both are the same WebAssembly keccak).
  const stateTrie = new MerklePatriciaTrie({ useKeyHashing: true, useKeyHashingFunction: preimages.hash, cacheSize: 50_000 });
  // Account/code/storage caches (off by default in ethereumjs) keep the live state warm; the trie
  // node cache avoids re-decoding hot branches. Reads go through to the fork upstream while there
  // is a fork; otherwise this is the plain Merkle state.
  const state = new NodeStateManager({
    link,
    common,
    caches: new Caches({ account: { type: CacheType.LRU, size: 100_000 }, storage: { type: CacheType.LRU, size: 100_000 }, code: { type: CacheType.LRU, size: 10_000 } }),
    trie: stateTrie,
  });
  await installFastLoop();
  const vm = await createVM({ common, stateManager: state, blockchain: history, setHardfork: false });
  return { common, preimages, stateTrie, state, vm };
}
