/**
 * ethereumjs's Merkle state manager as the live state and its copies use it: storage writes stay in
 * the storage cache until a flush, and reads of committed accounts and slots are memoized across
 * the reverts every call ends with. The fork's read-through (forkState.ts) builds on it.
 */
import { RLP } from '@ethereumjs/rlp';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { CODEHASH_PREFIX, MerkleStateManager } from '@ethereumjs/statemanager';
import {
  Account,
  Address,
  EthereumJSErrorWithoutCode,
  bytesToUnprefixedHex,
  concatBytes,
  createAccountFromRLP,
  createAddressFromString,
  equalsBytes,
  unpadBytes,
  unprefixedHexToBytes,
} from '@ethereumjs/util';
import { keepAccountRead, keepStorageRead } from './cacheReads.js';
import { NodeTrie } from './nodeTrie.js';

const EMPTY = new Uint8Array(0);
const RLP_EMPTY = RLP.encode(EMPTY);
/** Entries each committed-read memo holds before it starts over. */
const MEMO_LIMIT = 200_000;

/**
 * A value, or a promise of it when the trie (or a fork's upstream) must be read. A warm read (every
 * SLOAD and BALANCE of a call) is answered from caches; returning the value itself spares a promise
 * and a microtask per layer.
 */
export type Maybe<T> = T | Promise<T>;

/** `fn`'s writes to `trie` as one batch when the trie is the node's own. */
function batched(trie: MerklePatriciaTrie, fn: () => Promise<void>): Promise<void> {
  return trie instanceof NodeTrie ? trie.batched(fn) : fn();
}

export class CachedStateManager extends MerkleStateManager {
  /**
   * Writes made outside any checkpoint (test controls, a state load) that go into the trie
   * together. The engine sets it to a tenth of its caches' size: they are LRUs, and an entry they
   * evict before a flush loses its write.
   */
  flushEvery = Infinity;
  /** Writes outside any checkpoint since the last flush. */
  private unflushed = 0;

  override async flush(): Promise<void> {
    this.unflushed = 0;
    if (this._checkpointCount === 0) return this.flushCaches();
    // A flush inside a checkpoint: a state root asked for mid-run, as runTx does for every
    // pre-Byzantium receipt. ethereumjs's caches drop their current checkpoint's record of earlier
    // values when they flush, so a revert after it (every call's, a block given up) kept the run's
    // writes in the caches while the trie went back. The records are kept: the revert undoes the
    // caches as it undoes the trie.
    const caches = [this._caches?.account, this._caches?.storage, this._caches?.code] as unknown as Array<{ _diffCache: unknown[]; _checkpoints: number } | undefined>;
    const kept = caches.map((c) => c?._diffCache[c._checkpoints]);
    await this.flushCaches();
    caches.forEach((c, i) => {
      if (c !== undefined) c._diffCache[c._checkpoints] = kept[i];
    });
  }

