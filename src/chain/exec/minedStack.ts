/**
 * The Solidity stack of a mined transaction that failed: the transaction is replayed on a private
 * VM (replay.ts) with the step hook of failureStack.ts. Asked for by the node's log and tracers,
 * never while mining.
 */
import type { SourceLocator, SourceStack } from '../core/sources.js';
import type { MinedTx } from '../core/types.js';
import { captureStack } from './failureStack.js';
import { BlockReplay, type ReplayHost } from './replay.js';

/** A replay host that knows the user's source maps (--artifacts). */
export interface StackHost extends ReplayHost {
  readonly sources: SourceLocator | undefined;
}

/** The stack of `tx`'s failure; undefined when it succeeded, or no failing code has source. */
export async function minedFailureStack(node: StackHost, tx: MinedTx): Promise<SourceStack | undefined> {
  const locator = node.sources;
  if (locator === undefined || locator.mapped === 0 || tx.receipt.status === 1) return undefined;
  const replay = await BlockReplay.before(node, tx);
  const sm = replay.vm.stateManager;
  return captureStack(replay.vm.evm.events as never, locator, (address) => sm.getCode(address), () => replay.step());
}
