/**
 * Reads of the chain's state at any block: the head's is the live state (taken in turn with the
 * changes, under the lock), an older block's a copy opened at its state root, `pending` the
 * pending block's post state (but nonces there are the pool's). Accounts, code, storage, nonces,
 * proofs, and private VMs at a block for calls, replays and traces.
 */
import type { Block } from '@ethereumjs/block';
import { MerkleStateManager, getMerkleStateProof, type Proof } from '@ethereumjs/statemanager';
import { Account, bigIntToBytes, setLengthLeft, type Address } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { Lock } from './core/lock.js';
import { LATEST, isPending, type BlockRef, type StoredBlock } from './core/types.js';
import type { NodeStateManager } from './engine/forkState.js';
import { withPrefetch } from './fork/prefetch.js';
import type { BlockStore } from './head/store.js';
import type { PendingBlock } from './mining/pending.js';
import type { TxPool } from './pool/txpool.js';
import { openAt, stateOf } from './stateAt.js';

/** Where reads come from: the blocks, the live state and VM, the pending block and the pool. */
export interface ReadSource {
  readonly store: BlockStore;
  readonly state: NodeStateManager;
  readonly vm: VM;
  /** The VM over the live state under the rules of block `number` at `timestamp`. */
  vmOfBlock(number: bigint, timestamp: bigint): VM;
  readonly lock: Lock;
  readonly pending: PendingBlock;
  readonly pool: TxPool;
  requireBlock(ref: BlockRef): StoredBlock;
}

export class StateReads {
  constructor(private readonly n: ReadSource) {}

  /**
   * Run `fn` against the state at `ref`. The head's state is the live one (warm caches, taken under
   * the lock); older blocks get a copy opened at their state root, and `pending` the pending
   * block's post state, kept with it.
   */
  private withState<T>(ref: BlockRef, fn: (sm: MerkleStateManager, at: StoredBlock) => Promise<T>): Promise<T> {
    if (isPending(ref)) return this.n.pending.withState((root, at) => this.vmAt(root, at), fn);
    return this.atBlock(ref, () => this.n.state, (at) => this.stateCopy(at), fn);
  }

  /** The pending block (mining/pending.ts), built on a private copy of the live state. */
  pendingBlock(): Promise<StoredBlock> {
    return this.n.pending.block((root, at) => this.vmAt(root, at));
  }

  /**
   * Run `fn` on `live()` when `ref` is the head (under the lock, rechecked there: a block may be
   * mined meanwhile), else on `copy(at)`.
   */
  private async atBlock<S extends MerkleStateManager | VM, T>(ref: BlockRef, live: () => S, copy: (at: StoredBlock) => Promise<S>, fn: (s: S, at: StoredBlock) => Promise<T>): Promise<T> {
    const n = this.n;
    const at = n.requireBlock(ref);
    // On a fork, upstream reads are found and fetched between runs, without the lock (withPrefetch).
    if (at === n.store.head) {
      return withPrefetch(n.state, () => (at === n.store.head ? fn(live(), at) : copy(at).then((s) => fn(s, at))), (run) => n.lock.read(run));
    }
    const s = await copy(at);
    return withPrefetch(stateOf(s), () => fn(s, at));
  }

  private async stateCopy(at: StoredBlock): Promise<MerkleStateManager> {
    const sm = this.n.state.shallowCopy(true);
    await openAt(sm, this.stateRootOf(at), at);
    return sm;
  }

  /**
   * The state block `at` reads as once later blocks exist: what test controls (anvil_setBalance and
   * friends) left it at before the next block was mined, else its header's root. As in anvil and
   * the hardhat node, a cheat at head N is part of block N's history.
   */
  stateRootOf(at: StoredBlock): Uint8Array {
    const store = this.n.store;
    const n = at.number + 1n;
    // Blocks of an empty run follow one another with no edits between them.
    const next = store.isVirtual(n) ? undefined : store.byNumber(n);
    return next?.preStateRoot ?? at.block.header.stateRoot;
  }