  /**
   * ethereumjs's flush (code, then storage, then accounts, the same writes), with each trie's
   * writes made as one (`NodeTrie.batched`: every changed node hashed and stored once, where each
   * write re-hashed its path up to the root), a contract's account updated once for all its slots
   * (ethereumjs read it, set its storage root and put it into the account cache per slot), and no
   * entry written again that the previous flush wrote (`flushed`).
   */
  private async flushCaches(): Promise<void> {
    const caches = this._caches;
    if (caches === undefined) return super.flush();
    const root = this._trie.root();
    const before = this.flushedRoot !== undefined && (this.flushedRoot === root || equalsBytes(this.flushedRoot, root)) ? this.flushed : undefined;
    const now = new Map<string, unknown>();
    /** Whether `value` is what the previous flush left under `key` (so the trie holds it); noted either way. */
    const unchanged = (key: string, value: unknown): boolean => {
      now.set(key, value);
      return before !== undefined && before.has(key) && before.get(key) === value;
    };
    for (const [addressHex, elem] of caches.code?.flush() ?? []) {
      const code = elem.code;
      if (code === undefined || unchanged(`c${addressHex}`, code)) continue;
      const address = createAddressFromString(`0x${addressHex}`);
      const codeHash = (this as unknown as { keccakFunction(b: Uint8Array): Uint8Array }).keccakFunction(code);
      await this._getCodeDB().put(this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash, code);
      if ((await this.getAccount(address)) === undefined) await this.putAccount(address, new Account());
      await this.modifyAccountFields(address, { codeHash });
    }
    const slots = (caches.storage?.flush() ?? []).filter(([addressHex, keyHex, value]) => !unchanged(`s${addressHex}${keyHex}`, value));
    // The cache lists an account's slots together.
    for (let i = 0; i < slots.length; ) {
      const addressHex = slots[i]![0];
      let end = i + 1;
      while (end < slots.length && slots[end]![0] === addressHex) end++;
      const address = createAddressFromString(`0x${addressHex}`);
      const account = await this.getAccount(address);
      if (account !== undefined) {
        const trie = this._getStorageTrie(address, account);
        const from = i;
        await batched(trie, async () => {
          for (let k = from; k < end; k++) {
            const [, keyHex, value] = slots[k]!;
            await this.writeSlot(trie, unprefixedHexToBytes(keyHex), RLP.decode(value ?? EMPTY) as Uint8Array);
          }
        });
        this._storageTries[bytesToUnprefixedHex(address.bytes)] = trie;
        account.storageRoot = trie.root();
        await this.putAccount(address, account);
      }
      i = end;
    }
    const accounts = caches.account?.flush() ?? [];
    await batched(this._trie, async () => {
      for (const [addressHex, elem] of accounts) {
        const rlp = elem.accountRLP;
        if (unchanged(`a${addressHex}`, rlp)) continue;
        if (rlp === undefined) await this._trie.del(unprefixedHexToBytes(addressHex));
        else await this._trie.put(unprefixedHexToBytes(addressHex), rlp);
      }
    });
    this.flushed = now;
    this.flushedRoot = this._trie.root();
  }

  /**
   * What the last flush wrote, or found already written, by cache entry (`a`, `s` or `c` and the
   * entry's key), as the cache's value itself (each write to a cache puts a new value), and the
   * state root it left. A flush inside a checkpoint keeps the checkpoint's records of the entries
   * it wrote (see `flush`), so once the checkpoint is committed the next flush lists them again:
   * a mined block's state root is asked for inside the block's checkpoint, and the block's writes
   * were all made a second time at the next flush (~15 node hashes of an ERC20 transfer's 34).
   * An entry still holding the value the last flush wrote, under the root that flush left, is in
   * the trie as it is: writing it again changes nothing. Any other root (a revert, a state root
   * set) and the record is not used.
   */
  private flushed = new Map<string, unknown>();
  private flushedRoot: Uint8Array | undefined;

  /** One slot's write at a flush: its RLP under its key, or the key deleted when the value is empty. */
  protected async writeSlot(trie: MerklePatriciaTrie, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (value.length > 0) await trie.put(key, RLP.encode(value));
    else await trie.del(key);
  }

  /**
   * Outside a checkpoint (nothing runs: test controls, a state load), every `flushEvery` writes go
   * into the trie, so a cache never holds more unwritten entries than that. Inside one (a block, a
   * call) the writes wait for the block's end: what one run touches is bounded by its gas.
   */
  private async wrote(): Promise<void> {
    if (this._checkpointCount === 0 && ++this.unflushed >= this.flushEvery) await this.flush();
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    await super.putAccount(address, account);
    // The next read of this account (the next transaction's, the block's end) finds it decoded:
    // a copy, as the caller may go on changing `account`.
    const rlp = account !== undefined ? this._caches?.account?.get(address)?.accountRLP : undefined;
    if (rlp !== undefined) this.decoded.set(rlp, new Account(account!.nonce, account!.balance, account!.storageRoot, account!.codeHash));
    await this.wrote();
  }

  override async putCode(address: Address, value: Uint8Array): Promise<void> {
    await super.putCode(address, value);
    await this.wrote();
  }

