/**
 * The dev node: genesis, live state, automining, history and state queries. It wraps ethereumjs
 * and speaks only in chain objects; src/rpc turns requests into calls on it.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { getActivePrecompiles, type EVMMockBlockchainInterface } from '@ethereumjs/evm';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { MerkleStateManager, getMerkleStateProof, type Proof } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, KECCAK256_RLP, bytesToHex, createAddressFromString, createZeroAddress, equalsBytes, setLengthLeft } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';
import { deriveAccounts, type DevAccount } from './accounts.js';
import { makeCommon } from './common.js';
import { createEngine } from './engine.js';
import { forkConfig, type ForkConfig } from './forkConfig.js';
import { simulate, type SimBlock, type SimBlockSpec, type SimOptions } from './simulate.js';
import { ConsoleWatch } from './console.js';
import { GWEI, type ChainConfig } from './config.js';
import { ChainError } from './errors.js';
import * as exec from './execute.js';
import { feeHistory, type FeeHistory } from './fees.js';
import { FilterRegistry } from './filters.js';
import { LogIndex } from './logs.js';
import { Lock } from './lock.js';
import { Clock } from './clock.js';
import { TxPool, type BlockOrder, type PoolContent } from './txpool.js';
import { mineBlock, type BlockEnv, type PendingTx } from './miner.js';
import { EmptyRun, LAZY_RUN_MIN, emptyBlocksKeepState } from './massMine.js';
import { readyHeaderKeccak } from './headerKeccak.js';
import type { Preimages } from './preimages.js';
import { unsignedTx, withFakeSender } from './request.js';
import { BlockStore } from './store.js';
import type { Fork } from './fork/fork.js';
import { forkPoint } from './fork/genesis.js';
import { ForkLink, withPrefetch } from './fork/state.js';
import { checkAdmission, decodeRawTx, recoverSender } from './txs.js';
import { TxRejected } from './rejections.js';
import { LATEST, type BlockRef, type MinedTx, type StateOverrides, type StoredBlock, type TxRequest } from './types.js';

/** Priority fee the node suggests (eth_maxPriorityFeePerGas) and fills in for eth_sendTransaction. */
export const DEFAULT_TIP = GWEI;

export interface NodeEvents {
  /** A block was added to the chain. */
  block: [StoredBlock];
  /** A transaction entered the pool. */
  pendingTx: [PendingTx];
  /** A transaction left the pool without being mined (replaced, dropped, failed). */
  dropped: [PendingTx, string];
  /** Blocks were removed from the chain (snapshot revert, reset), oldest first. */
  reorg: [StoredBlock[]];
  /**
   * Empty blocks first..last joined the chain as a run built on demand (anvil_mine / hardhat_mine
   * of many blocks; no `block` event each): `store.byNumber` builds them, they hold no
   * transactions or logs, and `reorg` lists only real blocks.
   */
  emptyBlocks: [first: bigint, last: bigint];
  /** console.log lines a mined transaction printed (emitted before its block's `block` event). */
  console: [MinedTx, string[]];
  /** A background task (interval mining) failed. */
  error: [Error];
}

export interface MiningSettings {
  auto: boolean;
  intervalMs: number | undefined;
  /** With a range (hardhat's [min, max]), each interval is drawn from [intervalMs, intervalMaxMs]. */
  intervalMaxMs?: number;
  order: BlockOrder;
}

/** Block settings test controls change; snapshots and reset restore them. */
interface BlockSettings {
  coinbase: Address;
  blockGasLimit: bigint;
  prevRandao: Uint8Array<ArrayBuffer>;
  nextBaseFeeOverride: bigint | undefined;
  gasPriceFloor: bigint;
}

interface Snapshot {
  blockNumber: bigint;
  /** The live state root (edits made after the head block included). */
  stateRoot: Uint8Array;
  pool: TxPool;
  clock: Clock;
  mining: MiningSettings;
  settings: BlockSettings;
}

export class DevNode {
  readonly events = new EventEmitter<NodeEvents>();
  readonly store = new BlockStore();
  /** Every log, indexed by address and topic; kept current from `block` / `reorg`. */
  readonly logs = new LogIndex(this);
  /** Polling filters (eth_newFilter and friends). */
  readonly filters = new FilterRegistry(this);
  private readonly lock = new Lock();
  private readonly senderQueues = new Map<string, Promise<unknown>>();
  /** Most struct-log steps one trace may record (--max-trace-steps); bounds a trace's memory. */
  maxTraceSteps = DEFAULT_MAX_TRACE_STEPS;
  private readonly keys = new Map<string, DevAccount>();
  private readonly precompiles: Set<string>;
  /** Transactions waiting for a block. */
  pool = new TxPool();
  clock = new Clock();
  readonly mining: MiningSettings = { auto: true, intervalMs: undefined, order: 'fees' };
  private intervalTimer: NodeJS.Timeout | undefined;
  /** Taken in lock order, so a snapshot sees exactly the operations requested before it. */
  private readonly snapshots = new Map<bigint, Promise<Snapshot>>();
  private nextSnapshotId = 1n;
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
  readonly preimages!: Preimages;
  /** The live state's account trie (the state manager's own), for state dumps. */
  readonly stateTrie!: MerklePatriciaTrie;
  /** The fork this chain runs on, if any (shared with the state manager and the EVM's history). */
  readonly forkLink = new ForkLink();
  private readonly defaults: BlockSettings;

