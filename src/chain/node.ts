/**
 * The dev node, a facade: it holds the chain's engine (store, live state, VM, lock) and its owners
 * — the head, the pool, the clock and next-block settings, fees, accounts, mining mode, filters —
 * each the one writer of its state (core/owner.ts), and wires them into its modules: `miner`
 * (mining/), `intake` (pool/), `history` and `controls` (controls/), `logs` and `filters` (logs/),
 * `reads` (state at a block). It answers lookups and calls; src/rpc turns requests into calls on it.
 */
import { EventEmitter } from 'node:events';
import type { Block } from '@ethereumjs/block';
import { callBlock } from './exec/blockContext.js';
import type { Common } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import type { MerkleStateManager, Proof } from '@ethereumjs/statemanager';
import { bytesToHex, type Account, type Address } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { deriveAccounts, type DevAccount } from './wallet/accounts.js';
import { ChainRules } from './engine/common.js';
import { LiveRules } from './liveRules.js';
import { createEngine } from './engine/engine.js';
import { ethConfig, type EthConfig } from './forkConfig.js';
import type { SimBlock, SimBlockSpec, SimOptions } from './exec/simulate.js';
import { fixedSchedule, type ChainConfig, type SupportedHardfork } from './core/config.js';
import { ChainError } from './core/errors.js';
import { Owners } from './core/owner.js';
import type { AccessListResult } from './exec/call.js';
import { Execution } from './execution.js';
import type { SourceLocator } from './core/sources.js';
import type { CoverageRecorder } from './core/coverage.js';
import type { CallWorkers } from './exec/offload/pool.js';
import { RecordedStore } from './exec/offload/replica.js';
import { DEFAULT_CALL_TIMEOUT_MS, capGas, gasCapAt, type CallBounds } from './exec/bounds.js';
import { Fees } from './fees/fees.js';
import type { FeeHistory } from './fees/history.js';
import { FilterRegistry } from './logs/filters.js';
import type { ChainFeed, NodeEvents } from './pool/events.js';
import type { Admin, Calls, ChainReads, Fees as FeeReads, Filters, PoolReads, Submit, Subscriptions, TestControls, Tracing } from './api.js';
import { Mining } from './mining/mining.js';
import { PendingBlock } from './mining/pending.js';
import { Intake } from './pool/intake.js';
import { History } from './controls/history.js';
import { Controls } from './controls/settings.js';
import { LogIndex } from './logs/logIndex.js';
import { Lock, type Client } from './core/lock.js';
import { Head } from './head/head.js';
import { Accounts } from './owners/accounts.js';
import { MiningMode } from './owners/miningMode.js';
import { NextBlock } from './owners/nextBlock.js';
import { TxPool, type PendingTx, type PoolContent, type PoolLimits } from './pool/txpool.js';
import type { Preimages } from './engine/preimages.js';
import { BlockStore } from './head/store.js';
import type { Fork } from './fork/fork.js';
import { writeForkGenesis, writeGenesis } from './genesis.js';
import { StateReads } from './reads.js';
import { ForkLink, type NodeStateManager } from './engine/forkState.js';
import { isPending, type BlockRef, type MinedTx, type StateOverrides, type StoredBlock, type TxRequest } from './core/types.js';

/** Settings of the node's runtime that are not chain state (flags of the CLI and library). */
export interface RuntimeOptions {
  /** Most struct-log steps one trace may record (--max-trace-steps). */
  maxTraceSteps?: number;
  /** Source maps of the user's contracts (--artifacts): failed calls then carry a Solidity stack. */
  sources?: SourceLocator;
  /** eth_call on worker threads (--call-workers). */
  callWorkers?: CallWorkers;
  /** Pool limits (--txpool-* flags). */
  poolLimits?: PoolLimits;
  /** Counts the instructions of mined transactions, eth_calls and traces (--coverage). */
  coverage?: CoverageRecorder;
}

interface EngineParts {
  store: BlockStore;
  preimages: Preimages;
  stateTrie: MerklePatriciaTrie;
  trieNodes: RecordedStore;
  forkLink: ForkLink<Fork>;
}

