/**
 * The accounts of a state document: read through an `AccountReader` (the live state, or the state
 * at a fixed root), rendered as anvil writes them (by address, each with nonce, balance, code and
 * storage) and kept between dumps, so that a periodic dump reads and formats what changed only.
 * The text is built piece by piece, with the event loop let in every few milliseconds.
 */
import { RLP } from '@ethereumjs/rlp';
import { Address, KECCAK256_RLP, bytesToHex, createAccountFromRLP, equalsBytes, hexToBytes, setLengthLeft, type Account } from '@ethereumjs/util';
import { ChainError } from '../core/errors.js';

const q = (n: bigint | number): string => '0x' + n.toString(16);

/** What rendering an account needs of the node: the key behind each hashed trie key. */
export interface KeySource {
  readonly preimages: { get(hashedKeyHex: string): Uint8Array | undefined };
}

/**
 * Milliseconds of work between two yields to the event loop. A request that arrives meanwhile waits
 * for the rest of the slice (and a collection the slice set off), so the slice is short.
 */
const SLICE_MS = 2;

/** Text pieces joined into chunks of about this many characters as they come. */
const CHUNK = 1 << 18;

/**
 * The document's text as it is built: pieces are joined into chunks of about `CHUNK` characters,
 * and the event loop is let in once `SLICE_MS` have passed since it last was.
 */
export class Writer {
  readonly chunks: string[] = [];
  private pending: string[] = [];
  private size = 0;
  private last = performance.now();

  push(text: string): void {
    this.pending.push(text);
    this.size += text.length;
    if (this.size >= CHUNK) this.cut();
  }

  async maybeYield(): Promise<void> {
    if (performance.now() - this.last < SLICE_MS) return;
    await new Promise((r) => setImmediate(r));
    this.last = performance.now();
  }

  finish(): string[] {
    this.cut();
    return this.chunks;
  }

  private cut(): void {
    if (this.pending.length > 0) this.chunks.push(this.pending.join(''));
    this.pending = [];
    this.size = 0;
  }
}

/** An account's text in the document, and the trie leaf (hex RLP) it was made from. */
interface RenderedAccount {
  rlpHex: string;
  readonly address: string;
  text: string;
  /** The last dump that found the account. */
  seen: number;
}

/**
 * The accounts' text of a node's dumps made at a fixed root, by hashed key, and in the document's
 * order (by address). An account's text follows from its leaf alone (nonce, balance, and storage
 * and code by the hash of their content), so an account whose leaf is unchanged is not read or
 * formatted again. The next dump walks only the parts of the account trie that differ from the
 * root of the last one, and entries are updated in place: a periodic dump of a large state reads
 * and allocates for what changed, not for every account (which kept the collector busy while the
 * node answered).
 */
export class RenderedAccounts {
  readonly byKey = new Map<string, RenderedAccount>();
  /** Every entry, sorted by address. */
  ordered: RenderedAccount[] = [];
  /** The state root the entries are the accounts of (undefined while a dump is under way, or after one failed). */
  root: Uint8Array | undefined;
  dumps = 0;
  private turn: Promise<unknown> = Promise.resolve();

