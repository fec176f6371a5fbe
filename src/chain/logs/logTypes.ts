/** Logs as the index, filters and subscriptions hand them around. */
import type { BlockRef, MinedTx, StoredBlock } from '../core/types.js';

/** One log of a mined transaction. */
export interface LogEntry {
  readonly tx: MinedTx;
  /** Block-wide log index. */
  readonly logIndex: number;
  /** Lowercase 0x-hex address. */
  readonly address: string;
  /** Lowercase 0x-hex topics. */
  readonly topics: readonly string[];
  readonly data: Uint8Array;
}

/**
 * What a log filter asks for (eth_getLogs, eth_newFilter, a `logs` subscription): the logs, by
 * address and topics, and the blocks, by bounds or one block hash (a subscription names none).
 * Matching reads the addresses and topics; whoever queries resolves the blocks.
 */
export interface LogCriteria {
  /** Lowercase 0x-hex addresses; empty matches any address. */
  readonly addresses: readonly string[];
  /**
   * Per topic position, the accepted topics (lowercase 0x-hex; OR), or null for any. A log must
   * have at least as many topics as there are positions here (geth's rule), wildcards included.
   */
  readonly topics: ReadonlyArray<readonly string[] | null>;
  readonly fromBlock?: BlockRef;
  readonly toBlock?: BlockRef;
  /** One block by hash; excludes `fromBlock` / `toBlock`. */
  readonly blockHash?: Uint8Array;
}

/** A log and whether it was removed from the chain (reorg / revert). */
export interface LogChange {
  readonly entry: LogEntry;
  readonly removed: boolean;
}

/** A dropped block and its logs, as handed to `reorg` listeners. */
export interface DroppedBlock {
  readonly block: StoredBlock;
  readonly entries: readonly LogEntry[];
}
