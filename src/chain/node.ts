/**
 * The dev node, a facade: it owns the chain's parts (store, live state, VM, pool, lock) and
 * answers lookups, state reads at any block and calls; its modules do the rest — `miner`
 * (mining/), `intake` (pool/), `history` and `controls` (controls/), `logs` and `filters`
 * (logs/). It speaks only in chain objects; src/rpc turns requests into calls on it.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Block } from '@ethereumjs/block';
import { callBlock } from './exec/blockContext.js';
import type { Common } from '@ethereumjs/common';
import { getActivePrecompiles, type EVMMockBlockchainInterface } from '@ethereumjs/evm';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { MerkleStateManager, getMerkleStateProof, type Proof } from '@ethereumjs/statemanager';
import { Account, Address, bigIntToBytes, bytesToHex, setLengthLeft } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';
import { deriveAccounts, type DevAccount } from './wallet/accounts.js';
import { makeCommon } from './engine/common.js';
import { createEngine } from './engine/engine.js';
import { forkConfig, type ForkConfig } from './forkConfig.js';
import { simulate, type SimBlock, type SimBlockSpec, type SimOptions } from './exec/simulate.js';
import { DEFAULT_TIP, type ChainConfig } from './core/config.js';
import { ChainError } from './core/errors.js';
import * as exec from './exec/call.js';
import { routedCall } from './exec/offload/call.js';
import { explained } from './exec/explain.js';
import type { SourceLocator } from './core/sources.js';
import type { CallWorkers } from './exec/offload/pool.js';
import { RecordedStore } from './exec/offload/replica.js';
import { DEFAULT_CALL_TIMEOUT_MS, capGas, gasCapAt, withTimeout, type CallBounds } from './exec/bounds.js';
import { feeHistory, type FeeHistory } from './fees.js';
import { FilterRegistry } from './logs/filters.js';
import type { ChainFeed, NodeEvents } from './feed.js';
import type { BlockSettings, NodeParts } from './parts.js';
import { Mining } from './mining/mining.js';
import { PendingBlock } from './mining/pending.js';
import { estimateGas } from './exec/estimate.js';
import { Intake } from './pool/intake.js';
import { History } from './controls/history.js';
import { Controls, type MiningSettings } from './controls/settings.js';
import { LogIndex } from './logs/logIndex.js';
import { Lock } from './core/lock.js';
import { Clock } from './controls/clock.js';
import { TxPool } from './pool/txpool.js';
import type { Preimages } from './engine/preimages.js';
import { BlockStore } from './store.js';
import type { Fork } from './fork/fork.js';
import { writeForkGenesis, writeGenesis } from './genesis.js';
import { openAt, stateOf } from './stateAt.js';
import { ForkLink, type NodeStateManager } from './engine/forkState.js';
import { withPrefetch } from './fork/prefetch.js';
import { LATEST, isPending, type BlockRef, type MinedTx, type StateOverrides, type StoredBlock, type TxRequest } from './core/types.js';

export class DevNode implements ChainFeed, NodeParts {
  readonly events = new EventEmitter<NodeEvents>();
  readonly store: BlockStore;
  /** Every log, indexed by address and topic; kept current from `block` / `reorg`. */
  readonly logs = new LogIndex(this);
  /** Polling filters (eth_newFilter and friends). */
  readonly filters = new FilterRegistry(this, this.logs);
  /** Every change to the chain runs under it, in request order; reads of the live state take turns with them (lock.ts). */
  readonly lock = new Lock();
  /** Most struct-log steps one trace may record (--max-trace-steps); bounds a trace's memory. */
  maxTraceSteps = DEFAULT_MAX_TRACE_STEPS;
  /** Gas cap and wall-clock limit of calls (--rpc-gas-cap, --call-timeout). */
  readonly callBounds: CallBounds = { gasCap: undefined, timeoutMs: DEFAULT_CALL_TIMEOUT_MS };
  /** Dev accounts by lowercase address. */
  readonly keys = new Map<string, DevAccount>();
  private readonly precompiles: Set<string>;
  /** Transactions waiting for a block. */
  pool = new TxPool();
  clock = new Clock();
  readonly mining: MiningSettings = { auto: true, intervalMs: undefined, order: 'fees' };
  /** Block settings that test controls may change. */
  blockGasLimit: bigint;
  coinbase = exec.ZERO_ADDRESS;
  prevRandao = new Uint8Array(32);
  /** Base fee for the next block only (anvil_setNextBlockBaseFeePerGas). */
  nextBaseFeeOverride: bigint | undefined;
  /** Senders eth_sendTransaction accepts without a key (anvil_impersonateAccount), lowercase hex. */
  readonly impersonated = new Set<string>();
  /** Accept any sender without a key (anvil_autoImpersonateAccount). */
  autoImpersonate = false;
  /** Request and block logging (anvil_setLoggingEnabled); the CLI's log honours it. */
  loggingEnabled = true;
  /** Random id of this chain instance (anvil_metadata); renewed by reset. */
  instanceId = bytesToHex(randomBytes(32));
  /** Preimages of the state trie's hashed keys, for state dumps. */
  readonly preimages: Preimages;
  /** The live state's account trie (the state manager's own), for state dumps. */
  readonly stateTrie: MerklePatriciaTrie;
  /** The state trie's node store, logged for call workers while they run. */
  readonly trieNodes: RecordedStore;
  /** Source maps of the user's contracts (--artifacts): failed calls then carry a Solidity stack. */
  sources: SourceLocator | undefined;
  /** eth_call on worker threads (--call-workers); undefined: calls run on this thread only. */
  callWorkers: CallWorkers | undefined;
  /** The fork this chain runs on, if any (shared with the state manager and the EVM's history). */
  readonly forkLink: ForkLink<Fork>;
  /** The block settings the node started with (reset returns to them). */
  readonly defaults: BlockSettings;
  /** Block building, automine and interval mining. */
  readonly miner = new Mining(this);
  /** Transactions coming in: raw, signed here, impersonated. */
  readonly intake = new Intake(this, this.miner);
  /** Snapshots, rollback and reorg. */
  readonly history = new History(this, this.miner, this.intake);
  /** Test controls over time and the next blocks' settings. */
  readonly controls = new Controls(this, this.miner);
  /** The block mined next, which calls at `pending` run in. */
  readonly pending = new PendingBlock(this, this.miner);

  private constructor(
    readonly config: ChainConfig,
    public common: Common,
    readonly accounts: DevAccount[],
    /** The VM over the live state (replaced when the chain id changes). */
    public vm: VM,
    /** The live state: the head's, plus edits made since it was mined. */
    readonly state: NodeStateManager,
    parts: { store: BlockStore; preimages: Preimages; stateTrie: MerklePatriciaTrie; trieNodes: RecordedStore; forkLink: ForkLink<Fork> },
  ) {
    this.trieNodes = parts.trieNodes;
    this.store = parts.store;
    this.preimages = parts.preimages;
    this.stateTrie = parts.stateTrie;
    this.forkLink = parts.forkLink;
    for (const a of accounts) this.keys.set(a.address.toString(), a);
    this.blockGasLimit = config.gasLimit;
    this.defaults = this.blockSettings();
    this.precompiles = new Set([...getActivePrecompiles(common).keys()].map((a) => '0x' + a));
  }

  /** A fresh chain; with `fork`, one continuing from the fork block (see src/chain/fork). */
  static async create(config: ChainConfig, fork?: Fork): Promise<DevNode> {
    const common = makeCommon(config.chainId, config.hardfork, config.codeSizeLimit);
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
    const node = new DevNode(config, common, accounts, vm, state, { store, preimages, stateTrie, trieNodes, forkLink: link });
    await node.genesis(fork);
    return node;
  }

  /** Write block 0: a fresh genesis, or the fork point of `fork`. */
  genesis(fork?: Fork): Promise<void> {
    return fork ? writeForkGenesis(this, fork) : writeGenesis(this, this.clock.now());
  }

  /** The fork this chain runs on (undefined when it does not fork). */
  get fork(): Fork | undefined {
    return this.forkLink.fork;
  }

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

  /** Resolve a block reference for a state read; unknown blocks are `header not found`. */
  requireBlock(ref: BlockRef): StoredBlock {
    const b = this.block(ref);
    if (!b) throw new ChainError(ref.kind === 'hash' ? `header for hash ${bytesToHex(ref.hash)} not found` : 'header not found');
    return b;
  }

  tx(hashHex: string): MinedTx | undefined {
    return this.store.tx(hashHex.toLowerCase());
  }

  // ---------------------------------------------------------------- state

  /**
   * Run `fn` against the state at `ref`. The head's state is the live one (warm caches, taken under
   * the lock); older blocks get a copy opened at their state root.
   */
  private withState<T>(ref: BlockRef, fn: (sm: MerkleStateManager, at: StoredBlock) => Promise<T>): Promise<T> {
    return this.atBlock(ref, () => this.state, (at) => this.stateCopy(at), fn);
  }

  /**
   * Run `fn` on `live()` when `ref` is the head (under the lock, rechecked there: a block may be
   * mined meanwhile), else on `copy(at)`.
   */
  private async atBlock<S extends MerkleStateManager | VM, T>(ref: BlockRef, live: () => S, copy: (at: StoredBlock) => Promise<S>, fn: (s: S, at: StoredBlock) => Promise<T>): Promise<T> {
    const at = this.requireBlock(ref);
    // On a fork, upstream reads are found and fetched between runs, without the lock (withPrefetch).
    if (at === this.store.head) {
      return withPrefetch(this.state, () => (at === this.store.head ? fn(live(), at) : copy(at).then((s) => fn(s, at))), (run) => this.lock.read(run));
    }
    const s = await copy(at);
    return withPrefetch(stateOf(s), () => fn(s, at));
  }

  private async stateCopy(at: StoredBlock): Promise<MerkleStateManager> {
    const sm = this.state.shallowCopy(true);
    await openAt(sm, this.stateRootOf(at), at);
    return sm;
  }

  /**
   * The state block `at` reads as once later blocks exist: what test controls (anvil_setBalance and
   * friends) left it at before the next block was mined, else its header's root. As in anvil and
   * the hardhat node, a cheat at head N is part of block N's history.
   */
  stateRootOf(at: StoredBlock): Uint8Array {
    const n = at.number + 1n;
    // Blocks of an empty run follow one another with no edits between them.
    const next = this.store.isVirtual(n) ? undefined : this.store.byNumber(n);
    return next?.preStateRoot ?? at.block.header.stateRoot;
  }

  /** Run `fn` with a VM in the state of block `ref`, in the block a call there runs in; `fn` discards its effects. */
  withVm<T>(ref: BlockRef, fn: (vm: VM, block: Block) => Promise<T>): Promise<T> {
    if (isPending(ref)) return this.pending.run(fn);
    return this.atBlock(ref, () => this.vm, (at) => this.vmAt(this.stateRootOf(at), at), (vm, at) => fn(vm, at.block));
  }

  /**
   * A private VM copy holding the state of block `ref` (for the head, the live state including
   * edits made since it was mined; for `pending`, the pending block's), and the block a call at
   * `ref` runs in; nothing done on it reaches the chain.
   */
  async vmFor(ref: BlockRef): Promise<{ vm: VM; at: StoredBlock; block: Block }> {
    if (isPending(ref)) return this.pending.vm((root, at) => this.vmAt(root, at));
    const at = this.requireBlock(ref);
    let root = this.stateRootOf(at);
    if (at === this.store.head) root = await this.lock.read(async () => (at === this.store.head ? this.state.getStateRoot() : this.stateRootOf(at)));
    return { vm: await this.vmAt(root, at), at, block: at.block };
  }

  /** A private VM copy opened at `stateRoot`, a state of block `at` (replays, traces); the live state is untouched. */
  async vmAt(stateRoot: Uint8Array, at: StoredBlock): Promise<VM> {
    const vm = await this.vm.shallowCopy(true);
    await openAt(vm.stateManager as MerkleStateManager, stateRoot, at);
    return vm;
  }

  async getAccount(address: Address, ref: BlockRef): Promise<Account> {
    return this.withState(ref, async (sm) => (await sm.getAccount(address)) ?? new Account());
  }

  async getCode(address: Address, ref: BlockRef): Promise<Uint8Array> {
    return this.withState(ref, (sm) => sm.getCode(address));
  }

  async getStorageAt(address: Address, slot: bigint, ref: BlockRef): Promise<Uint8Array> {
    const key = setLengthLeft(bigIntToBytes(slot), 32);
    return this.withState(ref, async (sm) => setLengthLeft(await sm.getStorage(address, key), 32));
  }

  /** Next nonce of `address`; with `pending`, counting transactions waiting in the pool. */
  async getNonce(address: Address, ref: BlockRef): Promise<bigint> {
    if (ref.kind === 'tag' && ref.tag === 'pending') {
      const nonce = (await this.getAccount(address, LATEST)).nonce;
      return nonce + BigInt(this.pool.split(address.toString(), nonce).pending.length);
    }
    return (await this.getAccount(address, ref)).nonce;
  }

  async getProof(address: Address, slots: bigint[], ref: BlockRef): Promise<Proof> {
    return this.withState(ref, async (sm) => {
      // Proofs read the trie, so pending cache entries must be flushed first (a no-op on copies).
      await sm.flush();
      return getMerkleStateProof(sm, address, slots.map((s) => setLengthLeft(bigIntToBytes(s), 32)));
    });
  }

  /** Account fields and code of `address` at `ref` (eth_getAccount, eth_getAccountInfo); pending writes flushed so the storage root is current. */
  async getAccountAndCode(address: Address, ref: BlockRef): Promise<{ account: Account; code: Uint8Array }> {
    return this.withState(ref, async (sm) => {
      await sm.flush();
      return { account: (await sm.getAccount(address)) ?? new Account(), code: await sm.getCode(address) };
    });
  }

  /** EIP-7910's description of the fork this chain runs, from its first local block. */
  forkConfig(): ForkConfig {
    const first = this.store.byNumber(this.store.base) ?? this.head;
    return forkConfig(this.common, this.config.hardfork, first.block.hash(), first.block.header.timestamp);
  }

  // ---------------------------------------------------------------- fees

  /** Base fee of the block mined next on the head (undefined before London). */
  pendingBaseFee(): bigint | undefined {
    return this.common.isActivatedEIP(1559) ? (this.nextBaseFeeOverride ?? this.store.head.block.header.calcNextBaseFee()) : undefined;
  }

  /** Base fee of the next block (0 before London). */
  nextBaseFee(): bigint {
    return this.pendingBaseFee() ?? 0n;
  }

  /** eth_gasPrice: next base fee plus the suggested tip, never below the configured floor. */
  gasPrice(): bigint {
    const p = this.nextBaseFee() + DEFAULT_TIP;
    return p > this.config.gasPriceFloor ? p : this.config.gasPriceFloor;
  }

  maxPriorityFeePerGas(): bigint {
    return DEFAULT_TIP;
  }

  blobBaseFee(): bigint {
    if (!this.common.isActivatedEIP(4844)) throw new ChainError('blob fees are not active before cancun');
    return this.store.head.block.header.calcNextBlobGasPrice(this.common);
  }

  feeHistory(count: number, newest: BlockRef, percentiles: number[] | undefined): FeeHistory {
    return feeHistory(this, count, this.requireBlock(newest), percentiles);
  }

  // ---------------------------------------------------------------- execution

  /** eth_call: on a worker when others are in progress or this code ran long (offload/routing.ts). */
  async call(req: TxRequest, ref: BlockRef, overrides?: StateOverrides): Promise<Uint8Array> {
    const explain = (err: unknown) => explained(this, err, req, ref, overrides);
    const workers = overrides === undefined && this.forkLink.fork === undefined ? this.callWorkers : undefined;
    if (workers === undefined) return this.callHere(req, ref, overrides).catch(explain);
    return routedCall(this, workers, req, ref, () => this.callHere(req, ref, overrides)).catch(explain);
  }

  private callHere(req: TxRequest, ref: BlockRef, overrides: StateOverrides | undefined): Promise<Uint8Array> {
    return this.withVm(ref, (vm, block) =>
      withTimeout(vm.evm, this.callBounds.timeoutMs, () => exec.call(vm, this.callBlock(block, req), this.capped(req, block), overrides)),
    );
  }

  async estimateGas(req: TxRequest, ref: BlockRef, overrides?: StateOverrides): Promise<bigint> {
    return this.withVm(ref, (vm, block) => {
      const limit = block.header.gasLimit;
      const cap = gasCapAt(this.callBounds, limit);
      return withTimeout(vm.evm, this.callBounds.timeoutMs, () => estimateGas(vm, this.callBlock(block, req), capGas(req, cap, limit), cap < limit ? cap : limit, overrides));
    }).catch((err: unknown) => explained(this, err, req, ref, overrides));
  }

  async createAccessList(req: TxRequest, ref: BlockRef): Promise<exec.AccessListResult> {
    return this.withVm(ref, (vm, block) =>
      withTimeout(vm.evm, this.callBounds.timeoutMs, () => exec.createAccessList(vm, this.callBlock(block, req), this.capped(req, block), this.precompiles)),
    );
  }

  /** eth_simulateV1: blocks of calls on a private copy of the state at `ref`; nothing reaches the chain. */
  async simulate(specs: SimBlockSpec[], opts: SimOptions, ref: BlockRef): Promise<SimBlock[]> {
    const { vm, block } = await this.vmFor(ref);
    return withTimeout(vm.evm, this.callBounds.timeoutMs, () => simulate(vm, block, specs, opts));
  }

  /** `req` as a call at `block` runs it: its gas (the block's gas limit when it names none) within the RPC gas cap. */
  capped(req: TxRequest, block: Block): TxRequest {
    const limit = block.header.gasLimit;
    return capGas(req, gasCapAt(this.callBounds, limit), limit);
  }

  /** The block context a call executes in (a zero base fee for fee-less calls, as geth). */
  callBlock(block: Block, req: TxRequest): Block {
    return callBlock(this.common, block, req);
  }

  blockSettings(): BlockSettings {
    return {
      coinbase: this.coinbase,
      blockGasLimit: this.blockGasLimit,
      prevRandao: this.prevRandao,
      nextBaseFeeOverride: this.nextBaseFeeOverride,
      gasPriceFloor: this.config.gasPriceFloor,
    };
  }

  restoreBlockSettings(s: BlockSettings): void {
    this.coinbase = s.coinbase;
    this.blockGasLimit = s.blockGasLimit;
    this.prevRandao = s.prevRandao;
    this.nextBaseFeeOverride = s.nextBaseFeeOverride;
    this.config.gasPriceFloor = s.gasPriceFloor;
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
  async setChainId(chainId: bigint): Promise<void> {
    await this.lock.run(async () => {
      this.config.chainId = chainId;
      this.common = makeCommon(chainId, this.config.hardfork, this.config.codeSizeLimit);
      this.vm = await createVM({ common: this.common, stateManager: this.state, blockchain: this.vm.blockchain, setHardfork: false });
    });
  }

  /** Stop timers (interval mining); the node is unusable afterwards. */
  close(): void {
    this.callWorkers?.stop();
    this.store.close();
    this.forkLink.fork?.close();
    this.miner.setIntervalMining(0);
    this.filters.close();
  }
}

/** Default --max-trace-steps: a struct-log trace of this many steps is about 100 MB of JSON. */
export const DEFAULT_MAX_TRACE_STEPS = 250_000;