  private constructor(
    readonly config: ChainConfig,
    public common: Common,
    readonly accounts: DevAccount[],
    private vm: VM,
    private readonly state: MerkleStateManager,
  ) {
    for (const a of accounts) this.keys.set(a.address.toString(), a);
    this.blockGasLimit = config.gasLimit;
    this.defaults = this.blockSettings();
    this.precompiles = new Set([...getActivePrecompiles(common).keys()].map((a) => '0x' + a));
  }

  /** A fresh chain; with `fork`, one continuing from the fork block (see src/chain/fork). */
  static async create(config: ChainConfig, fork?: Fork): Promise<DevNode> {
    const common = makeCommon(config.chainId, config.hardfork);
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
    const { preimages, stateTrie, state, vm } = await createEngine(common, history, link);
    const node = new DevNode(config, common, accounts, vm, state);
    (node as { store: BlockStore }).store = store;
    (node as { preimages: Preimages }).preimages = preimages;
    (node as { stateTrie: MerklePatriciaTrie }).stateTrie = stateTrie;
    (node as { forkLink: ForkLink }).forkLink = link;
    await (fork ? node.forkGenesis(fork) : node.genesis());
    return node;
  }

  private async genesis(): Promise<void> {
    await this.state.checkpoint();
    for (const a of this.accounts) await this.state.putAccount(a.address, new Account(0n, this.config.balance));
    await this.state.commit();
    const stateRoot = await this.state.getStateRoot();
    const block = createBlock(
      {
        header: {
          number: 0n,
          gasLimit: this.config.gasLimit,
          timestamp: this.config.timestamp ?? this.clock.now(),
          baseFeePerGas: this.common.isActivatedEIP(1559) ? this.config.baseFee : undefined,
          stateRoot,
          difficulty: 0n,
          excessBlobGas: this.common.isActivatedEIP(4844) ? 0n : undefined,
          blobGasUsed: this.common.isActivatedEIP(4844) ? 0n : undefined,
        },
        withdrawals: this.common.isActivatedEIP(4895) ? [] : undefined,
      },
      { common: this.common },
    );
    const hash = block.hash();
    this.store.add({ block, number: 0n, hash, hashHex: bytesToHex(hash), txs: [] });
  }

  /**
   * A forked chain starts at the fork block: the upstream's state, with the dev accounts funded
   * (their nonce and code stay the upstream's), under a copy of the fork block's header.
   */
  private async forkGenesis(fork: Fork): Promise<void> {
    await fork.state.prefetch(this.accounts.map((a) => a.address), []);
    await this.state.checkpoint();
    for (const a of this.accounts) await this.state.modifyAccountFields(a.address, { balance: this.config.balance });
    await this.state.commit();
    this.store.rebase(fork.number);
    this.store.add(forkPoint(fork, await this.state.getStateRoot(), this.common, this.config.baseFee));
  }

  /** The fork this chain runs on (undefined when it does not fork). */
  get fork(): Fork | undefined {
    return this.forkLink.fork;
  }

  // ---------------------------------------------------------------- blocks

