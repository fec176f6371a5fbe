/**
 * The node's state manager: ethereumjs' Merkle state manager as engine/cachedState.ts shapes it,
 * plus read-through to the fork upstream while a fork is active (`link.fork`; without one the
 * reads are the parent's), and senders that hold code.
 *
 * The local trie holds only what was written here; a trie miss means "never written here", and
 * the upstream's value at the fork block (cached by UpstreamState) is the answer. Upstream values
 * are never copied into the trie or the ethereumjs caches (those flush into the trie), so reads do
 * not change the state root: the trie, its root and eth_getProof reflect local writes only.
 *
 * Writes that erase something the upstream has must stay visible as erasures, since a trie miss
 * would otherwise bring the upstream value back. Both kinds of erasure are recorded in the trie
 * itself, so snapshots (a state root) and reverts (setStateRoot) cover them like any other write:
 *
 *  - A deleted account (EIP-161 cleanup, self-destruct) whose upstream copy exists is kept as a
 *    tombstone: an empty account with a reserved code hash, read back as "no account".
 *  - Storage: an account read from the upstream with code gets, as its storage root, the root of a
 *    one-entry trie that marks "the rest of this storage is upstream" (UPSTREAM_MARK). Local slot
 *    writes go on top of it, and a slot set to zero leaves a zero mark in that trie. A slot missing
 *    from the trie is then: zero-marked → zero; trie marked upstream → the upstream's value; else
 *    zero. Clearing storage (contract creation, `state` overrides) empties the trie, marks
 *    included: the upstream's slots are gone for good. Accounts without code at the fork block
 *    have no upstream storage.
 *
 * Mark keys are 33-byte preimages, so their hashed trie keys cannot collide with any 32-byte slot,
 * and mark values are 33 bytes long, which no storage value can be.
 */
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX, type MerkleStateManagerOpts } from '@ethereumjs/statemanager';
import type { StorageDump, StorageRange } from '@ethereumjs/common';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Account, Address, KECCAK256_NULL, KECCAK256_RLP, bytesToUnprefixedHex, concatBytes, createAccountFromRLP, equalsBytes } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { keepCodeRead } from './cacheReads.js';
import { CachedStateManager, type Maybe } from './cachedState.js';
import { MARK, UPSTREAM_MARK, TOMBSTONE_CODE_HASH, zeroMark, visible, isMark, withoutMarks } from './marks.js';
import type { MissLog, Upstream, UpstreamAccount } from './upstream.js';

/**
 * The fork a node currently runs on, shared by the live state, its copies and the EVM's history.
 * The engine reads it as an `Upstream`; the node keeps its own type of fork in it (`F`).
 */
export class ForkLink<F extends Upstream = Upstream> {
  constructor(public fork: F | undefined = undefined) {}
}

const EMPTY = new Uint8Array(0);
const RLP_EMPTY = RLP.encode(EMPTY);
/** "Not in the local trie": read the upstream. */
const UNTOUCHED = Symbol('untouched');

type Local = Account | undefined | typeof UNTOUCHED;
/** A transaction's sender while it runs (see withCodeSender). */
type Sender = { address: Address; checked?: boolean; copy?: Account; codeHash?: Uint8Array };

export interface NodeStateManagerOpts extends MerkleStateManagerOpts {
  link: ForkLink;
}

export class NodeStateManager extends CachedStateManager {
  readonly link: ForkLink;
  /** While set, upstream misses are recorded here and read as empty (discovery runs). */
  discovery: MissLog | undefined;
  private upstreamRoot: Uint8Array | undefined;
  /**
   * Addresses known to be missing from the trie at root `absentRoot`. Calls discard their account
   * cache entries (checkpoint revert); this keeps repeated calls from walking the trie again for
   * every upstream account they touch.
   */
  private absent = new Set<string>();
  private absentRoot: Uint8Array | undefined;

  constructor(opts: NodeStateManagerOpts) {
    super(opts);
    this.link = opts.link;
  }

  // ---------------------------------------------------------------- accounts

  override async getAccount(address: Address): Promise<Account | undefined> {
    const account = await this.readAccount(address);
    const s = this.sendersFirstRead(address);
    if (s === undefined) return account;
    // The sender's first read is the VM's check; later reads see the account as it is.
    s.checked = true;
    if (account === undefined || equalsBytes(account.codeHash, KECCAK256_NULL)) return account;
    s.codeHash = account.codeHash;
    s.copy = new Account(account.nonce, account.balance, account.storageRoot, KECCAK256_NULL);
    return s.copy;
  }