export class DevNode implements ChainFeed, ChainReads, FeeReads, PoolReads, Calls, Submit, TestControls, Tracing, Admin, Filters, Subscriptions {
  readonly events = new EventEmitter<NodeEvents>();
  readonly store: BlockStore;
  /** Every change to the chain runs under it, each client's in request order, clients taking turns; reads of the live state take turns with changes (lock.ts). */
  readonly lock = new Lock();
  /** Gas cap and wall-clock limit of calls (--rpc-gas-cap, --call-timeout). */
  readonly callBounds: CallBounds = { gasCap: undefined, timeoutMs: DEFAULT_CALL_TIMEOUT_MS };
  /** Preimages of the state trie's hashed keys, for state dumps. */
  readonly preimages: Preimages;
  /** The live state's account trie (the state manager's own), for state dumps. */
  readonly stateTrie: MerklePatriciaTrie;
  /** The state trie's node store, logged for call workers while they run. */
  readonly trieNodes: RecordedStore;
  /** The fork this chain runs on, if any (shared with the state manager and the EVM's history). */
  readonly forkLink: ForkLink<Fork>;
  private runtime: { maxTraceSteps: number; sources: SourceLocator | undefined; callWorkers: CallWorkers | undefined; coverage: CoverageRecorder | undefined } = {
    maxTraceSteps: DEFAULT_MAX_TRACE_STEPS,
    sources: undefined,
    callWorkers: undefined,
    coverage: undefined,
  };

  // ---------------------------------------------------------------- owners (core/owner.ts)

  /** Every owner of the node's state: snapshots, reverts and reset go through this list. */
  readonly owners = new Owners();
  /** The head and its history: blocks, the live state root, the trie's marks. */
  readonly chainHead: Head;
  /** Transactions waiting for a block. */
  readonly pool = new TxPool(undefined, (p, reason) => this.events.emit('dropped', p, reason));
  /** The clock and the next block's settings (coinbase, gas limit, prevrandao, one-shot base fee). */
  readonly clock: NextBlock;
  /** The gas price floor and the node's prices. */
  readonly fees: Fees;
  /** Dev keys and impersonation. */
  readonly wallet: Accounts;
  /** Automine, interval mining and block order. */
  readonly mining: MiningMode;
  /** Polling filters (eth_newFilter and friends). */
  readonly filters: FilterRegistry;

  // ---------------------------------------------------------------- modules

  /** Every log, indexed by address and topic; kept current from `block` / `reorg`. */
  readonly logs = new LogIndex(this);
  /** Block building, automine and interval mining. */
  readonly miner: Mining;
  /** Transactions coming in: raw, signed here, impersonated. */
  readonly intake: Intake;
  /** Snapshots, rollback and reorg. */
  readonly history: History;
  /** Test controls over time and the next blocks' settings. */
  readonly controls: Controls;
  /** The block mined next, which calls at `pending` run in. */
  readonly pending: PendingBlock;
  /** State at any block. */
  readonly reads: StateReads;
  /** Calls that reach nothing: eth_call, estimates, access lists, eth_simulateV1. */
  private readonly execution: Execution;

  private constructor(
    readonly config: ChainConfig,
    private live: LiveRules,
    readonly accounts: readonly DevAccount[],
    /** The live state: the head's, plus edits made since it was mined. */
    readonly state: NodeStateManager,
    parts: EngineParts,
  ) {
    this.trieNodes = parts.trieNodes;
    this.store = parts.store;
    this.preimages = parts.preimages;
    this.stateTrie = parts.stateTrie;
    this.forkLink = parts.forkLink;
    // The head first: a revert rewinds it before the others are restored.
    this.chainHead = this.owners.add(new Head(this.store, state, this.trieNodes, this.preimages, (dropped) => this.events.emit('reorg', dropped)));
    this.owners.add(this.pool);
    this.clock = this.owners.add(new NextBlock(config.gasLimit));
    this.fees = this.owners.add(new Fees(config.gasPriceFloor, this, this.clock));
    this.wallet = this.owners.add(new Accounts(accounts));
    this.miner = new Mining(this);
    this.mining = this.owners.add(new MiningMode(this.miner.tick));
    this.filters = this.owners.add(new FilterRegistry(this, this.logs));
    this.intake = new Intake(this, this.miner);
    this.history = new History(this, this.miner, this.intake);
    this.controls = new Controls(this, this.miner);
    this.pending = new PendingBlock(this, this.miner);
    this.reads = new StateReads(this);
    this.execution = new Execution(this);
  }

