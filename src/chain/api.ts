/**
 * What the chain offers the layers above it, as small capabilities: each rpc method group (and
 * each free function above chain/) is handed exactly the ones it uses, never the node. The node
 * facade (node.ts) implements them all; rpc/methods/index.ts is the one place that hands it out.
 * Members that are module slices (`intake`, `miner`, `controls`, `history`, `filters`, `logs`)
 * name only the methods callers may use. Types only.
 */
import type { EventEmitter } from 'node:events';
import type { Block } from '@ethereumjs/block';
import type { Proof } from '@ethereumjs/statemanager';
import type { Account, Address } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { ChainConfig, SupportedHardfork } from './core/config.js';
import type { SourceLocator } from './core/sources.js';
import type { CoverageRecorder } from './core/coverage.js';
import type { BlockRef, MinedTx, StateOverrides, StoredBlock, TxRequest } from './core/types.js';
import type { LiveState, PoolEdits } from './controls/cheats.js';
import type { History } from './controls/history.js';
import type { Controls } from './controls/settings.js';
import type { AccessListResult } from './exec/call.js';
import type { ReplayHost } from './exec/replay.js';
import type { SimBlock, SimBlockSpec, SimOptions } from './exec/simulate.js';
import type { FeeHistory } from './fees/history.js';
import type { Fork } from './fork/fork.js';
import type { EthConfig } from './forkConfig.js';
import type { FilterRegistry } from './logs/filters.js';
import type { LogIndex } from './logs/logIndex.js';
import type { Mining } from './mining/mining.js';
import type { MiningMode } from './owners/miningMode.js';
import type { NodeEvents } from './pool/events.js';
import type { SyncHost } from './pool/sendSync.js';
import type { Intake } from './pool/intake.js';
import type { PendingTx, PoolContent } from './pool/txpool.js';

/** The mining mode as read: automine, interval, transaction order, throw on failures. */
export type MiningModeReads = Pick<MiningMode, 'auto' | 'intervalMs' | 'intervalMaxMs' | 'order' | 'throwOnFailures'>;

/** Blocks, transactions, receipts, state at any block, and the chain's identity. */
export interface ChainReads {
  /** Chain id (anvil_setChainId changes it) and the hardfork this chain runs. */
  readonly config: Readonly<Pick<ChainConfig, 'chainId' | 'hardfork'>>;
  /** The fork of the next block (on a fork schedule it changes as blocks are mined). */
  readonly hardfork: SupportedHardfork;
  /** The dev accounts, in derivation order. */
  readonly accounts: ReadonlyArray<{ readonly address: Address }>;
  /** Beneficiary of the next block (eth_coinbase). */
  readonly coinbase: Address;
  /** The upstream this chain forks from; undefined when it does not fork. */
  readonly fork: Fork | undefined;
  /** The latest block (built if it belongs to a run of empty blocks). */
  readonly head: StoredBlock;
  /** Number of the latest block (builds no block). */
  headNumber(): bigint;
  /** A block by number, tag or hash; undefined when there is none. */
  block(ref: BlockRef): StoredBlock | undefined;
  /**
   * The pending block: number head + 1, the transactions the next block would take (none under
   * automine), built as mining builds it, on the header calls at `pending` run in.
   */
  pendingBlock(): Promise<StoredBlock>;
  /** A block for a state read: an unknown one is `header not found`. */
  requireBlock(ref: BlockRef): StoredBlock;
  /** A mined transaction (with its receipt) by hash. */
  tx(hashHex: string): MinedTx | undefined;
  /** A mined blob by its versioned hash: the blob, its commitment, its index in its transaction and the transaction. */
  blob(versionedHashHex: string): { blob: Uint8Array; commitment: Uint8Array; index: number; tx: MinedTx } | undefined;
  /** The real blocks (the only ones that hold transactions) numbered `from`..`to`, in order. */
  realBlocks(from: bigint, to: bigint): StoredBlock[];
  /** Account fields of `address` at `ref` (an empty account when it has none). */
  getAccount(address: Address, ref: BlockRef): Promise<Account>;
  /** Code of `address` at `ref`. */
  getCode(address: Address, ref: BlockRef): Promise<Uint8Array>;
  /** One storage slot of `address` at `ref`, 32 bytes. */
  getStorageAt(address: Address, slot: bigint, ref: BlockRef): Promise<Uint8Array>;
  /** Next nonce of `address`; at `pending`, the pool's (its executable transactions counted). */
  getNonce(address: Address, ref: BlockRef): Promise<bigint>;
  /** EIP-1186 account and storage proof against the state root of `ref`. */
  getProof(address: Address, slots: bigint[], ref: BlockRef): Promise<Proof>;
  /** Account fields (storage root current) and code of `address` at `ref`. */
  getAccountAndCode(address: Address, ref: BlockRef): Promise<{ account: Account; code: Uint8Array }>;
  /** EIP-7910's description of the chain's forks at the head (current, next, last). */
  ethConfig(): EthConfig;
}