  /**
   * A write goes into the storage cache only; the cache is written into the storage trie at the
   * next flush (the block's end, a state root). ethereumjs 10.1.3 writes the trie at once as well:
   * its `put(...) ?? write` falls through because the cache's put returns nothing. That was a trie
   * write, its node hashing and an account update on every SSTORE, all done again by the flush; and
   * a call's writes left their trie nodes in the node store for good (its revert drops only the
   * caches), so the store grew with every eth_call or estimate that wrote storage.
   */
  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const cache = this._caches?.storage;
    if (cache === undefined) return super.putStorage(address, key, value);
    if (key.length !== 32) throw EthereumJSErrorWithoutCode('Storage key must be 32 bytes long');
    if (value.length > 32) throw EthereumJSErrorWithoutCode('Storage value cannot be longer than 32 bytes');
    if ((await this.getAccount(address)) === undefined) throw EthereumJSErrorWithoutCode('putStorage() called on non-existing account');
    cache.put(address, key, RLP.encode(unpadBytes(value)));
    await this.wrote();
  }

  // ---------------------------------------------------------------- committed-read memo
  //
  // Calls run inside a checkpoint that is reverted, and the revert also drops what they read into
  // the account and storage caches, so every eth_call walked the trie (and hashed its keys) again.
  // Trie contents are immutable per root: an account under state root R, or a slot under storage
  // root S, never changes. These memos keep such reads across reverts; they are never stale.

  private accountReads = new Map<string, Uint8Array | null>();
  private accountReadsRoot: Uint8Array | undefined;
  private storageReads = new Map<string, Uint8Array | null>();

  protected committedAccount(address: Address): Maybe<Account | undefined> {
    const elem = this._caches?.account?.get(address);
    if (elem !== undefined) return elem.accountRLP !== undefined ? this.decode(elem.accountRLP, true) : undefined;
    return this.committedAccountFromTrie(address);
  }

  private async committedAccountFromTrie(address: Address): Promise<Account | undefined> {
    const root = this._trie.root();
    if (this.accountReadsRoot === undefined || !equalsBytes(this.accountReadsRoot, root)) {
      this.accountReads = new Map();
      this.accountReadsRoot = root;
    }
    const k = bytesToUnprefixedHex(address.bytes);
    let rlp = this.accountReads.get(k);
    if (rlp === undefined) {
      rlp = await this._trie.get(address.bytes);
      if (this.accountReads.size >= MEMO_LIMIT) this.accountReads.clear();
      this.accountReads.set(k, rlp);
    }
    // Kept as read: no flush writes it back (cacheReads.ts). The same bytes, so the next read
    // finds the account this one decodes.
    keepAccountRead(this._caches?.account, address, rlp ?? undefined);
    return rlp !== null ? this.decode(rlp, true) : undefined;
  }

  protected committedStorage(address: Address, key: Uint8Array): Maybe<Uint8Array> {
    const cached = this._caches?.storage?.get(address, key);
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array;
    return this.committedStorageFromTrie(address, key);
  }

  private async committedStorageFromTrie(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const account = await this.getAccount(address);
    if (!account) return EMPTY;
    const k = bytesToUnprefixedHex(account.storageRoot) + bytesToUnprefixedHex(key);
    let value = this.storageReads.get(k);
    if (value === undefined) {
      value = await this._getStorageTrie(address, account).get(key);
      if (this.storageReads.size >= MEMO_LIMIT) this.storageReads.clear();
      this.storageReads.set(k, value);
    }
    keepStorageRead(this._caches?.storage, address, key, value ?? RLP_EMPTY);
    return value === null ? EMPTY : (RLP.decode(value) as Uint8Array);
  }

  /**
   * Accounts decoded from cached RLP, by the RLP's identity (a cache entry keeps its bytes until
   * replaced): storage and code reads look the account up on every SLOAD, and decoding it each
   * time cost more than the read. The shared object is only read here; callers that may modify an
   * account get a copy.
   */
  private decoded = new WeakMap<Uint8Array, Account>();

  protected decode(rlp: Uint8Array, copy: boolean): Account {
    let a = this.decoded.get(rlp);
    if (a === undefined) {
      a = createAccountFromRLP(rlp);
      this.decoded.set(rlp, a);
    }
    return copy ? new Account(a.nonce, a.balance, a.storageRoot, a.codeHash) : a;
  }
}