  /** A fresh chain; with `fork`, one continuing from the fork block (see src/chain/fork). */
  static async create(config: ChainConfig, fork?: Fork): Promise<DevNode> {
    const rules = new ChainRules(config.chainId, config.schedule ?? fixedSchedule(config.hardfork), config.codeSizeLimit, config.blockRewards);
    const common = rules.last;
    const accounts = deriveAccounts(config.mnemonic, config.derivationPath, config.accounts);
    const link = new ForkLink(fork);
    const store = new BlockStore();
    const history: EVMMockBlockchainInterface = {
      getBlock: async (n: number) => {
        const b = store.byNumber(BigInt(n));
        // BLOCKHASH needs only the hash; below a fork point it is the upstream's.
        const hash = b ? b.hash : await link.fork?.blockHash(BigInt(n));
        if (!hash) throw new Error(`block ${n} not found`);
        return { hash: () => hash };
      },
      putBlock: async () => {},
      shallowCopy: () => history,
    };
    const trieNodes = new RecordedStore();
    const { preimages, stateTrie, state, vm } = await createEngine(common, history, { link, nodes: trieNodes, cacheSize: config.stateCacheSize });
    const live = await LiveRules.of(rules, state, history, vm);
    const node = new DevNode(config, live, accounts, state, { store, preimages, stateTrie, trieNodes, forkLink: link });
    await node.genesis(fork);
    return node;
  }

  /** Settings of the runtime (trace size, source maps, call workers, pool limits); an option named as undefined turns it off. */
  configure(o: RuntimeOptions): void {
    if (o.maxTraceSteps !== undefined) this.runtime.maxTraceSteps = o.maxTraceSteps;
    // Named as undefined: turned off.
    if ('sources' in o) this.runtime.sources = o.sources;
    if ('callWorkers' in o) this.runtime.callWorkers = o.callWorkers;
    if ('coverage' in o) this.runtime.coverage = o.coverage;
    if (o.poolLimits !== undefined) this.pool.setLimits(o.poolLimits);
  }

  /** Most struct-log steps one trace may record (--max-trace-steps); bounds a trace's memory. */
  get maxTraceSteps(): number { return this.runtime.maxTraceSteps; }

  /** Source maps of the user's contracts (--artifacts), if given. */
  get sources(): SourceLocator | undefined { return this.runtime.sources; }

  /** eth_call on worker threads (--call-workers); undefined: calls run on this thread only. */
  get callWorkers(): CallWorkers | undefined { return this.runtime.callWorkers; }

  /** Where executed instructions are counted (--coverage); undefined: nothing is hooked. */
  get coverage(): CoverageRecorder | undefined { return this.runtime.coverage; }

  /** The chain's rules, fork by fork (replaced when the chain id changes). */
  get rules(): ChainRules {
    return this.live.rules;
  }

  /** The rules, fork and VM (over the live state) of the next block: the one mined on the head, at the clock's next time. */
  get common(): Common {
    return this.live.rules.single ?? this.live.rules.at(...this.nextBlockAt());
  }
  get hardfork(): SupportedHardfork {
    return this.live.rules.forkAt(...this.nextBlockAt());
  }
  get vm(): VM {
    return this.live.single ?? this.live.vmAt(...this.nextBlockAt());
  }
  private nextBlockAt(): [bigint, bigint] {
    return [this.store.headNumber + 1n, this.clock.peek(this.store.head.block.header.timestamp)];
  }

  /** The VM over the live state under the rules of block `number` at `timestamp`. */
  vmOfBlock(number: bigint, timestamp: bigint): VM {
    return this.live.vmAt(number, timestamp);
  }

  /** Dev accounts by lowercase address. */
  get keys(): ReadonlyMap<string, DevAccount> { return this.wallet.keys; }

  /** Coinbase of the next blocks (eth_coinbase). */
  get coinbase(): Address { return this.clock.coinbase; }

  /** Gas limit of the next blocks. */
  get blockGasLimit(): bigint { return this.clock.gasLimit; }

  /** Random id of this chain instance (anvil_metadata); renewed by reset. */
  get instanceId(): string { return this.chainHead.instanceId; }