/** The fee rules as callers see them. */
export interface Fees {
  /** Base fee of the next block (0 before London). */
  nextBaseFee(): bigint;
  /** Base fee of the next block; undefined before London. */
  pendingBaseFee(): bigint | undefined;
  /** eth_gasPrice: next base fee plus the suggested tip, never below the floor. */
  gasPrice(): bigint;
  /** The suggested tip. */
  maxPriorityFeePerGas(): bigint;
  /** Blob base fee of the next block (an error before Cancun). */
  blobBaseFee(): bigint;
  /** eth_feeHistory over `count` blocks ending at `newest` (at `pending`, the pending block). */
  feeHistory(count: number, newest: BlockRef, percentiles: number[] | undefined): Promise<FeeHistory>;
}

/** What waits in the pool. */
export interface PoolReads {
  /** A transaction waiting in the pool, by lowercase hash. */
  pooledTx(hashHex: string): PendingTx | undefined;
  /** The pool per sender: executable (`pending`) and behind a nonce gap (`queued`). */
  poolContent(): Promise<PoolContent>;
}

/** Calls that change nothing: eth_call and friends. */
export interface Calls {
  /** Run a call at `ref` (with geth's state overrides) and answer its return data. */
  call(req: TxRequest, ref: BlockRef, overrides?: StateOverrides): Promise<Uint8Array>;
  /** Smallest gas limit with which the call succeeds. */
  estimateGas(req: TxRequest, ref: BlockRef, overrides?: StateOverrides): Promise<bigint>;
  /** The access list the call touches, and its gas with that list. */
  createAccessList(req: TxRequest, ref: BlockRef): Promise<AccessListResult>;
  /** eth_simulateV1: blocks of calls on a private copy of the state at `ref`. */
  simulate(specs: SimBlockSpec[], opts: SimOptions, ref: BlockRef): Promise<SimBlock[]>;
}

/** Transactions coming in (and waiting for their block: `tx` and `events`, see sendSync.ts). */
export interface Submit extends SyncHost {
  /** Raw, signed here from a dev key, impersonated; or only filled or signed; `keyOf` is a dev account's key (eth_sign). */
  readonly intake: Pick<Intake, 'sendRawTransaction' | 'sendTransaction' | 'sendUnsigned' | 'fillTransaction' | 'signTransaction' | 'keyOf'>;
}

/**
 * Test controls (anvil_*, hardhat_*, evm_*): mining, time, accounts, next blocks' settings,
 * snapshots. Cheats (chain/controls/cheats.ts) edit the live state and the pool through it.
 */