  /** Run `fn` once the dumps before it that use these entries are done (they update them in place). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.turn.then(fn, fn);
    this.turn = run.catch(() => undefined);
    return run;
  }
}

/** How a dump reads the accounts: their trie's leaves, an account's storage and code. */
export interface AccountReader {
  /** Call `fn` with each leaf of the account trie (hashed key and RLP account, both hex), in turn. */
  eachLeaf(pacer: Writer, fn: (hashedKey: string, rlpHex: string) => Promise<void>): Promise<void>;
  /** The leaves that differ from those under `before` (`fn`), and the keys of the accounts gone (`gone`). */
  changedSince?(before: Uint8Array, pacer: Writer, fn: (hashedKey: string, rlpHex: string) => Promise<void>, gone: (hashedKey: string) => void): Promise<void>;
  storage(address: Address, account: Account, pacer: Writer): Promise<Record<string, string>>;
  code(address: Address, account: Account): Promise<Uint8Array>;
}

/**
 * Push the accounts of the state at `stateRoot` (as `reader` reads it) to `out`, sorted by address
 * and joined by commas; with `cache`, accounts whose leaf is unchanged since an earlier dump keep
 * their text, and only what differs from that dump's root is walked.
 */
export async function writeAccounts(node: KeySource, reader: AccountReader, out: Writer, cache: RenderedAccounts, stateRoot: Uint8Array): Promise<void> {
  const dump = ++cache.dumps;
  // New accounts join the entries once the walk is through, so a walk that fails leaves them whole.
  let added: Array<[string, RenderedAccount]> = [];
  let found = 0;
  const visit = async (hashedKey: string, rlpHex: string): Promise<void> => {
    found++;
    const known = cache.byKey.get(hashedKey);
    if (known !== undefined && known.rlpHex === rlpHex) {
      known.seen = dump;
      return;
    }
    const key = node.preimages.get(hashedKey);
    if (!key || key.length !== 20) throw new ChainError(`cannot dump the state: no address is known for account key ${hashedKey}`);
    const address = new Address(key);
    const text = await accountText(node, reader, out, address, createAccountFromRLP(hexToBytes(rlpHex as `0x${string}`)));
    if (known !== undefined) {
      known.rlpHex = rlpHex;
      known.text = text;
      known.seen = dump;
    } else {
      added.push([hashedKey, { rlpHex, address: address.toString(), text, seen: dump }]);
    }
  };
  const since = cache.root;
  cache.root = undefined;
  let gone: RenderedAccount[] | undefined;
  if (since !== undefined && reader.changedSince !== undefined) {
    // Only what differs from the last dump's root; should that root's nodes have gone from the
    // store (a snapshot rewound), every account is walked instead.
    const goneKeys: string[] = [];
    try {
      await reader.changedSince(since, out, visit, (k) => void goneKeys.push(k));
      gone = [];
      for (const k of goneKeys) {
        const entry = cache.byKey.get(k);
        if (entry === undefined) continue;
        cache.byKey.delete(k);
        gone.push(entry);
      }
    } catch {
      added = [];
    }
  }
  if (gone === undefined) {
    found = 0;
    await reader.eachLeaf(out, visit);
  }
  // Accounts sorted by address (as anvil writes them): the last dump's order, less the accounts
  // gone since, merged with the new ones.
  let ordered = cache.ordered;
  if (gone !== undefined ? gone.length > 0 : found !== ordered.length + added.length) {
    const left = gone === undefined ? (a: RenderedAccount) => a.seen === dump : ((g) => (a: RenderedAccount) => !g.has(a))(new Set(gone));
    ordered = ordered.filter(left);
    if (gone === undefined) for (const [k, a] of cache.byKey) if (a.seen !== dump) cache.byKey.delete(k);
  }
  if (added.length > 0) {
    for (const [k, a] of added) cache.byKey.set(k, a);
    ordered = mergeByAddress(ordered, added.map(([, a]) => a).sort(byAddress));
  }
  cache.ordered = ordered;
  cache.root = stateRoot;
  for (let i = 0; i < ordered.length; i++) {
    if (i % 256 === 0) await out.maybeYield();
    if (i > 0) out.push(',');
    out.push(ordered[i].text);
  }
}

/** An account's text in the document: `"<address>":{nonce, balance, code, storage}`. */
async function accountText(node: KeySource, reader: AccountReader, pacer: Writer, address: Address, account: Account): Promise<string> {
  let storage = '';
  if (!equalsBytes(account.storageRoot, KECCAK256_RLP)) {
    const slots: Array<[string, string]> = [];
    for (const [hashedSlot, valueHex] of Object.entries(await reader.storage(address, account, pacer))) {
      const slot = node.preimages.get(hashedSlot);
      if (!slot || slot.length !== 32) throw new ChainError(`cannot dump the state: no slot is known for storage key ${hashedSlot} of ${address}`);
      const value = RLP.decode(hexToBytes(valueHex as `0x${string}`)) as Uint8Array;
      slots.push([bytesToHex(slot), bytesToHex(setLengthLeft(value, 32))]);
    }
    slots.sort((a, b) => (a[0] < b[0] ? -1 : 1));
    storage = slots.map(([k, v]) => `"${k}":"${v}"`).join(',');
  }
  const code = account.isContract() ? bytesToHex(await reader.code(address, account)) : '0x';
  return `"${address.toString()}":{"nonce":${account.nonce},"balance":"${q(account.balance)}","code":"${code}","storage":{${storage}}}`;
}

const byAddress = (a: RenderedAccount, b: RenderedAccount): number => (a.address < b.address ? -1 : 1);

/** Two lists sorted by address, merged into one. */
function mergeByAddress(a: RenderedAccount[], b: RenderedAccount[]): RenderedAccount[] {
  if (b.length === 0) return a;
  const out: RenderedAccount[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i].address < b[j].address ? a[i++] : b[j++]);
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}
