/**
 * ethereumjs internals that code outside the engine needs, each behind a named function: nothing
 * outside src/chain/engine reads or writes a private (`_`-named) field of an ethereumjs object or
 * sets a hook one of the dependency patches reads (test/architecture/structure.test.ts checks).
 * What each function relies on is written beside it, so a dependency update knows what to check.
 */
import type { EVMInterface, EVMResult, PrecompileFunc } from '@ethereumjs/evm';
import type { SstoreWatch } from './loop/types.js';

/** A frame's run state, as an execution result carries it (`execResult.runState`). */
export type FrameRunState = NonNullable<EVMResult['execResult']['runState']>;

/**
 * A copy of the first `bytes` bytes of a frame's memory (what a step event's `memory` holds).
 * Relies on: Memory keeps its bytes in `_store`, at least `memoryWordCount * 32` of them.
 */
export function memoryCopy(runState: FrameRunState, bytes: number): Uint8Array {
  return (runState.memory as unknown as { _store: Uint8Array })._store.slice(0, bytes);
}

/** The switch the `evm-lean-top-frame` dependency patch reads on the EVM (patches/@ethereumjs+evm). */
interface LeanTopFrame {
  leanTopFrame?: boolean;
}

/**
 * Run `fn` (one `evm.runCall` of the lean read path) with the EVM's lean top frame on: a depth-0
 * frame moving no value skips writing the sender and the recipient back unchanged. Only for a
 * call whose effects are discarded and whose sender the caller has just written itself.
 */
export async function withLeanTopFrame<T>(evm: EVMInterface, fn: () => Promise<T>): Promise<T> {
  (evm as LeanTopFrame).leanTopFrame = true;
  try {
    return await fn();
  } finally {
    (evm as LeanTopFrame).leanTopFrame = false;
  }
}

/** What a watched run saw: the frames the fast loop ran, and the least gas left at an SSTORE (Infinity: none). */
export type WatchedRun = Readonly<SstoreWatch>;

/**
 * Run `fn` (one run of an estimate) with the fast loop noting, on the EVM, how many frames it ran
 * and the least gas any frame had left when it came to an SSTORE (loop/run.ts reads
 * `sstoreWatch`). A frame ethereumjs's own loop ran is not counted.
 */
export async function watchSstores<T>(evm: EVMInterface, fn: () => Promise<T>): Promise<{ value: T; watched: WatchedRun }> {
  const watched: SstoreWatch = { frames: 0, leastLeft: Infinity };
  (evm as { sstoreWatch?: SstoreWatch }).sstoreWatch = watched;
  try {
    return { value: await fn(), watched };
  } finally {
    (evm as { sstoreWatch?: SstoreWatch }).sstoreWatch = undefined;
  }
}

/**
 * Make the EVM run `precompiles` (by unprefixed lowercase address) in place of its fork's, or its
 * fork's again when undefined. Only what runs at an address changes: runTx still warms the fork's
 * precompiles (`evm.precompiles`), as geth warms its rules' precompiles whatever an override moved.
 * Relies on: the EVM finds a frame's precompile (and CALL's gas its existence) through
 * `getPrecompile(address)`, a method an own property replaces.
 */
export function usePrecompiles(evm: EVMInterface, precompiles: ReadonlyMap<string, PrecompileFunc> | undefined): void {
  const target = evm as unknown as { getPrecompile?: (a: unknown) => PrecompileFunc | undefined };
  if (precompiles === undefined) {
    delete target.getPrecompile;
    return;
  }
  target.getPrecompile = (a: unknown) => precompiles.get(typeof a === 'string' ? a.slice(2).padStart(40, '0').toLowerCase() : (a as { toString(): string }).toString().slice(2).toLowerCase());
}