  /**
   * getAccount as a value when the account is cached (or known upstream), a promise only when it
   * must be read: the EVM's BALANCE asks this way (see src/chain/engine/patches/@ethereumjs+evm+10.1.3.patch), so a warm read
   * costs no microtask.
   */
  getAccountMaybe(address: Address): Maybe<Account | undefined> {
    return this.sendersFirstRead(address) !== undefined ? this.getAccount(address) : this.readAccount(address);
  }

  private readAccount(address: Address): Maybe<Account | undefined> {
    const fork = this.link.fork;
    return fork === undefined ? this.committedAccount(address) : this.forkAccount(fork, address);
  }

  private forkAccount(fork: Upstream, address: Address): Maybe<Account | undefined> {
    const local = this.localAccount(fork, address);
    if (local instanceof Promise) return local.then((l) => (l !== UNTOUCHED ? l : this.upstreamAccount(fork, address)));
    return local !== UNTOUCHED ? local : this.upstreamAccount(fork, address);
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (account === undefined && this.link.fork !== undefined) return this.deleteAccount(address);
    const s = this.sender;
    if (account !== undefined && account === s?.copy) account.codeHash = s.codeHash!;
    return super.putAccount(address, account);
  }

  // ---------------------------------------------------------------- senders with code
  //
  // EIP-3607 rejects transactions whose sender holds code; a dev node accepts them, as anvil does:
  // impersonated contracts (a multisig, a token on a fork) send transactions, and calls may come
  // from contracts. The VM checks the sender's first account read, so while `sender` is set that
  // one read answers without code, and the same account object gets its code back when the VM
  // writes it (nonce and balance updates).

  private sender: Sender | undefined;

  /** The pending sender when `address` is it and the VM has not read it yet (see getAccount). */
  private sendersFirstRead(address: Address): Sender | undefined {
    const s = this.sender;
    return s !== undefined && !s.checked && address.equals(s.address) ? s : undefined;
  }

  /** Run `fn` (one transaction) with `address` accepted as a sender even if it holds code. */
  async withCodeSender<T>(address: Address, fn: () => Promise<T>): Promise<T> {
    const outer = this.sender;
    this.sender = { address };
    try {
      return await fn();
    } finally {
      this.sender = outer;
    }
  }

  override async deleteAccount(address: Address): Promise<void> {
    const fork = this.link.fork;
    // Where a trie miss reads nothing upstream either, a plain delete is exact.
    if (fork === undefined || fork.state.accountNow(address) === null) return super.deleteAccount(address);
    this._caches?.deleteAccount(address);
    delete this._storageTries[bytesToUnprefixedHex(keccak_256(address.bytes))];
    await super.putAccount(address, new Account(0n, 0n, KECCAK256_RLP, TOMBSTONE_CODE_HASH));
  }

  /**
   * The account as written locally: UNTOUCHED if never, undefined if deleted here. With `copy`
   * false the result is shared and must not be modified.
   */
  private localAccount(fork: Upstream, address: Address, copy = true): Maybe<Local> {
    const elem = this._caches?.account?.get(address);
    if (elem !== undefined) return elem.accountRLP === undefined ? UNTOUCHED : visible(this.decode(elem.accountRLP, copy));
    // The upstream's key for the address: its next look-up (accountNow, slotNow) reuses it.
    const key = fork.state.keyOf(address);
    if (this.absentIn(this._trie.root()).has(key)) return UNTOUCHED;
    return this.localAccountFromTrie(address, key);
  }

  private async localAccountFromTrie(address: Address, key: string): Promise<Local> {
    const rlp = await this._trie.get(address.bytes);
    const account = rlp === null ? undefined : createAccountFromRLP(rlp);
    // Cached either way (a miss as undefined: with a fork, "not written here").
    this._caches?.account?.put(address, account);
    if (account === undefined) {
      this.absent.add(key);
      return UNTOUCHED;
    }
    return visible(account);
  }

  /** The absent-address set for trie root `root` (emptied when the root moved). */
  private absentIn(root: Uint8Array): Set<string> {
    if (this.absentRoot !== root && (this.absentRoot === undefined || !equalsBytes(this.absentRoot, root))) {
      this.absent.clear();
      this.absentRoot = root;
    }
    return this.absent;
  }

