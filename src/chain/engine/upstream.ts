/**
 * What the fork-aware state manager (forkState.ts) needs from a fork's upstream, declared here so
 * the engine depends on no folder above it: chain/fork's `Fork`, `UpstreamState` and `Discovery`
 * satisfy these interfaces (they say so with `implements`).
 */
import type { Address } from '@ethereumjs/util';

/** An account as the upstream holds it at the fork block. */
export interface UpstreamAccount {
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  codeHash: Uint8Array;
}

/** State reads at the fork block: the `…Now` forms answer from what is already known, without waiting. */
export interface UpstreamReads {
  /** The account if already known: null when it does not exist upstream, undefined when unknown. */
  accountNow(address: Address): UpstreamAccount | null | undefined;
  /** The account, fetched when not yet known (null: none upstream). */
  account(address: Address): Promise<UpstreamAccount | null>;
  /** The slot's value if already known, else undefined. */
  slotNow(address: Address, key: Uint8Array): Uint8Array | undefined;
  /** The slot's value, fetched when not yet known. */
  slot(address: Address, key: Uint8Array): Promise<Uint8Array>;
  /** Code already fetched, by its hash. */
  codeByHash(hash: Uint8Array): Uint8Array | undefined;
  /** An address's key in the upstream's maps (its next look-up reuses it). */
  keyOf(address: Address): string;
}

/** A fork the state manager reads through to. */
export interface Upstream {
  readonly state: UpstreamReads;
}

/** Where a discovery run records the upstream reads it skipped (they are then read as empty). */
export interface MissLog {
  account(address: Address): void;
  slot(address: Address, key: Uint8Array): void;
}
