/**
 * The dev node: genesis, live state, automining, history and state queries. It wraps ethereumjs
 * and speaks only in chain objects; src/rpc turns requests into calls on it.
 */
import { EventEmitter } from 'node:events';
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { getActivePrecompiles, type EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { CacheType, Caches, MerkleStateManager, getMerkleStateProof, type Proof } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bytesToHex, createAddressFromString, setLengthLeft } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';
import { deriveAccounts, type DevAccount } from './accounts.js';
import { makeCommon } from './common.js';
import { GWEI, type ChainConfig } from './config.js';
import { ChainError } from './errors.js';
import * as exec from './execute.js';
import { feeHistory, type FeeHistory } from './fees.js';
import { Lock } from './lock.js';
import { Clock } from './clock.js';
import { TxPool, type BlockOrder } from './txpool.js';
import { mineBlock, type BlockEnv, type PendingTx } from './miner.js';
import { unsignedTx } from './request.js';
import { BlockStore } from './store.js';
import { checkAdmission, decodeRawTx, recoverSender } from './txs.js';
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
  /** A background task (interval mining) failed. */
  error: [Error];
}

export interface MiningSettings {
  auto: boolean;
  intervalMs: number | undefined;
  order: BlockOrder;
}

interface Snapshot {
  blockNumber: bigint;
  pool: TxPool;
  clock: Clock;
  mining: MiningSettings;
}

export class DevNode {
  readonly events = new EventEmitter<NodeEvents>();
  readonly store = new BlockStore();
  private readonly lock = new Lock();
  private readonly keys = new Map<string, DevAccount>();
  private readonly precompiles: Set<string>;
  /** Transactions waiting for a block. */
  pool = new TxPool();
  clock = new Clock();
  readonly mining: MiningSettings = { auto: true, intervalMs: undefined, order: 'fees' };
  private intervalTimer: NodeJS.Timeout | undefined;
  private readonly snapshots = new Map<bigint, Snapshot>();
  private nextSnapshotId = 1n;
  /** Block settings that test controls may change. */
  blockGasLimit: bigint;
  coinbase = exec.ZERO_ADDRESS;
  prevRandao = new Uint8Array(32);
  /** Base fee for the next block only (anvil_setNextBlockBaseFeePerGas). */
  nextBaseFeeOverride: bigint | undefined;

  private constructor(
    readonly config: ChainConfig,
    readonly common: Common,
    readonly accounts: DevAccount[],
    private readonly vm: VM,
    private readonly state: MerkleStateManager,
  ) {
    for (const a of accounts) this.keys.set(a.address.toString(), a);
    this.blockGasLimit = config.gasLimit;
    this.precompiles = new Set([...getActivePrecompiles(common).keys()].map((a) => '0x' + a));
  }