  /** Run `fn` with a VM in the state of block `ref`, in the block a call there runs in; `fn` discards its effects. */
  withVm<T>(ref: BlockRef, fn: (vm: VM, block: Block) => Promise<T>): Promise<T> {
    if (isPending(ref)) return this.n.pending.run(fn);
    return this.atBlock(ref, () => this.n.vmOfBlock(this.n.store.head.number, this.n.store.head.block.header.timestamp), (at) => this.vmAt(this.stateRootOf(at), at), (vm, at) => fn(vm, at.block));
  }

  /**
   * A private VM copy holding the state of block `ref` (for the head, the live state including
   * edits made since it was mined; for `pending`, the pending block's), and the block a call at
   * `ref` runs in; nothing done on it reaches the chain.
   */
  async vmFor(ref: BlockRef): Promise<{ vm: VM; at: StoredBlock; block: Block }> {
    const n = this.n;
    if (isPending(ref)) return n.pending.vm((root, at) => this.vmAt(root, at));
    const at = n.requireBlock(ref);
    let root = this.stateRootOf(at);
    if (at === n.store.head) root = await n.lock.read(async () => (at === n.store.head ? n.state.getStateRoot() : this.stateRootOf(at)));
    return { vm: await this.vmAt(root, at), at, block: at.block };
  }

  /** A private VM copy opened at `stateRoot`, a state of block `at` (replays, traces); the live state is untouched. */
  async vmAt(stateRoot: Uint8Array, at: StoredBlock): Promise<VM> {
    const vm = await this.n.vmOfBlock(at.number, at.block.header.timestamp).shallowCopy(true);
    await openAt(vm.stateManager as MerkleStateManager, stateRoot, at);
    return vm;
  }

  getAccount(address: Address, ref: BlockRef): Promise<Account> {
    return this.withState(ref, async (sm) => (await sm.getAccount(address)) ?? new Account());
  }

  getCode(address: Address, ref: BlockRef): Promise<Uint8Array> {
    return this.withState(ref, (sm) => sm.getCode(address));
  }

  getStorageAt(address: Address, slot: bigint, ref: BlockRef): Promise<Uint8Array> {
    const key = setLengthLeft(bigIntToBytes(slot), 32);
    return this.withState(ref, async (sm) => setLengthLeft(await sm.getStorage(address, key), 32));
  }

  /**
   * Next nonce of `address`; at `pending`, the pool's: the live nonce plus the sender's executable
   * transactions waiting, as geth's GetPoolNonce (and anvil) answer it, also those the pending
   * block leaves for later blocks.
   */
  async getNonce(address: Address, ref: BlockRef): Promise<bigint> {
    if (isPending(ref)) {
      const nonce = (await this.getAccount(address, LATEST)).nonce;
      return nonce + BigInt(this.n.pool.split(address.toString(), nonce).pending.length);
    }
    return (await this.getAccount(address, ref)).nonce;
  }

  getProof(address: Address, slots: bigint[], ref: BlockRef): Promise<Proof> {
    return this.withState(ref, async (sm) => {
      // Proofs read the trie, so pending cache entries must be flushed first (a no-op on copies).
      await sm.flush();
      return getMerkleStateProof(sm, address, slots.map((s) => setLengthLeft(bigIntToBytes(s), 32)));
    });
  }

  /** Account fields and code of `address` at `ref` (eth_getAccount, eth_getAccountInfo); pending writes flushed so the storage root is current. */
  getAccountAndCode(address: Address, ref: BlockRef): Promise<{ account: Account; code: Uint8Array }> {
    return this.withState(ref, async (sm) => {
      await sm.flush();
      return { account: (await sm.getAccount(address)) ?? new Account(), code: await sm.getCode(address) };
    });
  }
}
