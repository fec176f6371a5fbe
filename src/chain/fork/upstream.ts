/**
 * State at the fork block as the upstream holds it, read lazily and cached for good (the fork
 * block never changes, so nothing here is ever invalidated): accounts (nonce, balance, code) and
 * storage slots. Concurrent reads of one item share one request; reads issued together become one
 * JSON-RPC batch (see client.ts). Nothing is ever written upstream.
 */
import { Address, bytesToHex, bytesToUnprefixedHex, hexToBytes, setLengthLeft, unpadBytes } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ForkUpstreamError, UpstreamRpcError, type Decoder, type UpstreamClient } from './client.js';
import type { CacheEntry, DiskCache } from './diskCache.js';
import type { UpstreamAccount, UpstreamReads } from '../engine/upstream.js';

export type { UpstreamAccount } from '../engine/upstream.js';

// ------------------------------------------------------------------ result decoders

/** QUANTITY → bigint. */
export const quantity = (r: unknown): bigint => {
  if (typeof r !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(r)) throw new Error(`expected a hex quantity, got ${JSON.stringify(r)?.slice(0, 40)}`);
  return BigInt(r);
};

/** DATA → bytes. */
export const data = (r: unknown): Uint8Array => {
  if (typeof r !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(r)) throw new Error(`expected hex data, got ${JSON.stringify(r)?.slice(0, 40)}`);
  return hexToBytes(r as `0x${string}`);
};

/** A storage word (up to 32 bytes) → its shortest form, as ethereumjs state managers return it. */
export const word = (r: unknown): Uint8Array => {
  if (typeof r !== 'string' || !/^0x[0-9a-fA-F]{0,64}$/.test(r)) throw new Error(`expected a storage word, got ${JSON.stringify(r)?.slice(0, 40)}`);
  const hex = r.length % 2 === 0 ? r : '0x0' + r.slice(2);
  return unpadBytes(hexToBytes(hex as `0x${string}`));
};

const EMPTY = new Uint8Array(0);

/**
 * What building any block reads besides its transactions: the system address and the system
 * contracts (EIP-4788 beacon roots, EIP-2935 block hashes, EIP-7002 and EIP-7251 request queues,
 * whose queue head and tail slots are 0..3).
 */
const SYSTEM_ACCOUNTS = [
  '0xfffffffffffffffffffffffffffffffffffffffe',
  '0x000f3df6d732807ef1319fb7b8bb8522d0beac02',
  '0x0000f90827f1c53a10cb7a02335b175320002935',
  '0x00000961ef480eb55e80d19ad83579a64c007002',
  '0x0000bbddc7ce488642fb579f8b00f3a590007251',
].map((a) => new Address(hexToBytes(a as `0x${string}`)));
const QUEUE_SLOTS: Array<[Address, Uint8Array]> = SYSTEM_ACCOUNTS.slice(3).flatMap((a) =>
  [0, 1, 2, 3].map((i): [Address, Uint8Array] => [a, setLengthLeft(new Uint8Array([i]), 32)]),
);

/**
 * A map key maker: bytes to unprefixed hex, keeping the last array converted and its key. The EVM
 * hands one array to several look-ups in a row (an Address's bytes for every SLOAD of a contract, a
 * SLOAD's key to the journal, the caches and here) and never modifies one, so a loop of reads
 * converts each once. Unprefixed: the native conversion gives a flat string, while a `0x` + hex
 * rope is flattened again by every first look-up (~0.3 µs; a call reading 100 accounts makes 100
 * new keys).
 */
function lastHexKey(): (bytes: Uint8Array) => string {
  let last: Uint8Array | undefined;
  let key = '';
  return (bytes) => {
    if (bytes !== last) {
      last = bytes;
      key = bytesToUnprefixedHex(bytes);
    }
    return key;
  };
}

/** Default longest wait of a state read for the upstream. */
export const READ_DEADLINE_MS = 4_000;

export class UpstreamState implements UpstreamReads {
  /** Accounts, slots (by account, then by slot) and codes (by hash), keyed by unprefixed hex. */
  private readonly accounts = new Map<string, UpstreamAccount | null>();
  private readonly slots = new Map<string, Map<string, Uint8Array>>();
  private readonly codes = new Map<string, Uint8Array>();
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly addressKey = lastHexKey();
  private readonly slotKey = lastHexKey();
  /** Items fetched from the network (not from the disk cache). */
  fetched = 0;
  private blockReadsKnown = false;

  constructor(
    private readonly client: UpstreamClient,
    /** The fork block, as the block parameter of state reads. */
    private readonly tag: string,
    private readonly disk: DiskCache | undefined,
    private readonly deadlineMs = READ_DEADLINE_MS,
  ) {}

  /** Take in an item of the disk cache. */
  load(e: CacheEntry): void {
    if (e.k === 'a') {
      const [a, nonce, balance, code] = e.v;
      this.setAccount(a.slice(2).toLowerCase(), BigInt(nonce), BigInt(balance), hexToBytes(code as `0x${string}`));
    } else if (e.k === 's') {
      const [a, slot, value] = e.v;
      this.slotsOf(a.slice(2).toLowerCase()).set(slot.slice(2), hexToBytes(value as `0x${string}`));
    }
  }