  get head(): StoredBlock {
    return this.store.head;
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
      return withPrefetch(this.state, () => (at === this.store.head ? fn(live(), at) : copy(at).then((s) => fn(s, at))), (run) => this.lock.run(run));
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

  /** Run `fn` with a VM whose state is that of block `ref`; effects must be discarded by `fn`. */
  private withVm<T>(ref: BlockRef, fn: (vm: VM, at: StoredBlock) => Promise<T>): Promise<T> {
    return this.atBlock(ref, () => this.vm, (at) => this.vmCopy(at), fn);
  }

  /**
   * A private VM copy holding the state of block `ref` (for the head, the live state including
   * edits made since it was mined); nothing done on it reaches the chain.
   */
  async vmFor(ref: BlockRef): Promise<{ vm: VM; at: StoredBlock }> {
    const at = this.requireBlock(ref);
    let root = this.stateRootOf(at);
    if (at === this.store.head) root = await this.lock.run(async () => (at === this.store.head ? this.state.getStateRoot() : this.stateRootOf(at)));
    return { vm: await this.vmAt(root, at), at };
  }

  /** A private VM copy opened at `stateRoot`, a state of block `at` (replays, traces); the live state is untouched. */
  async vmAt(stateRoot: Uint8Array, at: StoredBlock): Promise<VM> {
    const vm = await this.vm.shallowCopy(true);
    await openAt(vm.stateManager as MerkleStateManager, stateRoot, at);
    return vm;
  }

  private async vmCopy(at: StoredBlock): Promise<VM> {
    return this.vmAt(this.stateRootOf(at), at);
  }

  async getAccount(address: Address, ref: BlockRef): Promise<Account> {
    return this.withState(ref, async (sm) => (await sm.getAccount(address)) ?? new Account());
  }

  async getCode(address: Address, ref: BlockRef): Promise<Uint8Array> {
    return this.withState(ref, (sm) => sm.getCode(address));
  }

  async getStorageAt(address: Address, slot: bigint, ref: BlockRef): Promise<Uint8Array> {
    const key = setLengthLeft(bigintToBytes32(slot), 32);
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
      return getMerkleStateProof(sm, address, slots.map((s) => setLengthLeft(bigintToBytes32(s), 32)));
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

  /** Base fee of the next block. */
  nextBaseFee(): bigint {
    const h = this.store.head.block.header;
    return this.common.isActivatedEIP(1559) ? (this.nextBaseFeeOverride ?? h.calcNextBaseFee()) : 0n;
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

  async call(req: TxRequest, ref: BlockRef, overrides?: StateOverrides): Promise<Uint8Array> {
    return this.withVm(ref, (vm, at) => exec.call(vm, this.callBlock(at.block, req), req, overrides));
  }

  async estimateGas(req: TxRequest, ref: BlockRef, overrides?: StateOverrides): Promise<bigint> {
    return this.withVm(ref, (vm, at) =>
      exec.estimateGas(vm, this.callBlock(at.block, req), req, at.block.header.gasLimit, overrides),
    );
  }

  async createAccessList(req: TxRequest, ref: BlockRef): Promise<exec.AccessListResult> {
    return this.withVm(ref, (vm, at) => exec.createAccessList(vm, this.callBlock(at.block, req), req, this.precompiles));
  }

  /** eth_simulateV1: blocks of calls on a private copy of the state at `ref`; nothing reaches the chain. */
  async simulate(specs: SimBlockSpec[], opts: SimOptions, ref: BlockRef): Promise<SimBlock[]> {
    const { vm, at } = await this.vmFor(ref);
    return simulate(vm, at.block, specs, opts);
  }

  /**
   * The block context a call executes in: the block's own header, with a zero base fee when the
   * caller offers no gas price (as geth does, so fee-less calls never fail the base-fee check).
   */
  callBlock(block: Block, req: TxRequest): Block {
    const priced = (req.gasPrice ?? req.maxFeePerGas ?? 0n) > 0n;
    if (priced || !this.common.isActivatedEIP(1559)) return block;
    const h = block.header;
    return createBlock(
      {
        header: {
          ...headerFields(h),
          baseFeePerGas: 0n,
        },
      },
      { common: this.common, skipConsensusFormatValidation: true },
    );
  }

  // ---------------------------------------------------------------- transactions

  /** Accept a signed transaction and mine it; resolves once its block exists. */
  async sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    const tx = decodeRawTx(raw, this.common);
    const hash = tx.hash();
    const hashHex = bytesToHex(hash);
    if (this.store.tx(hashHex) || this.pool.has(hashHex)) throw new ChainError('already known');
    const from = recoverSender(tx);
    return this.submit({ tx, from, hash, hashHex });
  }

  /** Fill, sign with the dev key of `from` (or send unsigned from an impersonated one), and submit. */
  async sendTransaction(req: TxRequest): Promise<Uint8Array> {
    if (req.from && !this.keys.has(req.from.toString())) return this.sendUnsigned(req);
    return this.inSenderOrder(req.from, async () => {
      const tx = await this.signTransaction(req);
      const hash = tx.hash();
      return this.submit({ tx, from: req.from!, hash, hashHex: bytesToHex(hash) });
    });
  }

  /**
   * Requests from one sender are filled and submitted one after another, so concurrent ones (a
   * batch, parallel clients) get consecutive nonces in arrival order.
   */
  private inSenderOrder<T>(from: Address | undefined, fn: () => Promise<T>): Promise<T> {
    if (!from) return fn();
    const key = from.toString();
    const run = (this.senderQueues.get(key) ?? Promise.resolve()).then(fn, fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.senderQueues.set(key, tail);
    void tail.then(() => {
      if (this.senderQueues.get(key) === tail) this.senderQueues.delete(key);
    });
    return run;
  }

  /** eth_signTransaction: fill missing fields and sign with the dev key of `from`. */
  async signTransaction(req: TxRequest): Promise<TypedTransaction> {
    const key = this.keyOf(req.from);
    const filled = await this.fill(req);
    return unsignedTx(filled, this.common).sign(key.privateKey);
  }

  /** eth_fillTransaction: the request with nonce, fees, gas and chain id filled, unsigned. */
  async fillTransaction(req: TxRequest): Promise<TypedTransaction> {
    return unsignedTx(await this.fill({ ...req, from: req.from ?? createZeroAddress() }), this.common, false);
  }

  /** The dev account for `from`, or geth's `unknown account`. */
  keyOf(from: Address | undefined): DevAccount {
    if (!from) throw new ChainError('missing from address', undefined, -32602);
    const key = this.keys.get(from.toString());
    if (!key) throw new ChainError(`unknown account ${from.toString()}`);
    return key;
  }

  /** Fill nonce, fees and gas of a request as eth_sendTransaction does. */
  private async fill(req: TxRequest): Promise<TxRequest> {
    const out: TxRequest = { ...req, chainId: this.config.chainId };
    if (out.chainId !== undefined && req.chainId !== undefined && req.chainId !== this.config.chainId) {
      throw new ChainError(`invalid chain id: have ${req.chainId}, want ${this.config.chainId}`);
    }
    if (out.nonce === undefined) out.nonce = await this.getNonce(req.from!, { kind: 'tag', tag: 'pending' });
    // Types 0 and 1 pay a gas price, whatever else the request leaves out.
    const legacy = req.gasPrice !== undefined || (req.type !== undefined && req.type < 2) || !this.common.isActivatedEIP(1559);
    if (legacy) {
      out.gasPrice ??= this.gasPrice();
    } else {
      out.maxPriorityFeePerGas ??= DEFAULT_TIP;
      if (out.maxFeePerGas === undefined) {
        const suggested = this.nextBaseFee() * 2n + out.maxPriorityFeePerGas;
        out.maxFeePerGas = suggested > this.config.gasPriceFloor ? suggested : this.config.gasPriceFloor;
      }
    }
    if (out.gas === undefined) out.gas = await this.estimateGas(out, { kind: 'tag', tag: 'latest' });
    return out;
  }

  /**
   * Admission checks, then into the pool. With automine the transaction (and any queued ones it
   * unblocks) are mined at once, one block each, before this resolves.
   */
  async submit(ptx: PendingTx): Promise<Uint8Array> {
    return this.lock.run(async () => {
      if (this.store.tx(ptx.hashHex) || this.pool.has(ptx.hashHex)) throw new ChainError('already known');
      const account = (await this.state.getAccount(ptx.from)) ?? new Account();
      const head = this.store.head.block.header;
      checkAdmission(ptx.tx, ptx.from, {
        nonce: account.nonce,
        balance: account.balance,
        baseFee: this.common.isActivatedEIP(1559) ? (this.nextBaseFeeOverride ?? head.calcNextBaseFee()) : undefined,
        blockGasLimit: this.blockGasLimit,
      });
      const replaced = this.pool.add(ptx);
      if (replaced) this.events.emit('dropped', replaced, 'replaced');
      this.events.emit('pendingTx', ptx);
      if (this.mining.auto) {
        const ready = this.pool.split(ptx.from.toString(), account.nonce).pending;
        for (const next of ready) {
          this.pool.remove(next.hashHex);
          try {
            await this.mine([next], true);
          } catch (err) {
            if (next === ptx) throw err;
            // The later ones now sit behind a nonce gap: they stay queued.
            this.events.emit('dropped', next, (err as Error).message);
            break;
          }
        }
      }
      return ptx.hash;
    });
  }

  /** Mine one block on the live state from `txs` (caller holds the lock). */
  private async mine(txs: PendingTx[], requireAll: boolean): Promise<StoredBlock> {
    // On a fork, what every block reads is fetched first: an unreachable upstream stops the block before it starts.
    await this.forkLink.fork?.state.prefetchBlockReads();
    const parent = this.store.head.block;
    // State edited between blocks (test controls) is part of this block's starting point: replays
    // of its transactions must start there, not at the parent's root.
    const preStateRoot = await this.state.getStateRoot();
    // console.log lines are collected only while someone listens for them.
    const consoleWatch = this.events.listenerCount('console') > 0 ? new ConsoleWatch(this.vm.evm) : undefined;
    let outcome;
    try {
      outcome = await mineBlock(this.vm, parent, txs, this.nextEnv(parent), requireAll);
      this.nextBaseFeeOverride = undefined;
    } finally {
      consoleWatch?.stop();
    }
    const { stored, skipped } = outcome;
    if (!equalsBytes(preStateRoot, parent.header.stateRoot)) stored.preStateRoot = preStateRoot;
    // Transactions that no longer fit stay in the pool for the next block.
    for (const s of skipped) {
      if (s.error instanceof TxRejected && s.error.kind === 'block-full') this.pool.add(s.ptx);
      else this.events.emit('dropped', s.ptx, s.error.message);
    }
    this.store.add(stored);
    if (consoleWatch) for (const [tx, lines] of consoleWatch.byTx(stored.txs)) this.events.emit('console', tx, lines);
    this.events.emit('block', stored);
    return stored;
  }

  private nextEnv(parent: Block): BlockEnv {
    return {
      timestamp: this.clock.next(parent.header.timestamp),
      coinbase: this.coinbase,
      gasLimit: this.blockGasLimit,
      baseFeePerGas: this.common.isActivatedEIP(1559) ? (this.nextBaseFeeOverride ?? parent.header.calcNextBaseFee()) : undefined,
      prevRandao: this.prevRandao,
      parentHash: this.store.head.hash,
    };
  }

  /** Mine one block from the pool's executable transactions in the configured order. */
  async mineNow(): Promise<StoredBlock> {
    return this.lock.run(() => this.minePool());
  }

  private async minePool(): Promise<StoredBlock> {
    const nonces = new Map<string, bigint>();
    for (const sender of this.pool.senderAddresses()) {
      nonces.set(sender, (await this.state.getAccount(createAddressFromString(sender)))?.nonce ?? 0n);
    }
    const parent = this.store.head.block.header;
    const baseFee = this.common.isActivatedEIP(1559) ? (this.nextBaseFeeOverride ?? parent.calcNextBaseFee()) : undefined;
    const picked: PendingTx[] = [];
    const blocked = new Set<string>();
    let gas = 0n;
    for (const p of this.pool.ordered(nonces, this.mining.order, baseFee)) {
      const sender = p.from.toString();
      // Overflow stays pending; a sender's later nonces cannot go in once one was left out.
      if (blocked.has(sender) || gas + p.tx.gasLimit > this.blockGasLimit) {
        blocked.add(sender);
        continue;
      }
      gas += p.tx.gasLimit;
      picked.push(p);
    }
    for (const p of picked) this.pool.remove(p.hashHex);
    return this.mine(picked, false);
  }

  /** The pool split into pending and queued per sender, against the live state's nonces. */
  async poolContent(): Promise<PoolContent> {
    return this.lock.run(async () => {
      const nonces = new Map<string, bigint>();
      for (const sender of this.pool.senderAddresses()) {
        nonces.set(sender, (await this.state.getAccount(createAddressFromString(sender)))?.nonce ?? 0n);
      }
      return this.pool.content(nonces);
    });
  }

  // ---------------------------------------------------------------- mining modes

  /** Turn automine on or off; turning it on mines what waits in the pool. */
  async setAutomine(on: boolean): Promise<void> {
    this.mining.auto = on;
    if (on && this.pool.size > 0) await this.mineNow();
  }

  /**
   * Mine a block every `ms` milliseconds (0 turns interval mining off); with `maxMs`, each delay is
   * drawn from [ms, maxMs] (hardhat's range form).
   */
  setIntervalMining(ms: number, maxMs?: number): void {
    if (this.intervalTimer) clearInterval(this.intervalTimer);
    this.intervalTimer = undefined;
    this.mining.intervalMs = ms > 0 ? ms : undefined;
    this.mining.intervalMaxMs = ms > 0 && maxMs !== undefined && maxMs > ms ? maxMs : undefined;
    const tick = () => {
      this.mineNow().catch((err) => this.events.emit('error', err as Error));
    };
    const max = this.mining.intervalMaxMs;
    if (ms > 0 && max === undefined) {
      this.intervalTimer = setInterval(tick, ms);
      this.intervalTimer.unref();
    } else if (ms > 0 && max !== undefined) {
      const next = () => {
        this.intervalTimer = setTimeout(() => {
          tick();
          next();
        }, ms + Math.floor(Math.random() * (max - ms + 1)));
        this.intervalTimer.unref();
      };
      next();
    }
  }

  // ---------------------------------------------------------------- snapshots

  /**
   * Record everything needed to come back here; returns the snapshot id. The record is taken in
   * lock order: it holds every operation requested before this call and none requested after.
   * Cheap: the state is a root into the trie (old nodes are kept), not a copy.
   */
  snapshot(): bigint {
    const id = this.nextSnapshotId++;
    const taken = this.lock.run(
      async (): Promise<Snapshot> => ({
        blockNumber: this.store.headNumber,
        stateRoot: await this.state.getStateRoot(),
        pool: this.pool.clone(),
        clock: this.clock.clone(),
        mining: { ...this.mining },
        settings: this.blockSettings(),
      }),
    );
    taken.catch(() => undefined);
    this.snapshots.set(id, taken);
    return id;
  }

  /** Ids of the snapshots that can still be reverted to, oldest first. */
  snapshotIds(): bigint[] {
    return [...this.snapshots.keys()];
  }

  /** Head block number recorded by snapshot `id` (undefined for unknown ids). */
  async snapshotBlock(id: bigint): Promise<bigint | undefined> {
    return (await this.snapshots.get(id))?.blockNumber;
  }

  /** Forget every snapshot (the chain they point into was replaced). */
  clearSnapshots(): void {
    this.snapshots.clear();
  }

  /** Return to snapshot `id`; it and every later snapshot are used up. False for unknown ids. */
  async revert(id: bigint): Promise<boolean> {
    const taken = this.snapshots.get(id);
    if (!taken) return false;
    for (const k of [...this.snapshots.keys()]) if (k >= id) this.snapshots.delete(k);
    const snap = await taken;
    await this.lock.run(async () => {
      await this.rewind(snap.blockNumber, snap.stateRoot);
      this.pool = snap.pool.clone();
      this.clock = snap.clock.clone();
      this.restoreBlockSettings(snap.settings);
    });
    this.mining.auto = snap.mining.auto;
    this.mining.order = snap.mining.order;
    this.setIntervalMining(snap.mining.intervalMs ?? 0, snap.mining.intervalMaxMs);
    return true;
  }

  /**
   * anvil_rollback: drop the last `depth` blocks. Their transactions are gone (not back in the
   * pool, as in anvil) and their logs are reported removed to filters and subscriptions.
   */
  async rollback(depth: bigint): Promise<void> {
    await this.lock.run(async () => {
      const head = this.store.headNumber;
      if (depth > head - this.store.base) throw new ChainError(`depth ${depth} exceeds the ${head - this.store.base} blocks this chain can roll back`, undefined, -32602);
      if (depth === 0n) return;
      const target = this.store.byNumber(head - depth)!;
      await this.rewind(target.number, this.stateRootOf(target));
    });
  }

  /**
   * anvil_reorg: replace the last `depth` blocks with as many new ones, block `i` holding the
   * transactions given with offset `i` (signed raw ones, or requests signed here or sent as
   * impersonated senders). A transaction that cannot be included fails the call.
   */
  async reorg(depth: bigint, txs: ReadonlyArray<{ tx: Uint8Array | TxRequest; offset: number }>): Promise<void> {
    if (txs.some((t) => t.offset >= Number(depth))) throw new ChainError(`a transaction's block offset must be below the depth ${depth}`, undefined, -32602);
    await this.rollback(depth);
    for (let i = 0; i < Number(depth); i++) {
      const block: PendingTx[] = [];
      for (const { tx } of txs.filter((t) => t.offset === i)) block.push(await this.pendingFor(tx, block));
      await this.lock.run(() => this.mine(block, true));
    }
  }

  /** A transaction ready to mine: decoded and recovered, or filled and signed (nonces continue past `earlier`). */
  private async pendingFor(tx: Uint8Array | TxRequest, earlier: readonly PendingTx[]): Promise<PendingTx> {
    if (tx instanceof Uint8Array) {
      const decoded = decodeRawTx(tx, this.common);
      const hash = decoded.hash();
      return { tx: decoded, from: recoverSender(decoded), hash, hashHex: bytesToHex(hash) };
    }
    const from = tx.from;
    if (!from) throw new ChainError('missing from address', undefined, -32602);
    if (!this.keys.has(from.toString()) && !this.isImpersonated(from)) throw new ChainError(`unknown account ${from.toString()}: not a dev account and not impersonated (anvil_impersonateAccount)`);
    const nonce = tx.nonce ?? (await this.getNonce(from, LATEST)) + BigInt(earlier.filter((p) => p.from.equals(from)).length);
    const req = { ...tx, nonce };
    const signed = this.keys.has(from.toString()) ? await this.signTransaction(req) : withFakeSender(await this.fill(req), this.common, from);
    const hash = signed.hash();
    return { tx: signed, from, hash, hashHex: bytesToHex(hash) };
  }

  /** Drop every block above `n` and reset the live state to `stateRoot` (caller holds the lock). */
  private async rewind(n: bigint, stateRoot: Uint8Array): Promise<void> {
    const dropped = this.store.truncate(n);
    await this.state.setStateRoot(stateRoot);
    if (dropped.length) this.events.emit('reorg', dropped);
  }

  private blockSettings(): BlockSettings {
    return {
      coinbase: this.coinbase,
      blockGasLimit: this.blockGasLimit,
      prevRandao: this.prevRandao,
      nextBaseFeeOverride: this.nextBaseFeeOverride,
      gasPriceFloor: this.config.gasPriceFloor,
    };
  }

  private restoreBlockSettings(s: BlockSettings): void {
    this.coinbase = s.coinbase;
    this.blockGasLimit = s.blockGasLimit;
    this.prevRandao = s.prevRandao;
    this.nextBaseFeeOverride = s.nextBaseFeeOverride;
    this.config.gasPriceFloor = s.gasPriceFloor;
  }

  // ---------------------------------------------------------------- test controls

  /** Run `fn` on the live state under the node's lock (state edits, dumps, loads). */
  async withLiveState<T>(fn: (sm: MerkleStateManager) => Promise<T>): Promise<T> {
    return this.lock.run(() => fn(this.state));
  }

  /** Run `fn` after every operation requested before it (ordering for settings changes). */
  async inOrder<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.lock.run(async () => fn());
  }

  /**
   * Mine `count` blocks (evm_mine, anvil_mine, hardhat_mine). Waiting transactions go into the
   * first ones; once a block comes out empty, the rest are recorded as a run of empty blocks built
   * on demand (massMine.ts), unless `detailed` wants every block now. `timestamp` sets the first
   * block's time; with `interval` the blocks after the first are that many seconds apart. Returns
   * the blocks built now.
   */
  async mineBlocks(count: number, opts: { interval?: bigint; timestamp?: bigint; detailed?: boolean } = {}): Promise<StoredBlock[]> {
    const { interval, timestamp, detailed = false } = opts;
    if (count >= LAZY_RUN_MIN) await readyHeaderKeccak();
    return this.lock.run(async () => {
      if (timestamp !== undefined) this.clock.setNext(timestamp, this.store.head.block.header.timestamp);
      const mined: StoredBlock[] = [];
      let left = count;
      if (!detailed && left >= LAZY_RUN_MIN && (await this.extendEmptyRun(left, interval))) return mined;
      while (left > 0) {
        if (interval !== undefined && mined.length > 0) this.clock.nextTimestamp = mined[mined.length - 1].block.header.timestamp + interval;
        const b = await this.minePool();
        mined.push(b);
        left--;
        // An empty block with nothing executable left: every later block is the same but for
        // number, time, fees and parent, so the rest become a run built on demand.
        if (!detailed && left >= LAZY_RUN_MIN && b.txs.length === 0 && (await emptyBlocksKeepState(this.state))) {
          const run = new EmptyRun(b.block, left, interval ?? this.clock.interval ?? 1n);
          this.store.addRun(run);
          this.afterRun(run, interval);
          break;
        }
      }
      return mined;
    });
  }

  /** Continue the run at the head when the next blocks would follow its recipe exactly. */
  private async extendEmptyRun(count: number, interval: bigint | undefined): Promise<boolean> {
    const run = this.store.headRun;
    if (!run || this.pool.size > 0 || this.nextBaseFeeOverride !== undefined || this.clock.nextTimestamp !== undefined) return false;
    const t = run.template;
    const lastTs = run.timestampAt(run.count - 1);
    const same =
      (interval ?? this.clock.interval ?? 1n) === run.interval &&
      this.clock.next(lastTs) === lastTs + run.interval &&
      this.coinbase.equals(t.coinbase) &&
      this.blockGasLimit === t.gasLimit &&
      equalsBytes(this.prevRandao, t.mixHash) &&
      equalsBytes(await this.state.getStateRoot(), t.stateRoot);
    if (!same) return false;
    const first = run.last + 1n;
    this.store.extendHeadRun(count);
    this.afterRun(run, interval, first);
    return true;
  }

  private afterRun(run: EmptyRun, interval: bigint | undefined, first = run.first): void {
    // As with timestamped blocks, the clock continues from the last block's time.
    if (interval !== undefined) this.clock.offset += run.timestampAt(run.count - 1) - this.clock.now();
    this.events.emit('emptyBlocks', first, run.last);
  }

  /** Whether `from` may send without a key. */
  isImpersonated(from: Address): boolean {
    return this.autoImpersonate || this.impersonated.has(from.toString());
  }

  /**
   * Fill and submit a transaction from `req.from` without a signature (impersonated senders,
   * eth_sendUnsignedTransaction).
   */
  async sendUnsigned(req: TxRequest): Promise<Uint8Array> {
    const from = req.from;
    if (!from) throw new ChainError('missing from address', undefined, -32602);
    if (!this.isImpersonated(from) && !this.keys.has(from.toString())) {
      throw new ChainError(`unknown account ${from.toString()}: not a dev account and not impersonated (anvil_impersonateAccount)`);
    }
    return this.inSenderOrder(from, async () => {
      const tx = withFakeSender(await this.fill(req), this.common, from);
      const hash = tx.hash();
      return this.submit({ tx, from, hash, hashHex: bytesToHex(hash) });
    });
  }

  /**
   * Back to a fresh genesis with the configured accounts (anvil_reset / hardhat_reset without
   * forking): blocks, pool, snapshots, time, impersonation and block settings are cleared; the
   * mining mode and chain id stay. With `fork`, the new genesis is that fork point (a re-fork);
   * without, a forked chain stops forking. A chain id that was the old upstream's becomes the new
   * upstream's.
   */
  async reset(fork?: Fork): Promise<void> {
    const old = this.forkLink.fork;
    // A chain id that followed the upstream follows the new one.
    const followChainId = fork !== undefined && old !== undefined && this.config.chainId === old.chainId && fork.chainId !== old.chainId;
    // Read what the new genesis needs first: an unreachable upstream leaves the chain as it was.
    if (fork !== undefined) await fork.state.prefetch(this.accounts.map((a) => a.address), []);
    await this.lock.run(async () => {
      const dropped = this.store.truncate(-1n);
      for (const p of this.pool.clear()) this.events.emit('dropped', p, 'reset');
      this.snapshots.clear();
      this.clock = new Clock();
      this.impersonated.clear();
      this.autoImpersonate = false;
      this.restoreBlockSettings(this.defaults);
      await this.state.setStateRoot(KECCAK256_RLP);
      this.forkLink.fork = fork;
      if (old !== undefined && old !== fork) old.close();
      this.store.rebase(0n);
      await (fork ? this.forkGenesis(fork) : this.genesis());
      this.instanceId = bytesToHex(randomBytes(32));
      if (dropped.length) this.events.emit('reorg', dropped);
    });
    if (followChainId) await this.setChainId(fork.chainId);
  }

  /** anvil_setChainId: new transactions are signed and checked for `chainId`. */
  async setChainId(chainId: bigint): Promise<void> {
    await this.lock.run(async () => {
      this.config.chainId = chainId;
      this.common = makeCommon(chainId, this.config.hardfork);
      this.vm = await createVM({ common: this.common, stateManager: this.state, blockchain: this.vm.blockchain, setHardfork: false });
    });
  }

  /** Stop timers (interval mining); the node is unusable afterwards. */
  close(): void {
    this.store.close();
    this.forkLink.fork?.close();
    this.setIntervalMining(0);
    this.filters.close();
  }
}

/** The settable fields of a header, for building a variant of it. */
/** The state manager behind a state or a VM (what withPrefetch watches). */
function stateOf(s: MerkleStateManager | VM): unknown {
  return s instanceof MerkleStateManager ? s : s.stateManager;
}

/** Default --max-trace-steps: a struct-log trace of this many steps is about 100 MB of JSON. */
export const DEFAULT_MAX_TRACE_STEPS = 250_000;

export function headerFields(h: Block['header']) {
  return {
    parentHash: h.parentHash,
    uncleHash: h.uncleHash,
    coinbase: h.coinbase,
    stateRoot: h.stateRoot,
    transactionsTrie: h.transactionsTrie,
    receiptTrie: h.receiptTrie,
    logsBloom: h.logsBloom,
    difficulty: h.difficulty,
    number: h.number,
    gasLimit: h.gasLimit,
    gasUsed: h.gasUsed,
    timestamp: h.timestamp,
    extraData: h.extraData,
    mixHash: h.mixHash,
    nonce: h.nonce,
    baseFeePerGas: h.baseFeePerGas,
    withdrawalsRoot: h.withdrawalsRoot,
    blobGasUsed: h.blobGasUsed,
    excessBlobGas: h.excessBlobGas,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot,
    requestsHash: h.requestsHash,
  };
}

/**
 * Open `sm` at `root`, a state of block `at`. History loaded from a state file keeps only the
 * latest state: an older root is not in the trie, which is checked, not read off an error.
 */
async function openAt(sm: MerkleStateManager, root: Uint8Array, at: StoredBlock): Promise<void> {
  if (!equalsBytes(root, KECCAK256_RLP) && !(await sm.hasStateRoot(root))) {
    throw new ChainError(`state of block ${at.number} is not available: history loaded from a state file keeps only the latest state`);
  }
  await sm.setStateRoot(root);
}

function bigintToBytes32(n: bigint): Uint8Array {
  return Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
}