  private upstreamAccount(fork: Upstream, address: Address): Maybe<Account | undefined> {
    const up = fork.state.accountNow(address);
    if (up === undefined) {
      if (this.discovery) {
        this.discovery.account(address);
        return undefined;
      }
      return fork.state.account(address).then((fetched) => this.fromUpstream(fetched));
    }
    return this.fromUpstream(up);
  }

  /** The local view of an upstream account: with code, its storage root says "continues upstream". */
  private fromUpstream(up: UpstreamAccount | null): Maybe<Account | undefined> {
    if (up === null) return undefined;
    if (up.code.length === 0) return new Account(up.nonce, up.balance, KECCAK256_RLP, up.codeHash);
    const root = this.upstreamRoot;
    if (root !== undefined) return new Account(up.nonce, up.balance, root, up.codeHash);
    return this.ensureUpstreamRoot().then((r) => new Account(up.nonce, up.balance, r, up.codeHash));
  }

  /**
   * The node store let go of nodes (a revert of what was written since a snapshot, or a reset),
   * perhaps the upstream mark's trie: it is written again when next needed.
   */
  storeRewound(): void {
    this.upstreamRoot = undefined;
  }

  /** Root of the one-entry trie marking "storage continues upstream" (written into this trie's database once, and again after a rewind). */
  private async ensureUpstreamRoot(): Promise<Uint8Array> {
    const trie = this._trie.shallowCopy(false);
    trie.root(trie.EMPTY_TRIE_ROOT);
    await trie.put(UPSTREAM_MARK, MARK);
    this.upstreamRoot = trie.root();
    return this.upstreamRoot;
  }

  // ---------------------------------------------------------------- code

