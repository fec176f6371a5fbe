/**
 * The state at one root, read without the live state manager: a copy of the state trie set to the
 * root, storage tries opened at an account's storage root, code read by its hash. Every node and
 * every code entry is stored under the hash of its content, so what is read is the state at that
 * root or nothing: an entry deleted meanwhile (a snapshot rewound) makes a read throw, never give
 * other content. A state dump reads it outside the node's lock (stateDump.ts).
 */
import { CODEHASH_PREFIX, type MerkleStateManager } from '@ethereumjs/statemanager';
import { concatBytes } from '@ethereumjs/util';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';

export interface FrozenState {
  /** The account trie at the root (a copy: the live trie moves on). */
  readonly accounts: MerklePatriciaTrie;
  /** Storage values (RLP, hex) by hashed slot key (hex) under `storageRoot`, as `dumpStorage` gives them. */
  storage(storageRoot: Uint8Array): Promise<Record<string, string>>;
  /** The code whose hash is `codeHash`; throws when the store no longer holds it. */
  code(codeHash: Uint8Array): Promise<Uint8Array>;
}

/** The state under `root` of `trie`, laid out as `sm` lays it out (key prefixes). */
export function frozenState(sm: MerkleStateManager, trie: MerklePatriciaTrie, root: Uint8Array): FrozenState {
  const layout = sm as unknown as { _prefixCodeHashes: boolean; _prefixStorageTrieKeys: boolean };
  if (layout._prefixStorageTrieKeys) throw new Error('frozenState: prefixed storage trie keys are not supported');
  const accounts = trie.shallowCopy(false);
  accounts.root(root);
  const db = trie.database();
  return {
    accounts,
    async storage(storageRoot) {
      const st = accounts.shallowCopy(false);
      st.root(storageRoot);
      return (await st.getValueMap()).values;
    },
    async code(codeHash) {
      const code = await db.get(layout._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash);
      if (code === undefined || code === null) throw new Error('frozenState: code no longer stored');
      return code as Uint8Array;
    },
  };
}
