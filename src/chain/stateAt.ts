/** Opening a state at a block of the chain's history. */
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { KECCAK256_RLP, equalsBytes } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { ChainError } from './core/errors.js';
import type { StoredBlock } from './core/types.js';

/** The state manager behind a state or a VM (what withPrefetch watches). */
export function stateOf(s: MerkleStateManager | VM): unknown {
  return s instanceof MerkleStateManager ? s : s.stateManager;
}

/**
 * Open `sm` at `root`, a state of block `at`. History loaded from a state file keeps only the
 * latest state: an older root is not in the trie, which is checked, not read off an error.
 */
export async function openAt(sm: MerkleStateManager, root: Uint8Array, at: StoredBlock): Promise<void> {
  if (!equalsBytes(root, KECCAK256_RLP) && !(await sm.hasStateRoot(root))) {
    throw new ChainError(`state of block ${at.number} is not available: history loaded from a state file keeps only the latest state`);
  }
  await sm.setStateRoot(root);
}