  /** Request and block logging (anvil_setLoggingEnabled); the CLI's log honours it. */
  get loggingEnabled(): boolean { return this.controls.loggingEnabled; }

  /** Write block 0: a fresh genesis, or the fork point of `fork`. */
  genesis(fork?: Fork): Promise<void> {
    return fork ? writeForkGenesis(this, fork) : writeGenesis(this, this.clock.now());
  }

  /** The fork this chain runs on (undefined when it does not fork). */
  get fork(): Fork | undefined { return this.forkLink.fork; }

  // ---------------------------------------------------------------- blocks
  get head(): StoredBlock {
    return this.store.head;
  }

  headTimestamp(): bigint {
    return this.store.head.block.header.timestamp;
  }

  /** Resolve a block reference; undefined when no such block exists. */
  block(ref: BlockRef): StoredBlock | undefined {
    switch (ref.kind) {
      case 'tag':
        return ref.tag === 'earliest' ? this.store.byNumber(0n) : this.store.head;
      case 'number':
        return this.store.byNumber(ref.number);
      case 'hash':
        return this.store.byHashHex(bytesToHex(ref.hash));
    }
  }

  /** The pending block (mining/pending.ts): the block mined next, as block methods at `pending` answer it. */
  pendingBlock(): Promise<StoredBlock> {
    return this.reads.pendingBlock();
  }

  /** Resolve a block reference for a state read; unknown blocks are `header not found`. */
  requireBlock(ref: BlockRef): StoredBlock {
    const b = this.block(ref);
    if (!b) throw new ChainError(ref.kind === 'hash' ? `header for hash ${bytesToHex(ref.hash)} not found` : 'header not found');
    return b;
  }

  tx(hashHex: string): MinedTx | undefined {
    return this.store.tx(hashHex.toLowerCase());
  }

  blob(versionedHashHex: string): { blob: Uint8Array; commitment: Uint8Array; index: number; tx: MinedTx } | undefined {
    return this.store.blob(versionedHashHex.toLowerCase());
  }

  /** EIP-7910's description of the chain's forks (its genesis: the first local block), at the head. */
  ethConfig(): EthConfig {
    const first = (this.store.byNumber(this.store.base) ?? this.head).block, { header } = this.head.block, deposit = this.config.genesis?.config.depositContractAddress;
    return ethConfig({ schedule: this.rules.schedule, commonOf: (f) => this.rules.of(f) ?? this.common, genesisHash: first.hash(), genesisTime: first.header.timestamp, headNumber: header.number, headTime: header.timestamp, depositContract: typeof deposit === 'string' ? deposit.toLowerCase() : undefined });
  }

  // ---------------------------------------------------------------- state (reads.ts)

  stateRootOf(at: StoredBlock): Uint8Array {
    return this.reads.stateRootOf(at);
  }
  withVm<T>(ref: BlockRef, fn: (vm: VM, block: Block) => Promise<T>): Promise<T> {
    return this.reads.withVm(ref, fn);
  }
  vmFor(ref: BlockRef): Promise<{ vm: VM; at: StoredBlock; block: Block }> {
    return this.reads.vmFor(ref);
  }
  vmAt(stateRoot: Uint8Array, at: StoredBlock): Promise<VM> {
    return this.reads.vmAt(stateRoot, at);
  }
  getAccount(address: Address, ref: BlockRef): Promise<Account> {
    return this.reads.getAccount(address, ref);
  }
  getCode(address: Address, ref: BlockRef): Promise<Uint8Array> {
    return this.reads.getCode(address, ref);
  }
  getStorageAt(address: Address, slot: bigint, ref: BlockRef): Promise<Uint8Array> {
    return this.reads.getStorageAt(address, slot, ref);
  }
  getNonce(address: Address, ref: BlockRef): Promise<bigint> {
    return this.reads.getNonce(address, ref);
  }
  getProof(address: Address, slots: bigint[], ref: BlockRef): Promise<Proof> {
    return this.reads.getProof(address, slots, ref);
  }
  getAccountAndCode(address: Address, ref: BlockRef): Promise<{ account: Account; code: Uint8Array }> {
    return this.reads.getAccountAndCode(address, ref);
  }

  // ---------------------------------------------------------------- fees (fees/)