  static async create(config: ChainConfig): Promise<DevNode> {
    const common = makeCommon(config.chainId, config.hardfork);
    const accounts = deriveAccounts(config.mnemonic, config.derivationPath, config.accounts);
    // Account/code/storage caches (off by default in ethereumjs) keep the live state warm;
    // the trie node cache avoids re-decoding hot branches.
    const state = new MerkleStateManager({
      common,
      caches: new Caches({ account: { type: CacheType.LRU, size: 100_000 }, storage: { type: CacheType.LRU, size: 100_000 }, code: { type: CacheType.LRU, size: 10_000 } }),
      trie: new MerklePatriciaTrie({ useKeyHashing: true, cacheSize: 50_000, common }),
    });
    const store = new BlockStore();
    const history: EVMMockBlockchainInterface = {
      getBlock: async (n: number) => {
        const b = store.byNumber(BigInt(n));
        if (!b) throw new Error(`block ${n} not found`);
        return b.block;
      },
      putBlock: async () => {},
      shallowCopy: () => history,
    };
    const vm = await createVM({ common, stateManager: state, blockchain: history, setHardfork: false });
    const node = new DevNode(config, common, accounts, vm, state);
    (node as { store: BlockStore }).store = store;
    await node.genesis();
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
  private async withState<T>(ref: BlockRef, fn: (sm: MerkleStateManager, at: StoredBlock) => Promise<T>): Promise<T> {
    const at = this.requireBlock(ref);
    if (at === this.store.head) {
      return this.lock.run(async () => {
        if (at === this.store.head) return fn(this.state, at);
        return fn(await this.stateCopy(at), at);
      });
    }
    return fn(await this.stateCopy(at), at);
  }

  private async stateCopy(at: StoredBlock): Promise<MerkleStateManager> {
    const sm = this.state.shallowCopy(true);
    await sm.setStateRoot(at.block.header.stateRoot);
    return sm;
  }

  /** Run `fn` with a VM whose state is that of block `ref`; effects must be discarded by `fn`. */
  private async withVm<T>(ref: BlockRef, fn: (vm: VM, at: StoredBlock) => Promise<T>): Promise<T> {
    const at = this.requireBlock(ref);
    if (at === this.store.head) {
      return this.lock.run(async () => {
        if (at === this.store.head) return fn(this.vm, at);
        return fn(await this.vmCopy(at), at);
      });
    }
    return fn(await this.vmCopy(at), at);
  }

  private async vmCopy(at: StoredBlock): Promise<VM> {
    const vm = await this.vm.shallowCopy(true);
    await vm.stateManager.setStateRoot(at.block.header.stateRoot);
    return vm;
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

  // ---------------------------------------------------------------- fees

  /** Base fee of the next block. */
  nextBaseFee(): bigint {
    const h = this.store.head.block.header;
    return this.common.isActivatedEIP(1559) ? h.calcNextBaseFee() : 0n;
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
    return this.withVm(ref, (vm, at) => exec.estimateGas(vm, this.callBlock(at.block, req), req, at.block.header.gasLimit, overrides));
  }

  async createAccessList(req: TxRequest, ref: BlockRef): Promise<exec.AccessListResult> {
    return this.withVm(ref, (vm, at) => exec.createAccessList(vm, this.callBlock(at.block, req), req, this.precompiles));
  }

  /**
   * The block context a call executes in: the block's own header, with a zero base fee when the
   * caller offers no gas price (as geth does, so fee-less calls never fail the base-fee check).
   */
  private callBlock(block: Block, req: TxRequest): Block {
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

  /** Fill, sign with the dev key of `from`, and submit. */
  async sendTransaction(req: TxRequest): Promise<Uint8Array> {
    const tx = await this.signTransaction(req);
    const hash = tx.hash();
    return this.submit({ tx, from: req.from!, hash, hashHex: bytesToHex(hash) });
  }

  /** eth_signTransaction: fill missing fields and sign with the dev key of `from`. */
  async signTransaction(req: TxRequest): Promise<TypedTransaction> {
    const key = this.keyOf(req.from);
    const filled = await this.fill(req);
    return unsignedTx(filled, this.common).sign(key.privateKey);
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
    const legacy = req.gasPrice !== undefined || !this.common.isActivatedEIP(1559);
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
        baseFee: this.common.isActivatedEIP(1559) ? head.calcNextBaseFee() : undefined,
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
            this.events.emit('dropped', next, (err as Error).message);
          }
        }
      }
      return ptx.hash;
    });
  }

  /** Mine one block on the live state from `txs` (caller holds the lock). */
  private async mine(txs: PendingTx[], requireAll: boolean): Promise<StoredBlock> {
    const parent = this.store.head.block;
    const { stored, skipped } = await mineBlock(this.vm, parent, txs, this.nextEnv(parent), requireAll);
    // Transactions that no longer fit stay in the pool for the next block.
    for (const s of skipped) {
      if (/gas limit|remaining gas/.test(s.error.message)) this.pool.add(s.ptx);
      else this.events.emit('dropped', s.ptx, s.error.message);
    }
    this.store.add(stored);
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
    const baseFee = this.common.isActivatedEIP(1559) ? parent.calcNextBaseFee() : undefined;
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
    const block = await this.mine(picked, false);
    this.nextBaseFeeOverride = undefined;
    return block;
  }

  // ---------------------------------------------------------------- mining modes

  /** Turn automine on or off; turning it on mines what waits in the pool. */
  async setAutomine(on: boolean): Promise<void> {
    this.mining.auto = on;
    if (on && this.pool.size > 0) await this.mineNow();
  }

  /** Mine a block every `ms` milliseconds (0 turns interval mining off). */
  setIntervalMining(ms: number): void {
    if (this.intervalTimer) clearInterval(this.intervalTimer);
    this.intervalTimer = undefined;
    this.mining.intervalMs = ms > 0 ? ms : undefined;
    if (ms > 0) {
      this.intervalTimer = setInterval(() => {
        this.mineNow().catch((err) => this.events.emit('error', err as Error));
      }, ms);
      this.intervalTimer.unref();
    }
  }

  // ---------------------------------------------------------------- snapshots

  /** Record everything needed to come back here; returns the snapshot id. */
  snapshot(): bigint {
    const id = this.nextSnapshotId++;
    this.snapshots.set(id, {
      blockNumber: this.store.headNumber,
      pool: this.pool.clone(),
      clock: this.clock.clone(),
      mining: { ...this.mining },
    });
    return id;
  }

  /** Return to snapshot `id`; it and every later snapshot are used up. False for unknown ids. */
  async revert(id: bigint): Promise<boolean> {
    const snap = this.snapshots.get(id);
    if (!snap) return false;
    for (const k of [...this.snapshots.keys()]) if (k >= id) this.snapshots.delete(k);
    await this.lock.run(async () => {
      await this.rewind(snap.blockNumber);
      this.pool = snap.pool;
      this.clock = snap.clock;
    });
    this.mining.auto = snap.mining.auto;
    this.mining.order = snap.mining.order;
    this.setIntervalMining(snap.mining.intervalMs ?? 0);
    return true;
  }

  /** Drop every block above `n` and reset the live state to block n (caller holds the lock). */
  private async rewind(n: bigint): Promise<void> {
    const dropped = this.store.truncate(n);
    await this.state.setStateRoot(this.store.head.block.header.stateRoot);
    if (dropped.length) this.events.emit('reorg', dropped);
  }

  /** Stop timers (interval mining); the node is unusable afterwards. */
  close(): void {
    this.setIntervalMining(0);
  }
}

/** The settable fields of a header, for building a variant of it. */
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

function bigintToBytes32(n: bigint): Uint8Array {
  return Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
}