  /** The account if already known: null when it does not exist upstream, undefined when unknown. */
  accountNow(address: Address): UpstreamAccount | null | undefined {
    return this.accounts.get(this.keyOf(address));
  }

  /** An address's map key (see lastHexKey). */
  keyOf(address: Address): string {
    return this.addressKey(address.bytes);
  }

  private slotsOf(key: string): Map<string, Uint8Array> {
    let m = this.slots.get(key);
    if (m === undefined) this.slots.set(key, (m = new Map()));
    return m;
  }

  /** The account at the fork block (null when it does not exist there). */
  account(address: Address): Promise<UpstreamAccount | null> {
    const key = this.keyOf(address);
    const known = this.accounts.get(key);
    if (known !== undefined) return Promise.resolve(known);
    return this.once(`a${key}`, async () => {
      const a = `0x${key}`;
      const [balance, nonce, code] = await Promise.all([
        this.read('eth_getBalance', [a, this.tag], quantity),
        this.read('eth_getTransactionCount', [a, this.tag], quantity),
        this.read('eth_getCode', [a, this.tag], data),
      ]);
      this.fetched++;
      this.disk?.add({ k: 'a', v: [a, '0x' + nonce.toString(16), '0x' + balance.toString(16), bytesToHex(code)] });
      return this.setAccount(key, nonce, balance, code);
    });
  }

  /** The slot's value if already known (shortest form), else undefined. */
  slotNow(address: Address, key: Uint8Array): Uint8Array | undefined {
    return this.slots.get(this.keyOf(address))?.get(this.slotKey(key));
  }

  /** A storage slot at the fork block, in its shortest form (empty for zero). */
  slot(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const a = this.keyOf(address);
    const k = this.slotKey(key);
    const known = this.slots.get(a)?.get(k);
    if (known !== undefined) return Promise.resolve(known);
    return this.once(`s${a}${k}`, async () => {
      // The slot as a QUANTITY: every node takes that form (some refuse zero-padded words).
      const value = await this.read('eth_getStorageAt', [`0x${a}`, '0x' + (BigInt(bytesToHex(key)).toString(16)), this.tag], word);
      this.fetched++;
      this.slotsOf(a).set(k, value);
      this.disk?.add({ k: 's', v: [`0x${a}`, bytesToHex(key), bytesToHex(value)] });
      return value;
    });
  }

  /** Code by its hash, for accounts whose upstream code was never stored locally. */
  codeByHash(hash: Uint8Array): Uint8Array | undefined {
    return this.codes.get(bytesToUnprefixedHex(hash));
  }

  /**
   * Fetch what building a block reads outside its transactions, so that an upstream failure stops
   * a block before it starts rather than half-built.
   */
  async prefetchBlockReads(): Promise<void> {
    if (this.blockReadsKnown) return;
    await this.prefetch(SYSTEM_ACCOUNTS, QUEUE_SLOTS);
    this.blockReadsKnown = true;
  }

  /** Fetch these accounts and slots (those not known yet) in one burst. */
  async prefetch(accounts: Iterable<Address>, slots: Iterable<[Address, Uint8Array]>): Promise<void> {
    const work: Promise<unknown>[] = [];
    for (const a of accounts) if (this.accountNow(a) === undefined) work.push(this.account(a));
    for (const [a, k] of slots) if (this.slotNow(a, k) === undefined) work.push(this.slot(a, k));
    await Promise.all(work);
  }

  private setAccount(key: string, nonce: bigint, balance: bigint, code: Uint8Array): UpstreamAccount | null {
    if (nonce === 0n && balance === 0n && code.length === 0) {
      this.accounts.set(key, null);
      return null;
    }
    const codeHash = keccak_256(code);
    if (code.length > 0) this.codes.set(bytesToUnprefixedHex(codeHash), code);
    const account = { nonce, balance, code: code.length > 0 ? code : EMPTY, codeHash };
    this.accounts.set(key, account);
    return account;
  }

  /** A state read; an error the upstream answers is a failure of the fork upstream, not of the caller's request. */
  private async read<T>(method: string, params: unknown[], decode: Decoder<T>): Promise<T> {
    try {
      return await this.client.request(method, params, decode);
    } catch (err) {
      if (err instanceof UpstreamRpcError) throw new ForkUpstreamError(`fork upstream failed: ${method} at block ${BigInt(this.tag)} answered: ${err.message} (code ${err.code})`);
      throw err;
    }
  }

  /**
   * One fetch per item however many readers want it; each reader waits at most the read deadline.
   * A fetch that outlives its readers goes on, and its answer is kept for the next ones.
   */
  private once<T>(key: string, fetch: () => Promise<T>): Promise<T> {
    let p = this.inflight.get(key) as Promise<T> | undefined;
    if (p === undefined) {
      p = fetch().finally(() => this.inflight.delete(key));
      p.catch(() => undefined);
      this.inflight.set(key, p);
    }
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new ForkUpstreamError(`fork upstream did not answer within ${this.deadlineMs} ms (it may be down or frozen); cached state keeps being served, and this read works again once the upstream answers`)),
        this.deadlineMs,
      );
      p!.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  }
}