  pendingBaseFee(): bigint | undefined {
    return this.fees.pendingBaseFee();
  }
  nextBaseFee(): bigint {
    return this.fees.nextBaseFee();
  }
  gasPrice(): bigint {
    return this.fees.gasPrice();
  }
  maxPriorityFeePerGas(): bigint {
    return this.fees.maxPriorityFeePerGas();
  }
  blobBaseFee(): bigint {
    return this.fees.blobBaseFee();
  }
  /** Ending at `pending`, the pending block is the newest (geth's oracle includes it). */
  async feeHistory(count: number, newest: BlockRef, percentiles: number[] | undefined): Promise<FeeHistory> {
    return this.fees.feeHistory(count, isPending(newest) ? await this.pendingBlock() : this.requireBlock(newest), percentiles);
  }

  // ---------------------------------------------------------------- execution (execution.ts)

  call(req: TxRequest, ref: BlockRef, overrides?: StateOverrides): Promise<Uint8Array> {
    return this.execution.call(req, ref, overrides);
  }
  estimateGas(req: TxRequest, ref: BlockRef, overrides?: StateOverrides): Promise<bigint> {
    return this.execution.estimateGas(req, ref, overrides);
  }
  createAccessList(req: TxRequest, ref: BlockRef): Promise<AccessListResult> {
    return this.execution.createAccessList(req, ref);
  }
  simulate(specs: SimBlockSpec[], opts: SimOptions, ref: BlockRef): Promise<SimBlock[]> {
    return this.execution.simulate(specs, opts, ref);
  }

  /** `req` as a call at `block` runs it: its gas (the block's gas limit when it names none) within the RPC gas cap. */
  capped(req: TxRequest, block: Block): TxRequest {
    const limit = block.header.gasLimit;
    return capGas(req, gasCapAt(this.callBounds, limit), limit);
  }

  /** The block context a call executes in (a zero base fee for fee-less calls, as geth). */
  callBlock(block: Block, req: TxRequest): Block {
    return callBlock(block.common, block, req);
  }

  // ---------------------------------------------------------------- test controls
  /** Run `fn` on the live state under the node's lock (state edits, dumps, loads). */
  async withLiveState<T>(fn: (sm: MerkleStateManager) => Promise<T>): Promise<T> {
    return this.lock.run(async () => {
      try {
        return await fn(this.state);
      } finally {
        // The edit goes into the trie now: left in the caches, reads of other accounts could push it
        // out of them (they are LRUs) before the next block wrote it.
        await this.state.flush();
      }
    });
  }

  /** Run `fn` after every operation requested before it (ordering for settings changes). */
  async inOrder<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.lock.run(async () => fn());
  }

  /** anvil_setChainId: new transactions are signed and checked for `chainId`. */
  async setChainId(chainId: bigint, client?: Client): Promise<void> {
    await this.lock.run(() => this.useRules(chainId, this.config), client);
  }
  /** Under the lock: chain `chainId` runs `r`'s schedule, or its hardfork from genesis on (also a reset to another upstream). */
  async useRules(chainId: bigint, r: Pick<ChainConfig, 'hardfork' | 'schedule'>): Promise<void> {
    const live = await this.live.with(chainId, r.schedule ?? fixedSchedule(r.hardfork));
    // All at once: a read in between sees the old rules or the new, never a mix.
    Object.assign(this.config, { chainId, hardfork: r.hardfork, schedule: r.schedule });
    this.live = live;
  }

  /** Stop timers (interval mining); the node is unusable afterwards. */
  close(): void {
    this.callWorkers?.stop();
    this.store.close();
    this.forkLink.fork?.close();
    this.mining.stop();
    this.filters.close();
  }
  // ---------------------------------------------------------------- capabilities (api.ts) no other member answers

  headNumber(): bigint {
    return this.store.headNumber;
  }
  realBlocks(from: bigint, to: bigint): StoredBlock[] {
    return this.store.realBlocks(from, to);
  }
  pooledTx(hashHex: string): PendingTx | undefined {
    return this.pool.get(hashHex);
  }
  poolContent(): Promise<PoolContent> {
    return this.miner.poolContent();
  }
}

/** Default --max-trace-steps: a struct-log trace of this many steps is about 100 MB of JSON. */
export const DEFAULT_MAX_TRACE_STEPS = 250_000;