  override async getCode(address: Address): Promise<Uint8Array> {
    const fork = this.link.fork;
    const elem = this._caches?.code?.get(address);
    if (elem !== undefined) return elem.code ?? EMPTY;
    if (fork === undefined) return this.localCode(address);
    const local = await this.localAccount(fork, address, false);
    if (local === UNTOUCHED) {
      let up = fork.state.accountNow(address);
      if (up === undefined) {
        if (this.discovery) {
          this.discovery.account(address);
          return EMPTY;
        }
        up = await fork.state.account(address);
      }
      return up?.code ?? EMPTY;
    }
    if (local === undefined || !local.isContract()) return EMPTY;
    // Code of an upstream account that was written here (its balance, say: every call touches its
    // callee) is the upstream's, found by hash. It is not put in the code cache: that cache entry
    // would be taken out again when the call's checkpoint is reverted, on every call.
    const upstreamCode = fork.state.codeByHash(local.codeHash);
    if (upstreamCode !== undefined) return upstreamCode;
    const key = this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, local.codeHash) : local.codeHash;
    const code = (await this._trie.database().get(key)) ?? EMPTY;
    this._caches?.code?.put(address, code);
    return code;
  }

  /** Code of an account in the trie (no fork), kept in the code cache as read (cacheReads.ts). */
  private async localCode(address: Address): Promise<Uint8Array> {
    const account = await this.getAccount(address);
    if (account === undefined || !account.isContract()) return EMPTY;
    const key = this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, account.codeHash) : account.codeHash;
    const code = (await this._trie.database().get(key)) ?? EMPTY;
    keepCodeRead(this._caches?.code, address, code);
    return code;
  }

  // ---------------------------------------------------------------- storage

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    return this.getStorageMaybe(address, key);
  }

  /**
   * getStorage as a value when the slot is cached (or known upstream), a promise only when it must
   * be read: the EVM's SLOAD asks this way (see src/chain/engine/patches/@ethereumjs+evm+10.1.3.patch), so a warm read costs no
   * microtask.
   */
  getStorageMaybe(address: Address, key: Uint8Array): Maybe<Uint8Array> {
    const fork = this.link.fork;
    if (key.length !== 32) return super.getStorage(address, key);
    if (fork === undefined) return this.committedStorage(address, key);
    const cached = this._caches?.storage?.get(address, key);
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array;
    const local = this.localAccount(fork, address, false);
    if (local instanceof Promise) return local.then((l) => this.forkSlot(fork, address, key, l));
    return this.forkSlot(fork, address, key, local);
  }

  /** A slot of `address`, whose local account is `local`. */
  private forkSlot(fork: Upstream, address: Address, key: Uint8Array, local: Local): Maybe<Uint8Array> {
    if (local === UNTOUCHED) return this.untouchedSlot(fork, address, key);
    if (local === undefined || equalsBytes(local.storageRoot, KECCAK256_RLP)) return EMPTY;
    // Storage never written here: all of it is the upstream's.
    if (this.upstreamRoot !== undefined && equalsBytes(local.storageRoot, this.upstreamRoot)) return this.upstreamSlot(fork, address, key);
    return this.localSlot(fork, address, key, local);
  }

  /** A slot of an account whose storage was written here: the trie, its marks, else the upstream. */
  private async localSlot(fork: Upstream, address: Address, key: Uint8Array, local: Account): Promise<Uint8Array> {
    const trie = this._getStorageTrie(address, local);
    const value = await trie.get(key);
    if (value !== null) {
      this._caches?.storage?.put(address, key, value);
      return RLP.decode(value) as Uint8Array;
    }
    if ((await trie.get(UPSTREAM_MARK)) === null || (await trie.get(zeroMark(key))) !== null) {
      this._caches?.storage?.put(address, key, RLP_EMPTY);
      return EMPTY;
    }
    return this.upstreamSlot(fork, address, key);
  }

  /** A slot of an account never written here: the upstream's, if the account has code there. */
  private untouchedSlot(fork: Upstream, address: Address, key: Uint8Array): Maybe<Uint8Array> {
    const up = fork.state.accountNow(address);
    if (up === undefined) {
      if (this.discovery) {
        this.discovery.account(address);
        this.discovery.slot(address, key);
        return EMPTY;
      }
      return Promise.all([fork.state.account(address), fork.state.slot(address, key)]).then(([account, value]) =>
        account !== null && account.code.length > 0 ? value : EMPTY,
      );
    }
    if (up === null || up.code.length === 0) return EMPTY;
    return this.upstreamSlot(fork, address, key);
  }

  private upstreamSlot(fork: Upstream, address: Address, key: Uint8Array): Maybe<Uint8Array> {
    const known = fork.state.slotNow(address, key);
    if (known !== undefined) return known;
    if (this.discovery) {
      this.discovery.slot(address, key);
      return EMPTY;
    }
    return fork.state.slot(address, key);
  }

  /** Zeroing a slot of upstream-backed storage leaves a zero mark, so the upstream value stays hidden. */
  protected override async _writeContractStorage(address: Address, account: Account, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (this.link.fork === undefined || value.length > 0) return super._writeContractStorage(address, account, key, value);
    await this._modifyContractStorage(address, account, async (trie: MerklePatriciaTrie, done: Function) => {
      await trie.del(key);
      if ((await trie.get(UPSTREAM_MARK)) !== null) await trie.put(zeroMark(key), MARK);
      done();
    });
  }

  /** The same at a flush (cachedState.ts writes a contract's slots together). */
  protected override async writeSlot(trie: MerklePatriciaTrie, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (this.link.fork === undefined || value.length > 0) return super.writeSlot(trie, key, value);
    await trie.del(key);
    if ((await trie.get(UPSTREAM_MARK)) !== null) await trie.put(zeroMark(key), MARK);
  }

  /** Storage dumps leave the marks out. */
  override async dumpStorage(address: Address): Promise<StorageDump> {
    return withoutMarks(await super.dumpStorage(address));
  }

  override async dumpStorageRange(address: Address, startKey: bigint, limit: number): Promise<StorageRange> {
    const range = await super.dumpStorageRange(address, startKey, limit);
    for (const [k, v] of Object.entries(range.storage)) if (v && isMark(v.value)) delete range.storage[k];
    return range;
  }

  // ---------------------------------------------------------------- copies

  override shallowCopy(downlevelCaches = true): NodeStateManager {
    const common = this.common.copy();
    common.setHardfork(this.common.hardfork());
    const cacheSize = !downlevelCaches ? (this._trie as unknown as { _opts: { cacheSize: number } })._opts.cacheSize : 0;
    const copy = new NodeStateManager({
      common,
      trie: this._trie.shallowCopy(false, { cacheSize }),
      prefixStorageTrieKeys: this._prefixStorageTrieKeys,
      prefixCodeHashes: this._prefixCodeHashes,
      caches: this._caches?.shallowCopy(downlevelCaches),
      link: this.link,
    });
    copy.upstreamRoot = this.upstreamRoot;
    return copy;
  }
}
