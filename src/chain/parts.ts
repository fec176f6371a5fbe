/**
 * The node's parts as its modules (mining, intake, history) see them: the live state, the block
 * store, the pool, the lock that orders every change, and the settings test controls move. The
 * node (node.ts) owns them; the modules get this view, so none of them imports the node.
 */
import type { EventEmitter } from 'node:events';
import type { Common } from '@ethereumjs/common';
import type { Account, Address } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { ChainConfig } from './core/config.js';
import type { Clock } from './controls/clock.js';
import type { MiningSettings } from './controls/settings.js';
import type { NodeStore } from './engine/nodeStore.js';
import type { Preimages } from './engine/preimages.js';
import type { NodeEvents } from './feed.js';
import type { Fork } from './fork/fork.js';
import type { ForkLink, NodeStateManager } from './engine/forkState.js';
import type { Lock } from './core/lock.js';
import type { TxPool } from './pool/txpool.js';
import type { BlockStore } from './store.js';
import type { BlockRef, StoredBlock, TxRequest } from './core/types.js';
import type { DevAccount } from './wallet/accounts.js';

/** Block settings test controls change; snapshots and reset restore them. */
export interface BlockSettings {
  coinbase: Address;
  blockGasLimit: bigint;
  prevRandao: Uint8Array<ArrayBuffer>;
  nextBaseFeeOverride: bigint | undefined;
  gasPriceFloor: bigint;
}

export interface NodeParts {
  readonly events: EventEmitter<NodeEvents>;
  readonly store: BlockStore;
  /** Every change to the chain runs under it, in request order. */
  readonly lock: Lock;
  /** The live state (the head's, plus edits made since it was mined). */
  readonly state: NodeStateManager;
  /** The state trie's node store and its keys' preimages (snapshots mark them, reverts rewind them). */
  readonly trieNodes: NodeStore;
  readonly preimages: Preimages;
  readonly vm: VM;
  readonly common: Common;
  readonly config: ChainConfig;
  readonly forkLink: ForkLink<Fork>;
  /** Dev accounts by lowercase address. */
  readonly keys: ReadonlyMap<string, DevAccount>;
  readonly impersonated: Set<string>;
  autoImpersonate: boolean;
  readonly mining: MiningSettings;
  readonly accounts: readonly DevAccount[];
  /** The block settings the node started with. */
  readonly defaults: BlockSettings;
  /** Random id of this chain instance (anvil_metadata). */
  instanceId: string;
  pool: TxPool;
  clock: Clock;
  coinbase: Address;
  blockGasLimit: bigint;
  prevRandao: Uint8Array<ArrayBuffer>;
  nextBaseFeeOverride: bigint | undefined;
  blockSettings(): BlockSettings;
  restoreBlockSettings(s: BlockSettings): void;
  stateRootOf(at: StoredBlock): Uint8Array;
  getAccount(address: Address, ref: BlockRef): Promise<Account>;
  getNonce(address: Address, ref: BlockRef): Promise<bigint>;
  estimateGas(req: TxRequest, ref: BlockRef): Promise<bigint>;
  nextBaseFee(): bigint;
  /** Base fee of the block mined next on the head (undefined before London). */
  pendingBaseFee(): bigint | undefined;
  gasPrice(): bigint;
  /** Write block 0: a fresh genesis, or the fork point of `fork`. */
  genesis(fork?: Fork): Promise<void>;
  setChainId(chainId: bigint): Promise<void>;
}