export interface TestControls extends LiveState, PoolEdits {
  /** Automine, interval mining, mining blocks on request. */
  readonly miner: Pick<Mining, 'setAutomine' | 'setIntervalMining' | 'mineBlocks'>;
  /** Time, impersonation and the next blocks' settings. */
  readonly controls: Pick<
    Controls,
    | 'intervalMining'
    | 'increaseTime'
    | 'setNextTimestamp'
    | 'setTime'
    | 'setTimestampInterval'
    | 'impersonate'
    | 'autoImpersonate'
    | 'setCoinbase'
    | 'setMinGasPrice'
    | 'setNextBaseFee'
    | 'setBlockGasLimit'
    | 'setPrevRandao'
  >;
  /** Snapshots, revert, rollback, reorg and reset. */
  readonly history: Pick<History, 'snapshot' | 'revert' | 'rollback' | 'reorg' | 'reset'>;
  /** The mining mode: automine, interval, transaction order. */
  readonly mining: MiningModeReads;
}

/** State files (anvil_dumpState / anvil_loadState), the node's through chain/controls/stateFile.ts. */
export interface StateFiles {
  /** The whole chain (accounts and history) as a state document; `generator` names the writer. */
  dumpState(generator: string): Promise<string>;
  /** Check a state document, then apply it: its accounts over the live state, its history over a shorter chain. */
  loadState(text: string): Promise<void>;
}

/** What tracing needs: private VMs at a block's state, the call context, the trace limits. */
export interface Tracing extends ReplayHost {
  /** Most struct-log steps one trace may record (--max-trace-steps). */
  readonly maxTraceSteps: number;
  /** Source maps of the user's contracts (--artifacts), for Solidity stacks in traces. */
  readonly sources: SourceLocator | undefined;
  /** Counts traced runs' instructions (--coverage). */
  readonly coverage: CoverageRecorder | undefined;
  /** A private VM in the state of block `ref`, and the block a call there runs in. */
  vmFor(ref: BlockRef): Promise<{ vm: VM; at: StoredBlock; block: Block }>;
  /** The block context a call executes in (a zero base fee for fee-less calls). */
  callBlock(block: Block, req: TxRequest): Block;
  /** `req` as a call in `block` runs it: its gas within the block's gas limit and the RPC gas cap. */
  capped(req: TxRequest, block: Block): TxRequest;
}

/** Node information, metadata, logging and the chain id. */
export interface Admin {
  /** Random id of this chain instance (renewed by reset). */
  readonly instanceId: string;
  /** Gas limit of the next blocks. */
  readonly blockGasLimit: bigint;
  /** The mining mode (its transaction order, for anvil_nodeInfo). */
  readonly mining: MiningModeReads;
  /** The snapshots held, and the block each was taken at. */
  readonly history: Pick<History, 'snapshotIds' | 'snapshotBlock'>;
  /** Request and block logging. */
  readonly controls: Pick<Controls, 'setLogging'>;
  /** anvil_setChainId: new transactions are signed and checked for `chainId`. */
  setChainId(chainId: bigint): Promise<void>;
}

/** Reads of the log index. */
export type LogReads = Pick<LogIndex, 'resolveRange' | 'query' | 'queryBlock' | 'maxResults'>;

/** eth_getLogs and the polling filters. */
export interface Filters {
  /** The polling filters (eth_newFilter and friends). */
  readonly filters: Pick<FilterRegistry, 'newLogFilter' | 'newBlockFilter' | 'newPendingTransactionFilter' | 'changes' | 'logs' | 'uninstall' | 'releaseOwner'>;
  /** Every log, indexed by address and topic. */
  readonly logs: LogReads;
  /** A block by number, tag or hash; undefined when there is none. */
  block(ref: BlockRef): StoredBlock | undefined;
}

/** What eth_subscribe follows. */
export interface Subscriptions {
  /** The chain's events (`pendingTx` for newPendingTransactions). */
  readonly events: Pick<EventEmitter<NodeEvents>, 'on' | 'off'>;
  /** The log index's events: each block with its log entries, runs of empty blocks, reorgs. */
  readonly logs: Pick<LogIndex, 'events'>;
  /** A block by number, tag or hash; undefined when there is none. */
  block(ref: BlockRef): StoredBlock | undefined;
}
