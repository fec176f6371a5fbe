/**
 * The state and storage tries: ethereumjs's MerklePatriciaTrie with two shortcuts on the way to a
 * key, which every account and slot read that misses the caches, and every write at a block's end,
 * takes.
 *
 * - Nodes recently written or read are kept decoded (RLP-decoded, as arrays of bytes) by hash. A
 *   write at a block's end walks from the root the previous write just re-hashed, so the nodes it
 *   reads are the ones just written: a branch costs ~0.05 µs from here against ~2.5 µs to decode
 *   its bytes again. Mining an ERC20 transfer reads ~18.5 nodes, ~17 of them from here. Nodes are
 *   content-addressed, so an entry is right for as long as it is kept. The set is bounded: two
 *   generations of at most `DECODED_NODES` each, ~2.6 KB an entry (a branch's 16 child hashes are
 *   arrays of their own), so at most ~1.3 MB; four times as many entries saved ~0.5 reads more.
 * - `findPath` follows the key down from the root in a plain loop, where ethereumjs's goes through
 *   its generic walker (a task queue and a callback per node). Same result: the nodes on the path,
 *   the node found (or null) and the nibbles not matched.
 *
 * Everything else (updates, deletes, hashing, checkpoints, proofs) is ethereumjs's own; a write
 * also keeps the nodes it stores decoded, and tells `onKeyWritten` (the preimage store) which key
 * it stored a value under. Copies (`shallowCopy`, which every storage trie is) share both.
 */
import { RLP } from '@ethereumjs/rlp';
import { BranchMPTNode, ExtensionMPTNode, LeafMPTNode, MerklePatriciaTrie, decodeRawMPTNode, type MPTNode, type MPTOpts, type TrieShallowCopyOpts } from '@ethereumjs/mpt';
import { bytesToUnprefixedHex, type BatchDBOp } from '@ethereumjs/util';

/** Entries per generation of decoded nodes (two generations are kept). */
export const DECODED_NODES = 256;

type RawNode = Uint8Array[];
type NodeRef = Uint8Array | RawNode;
interface Path {
  node: MPTNode | null;
  remaining: number[];
  stack: MPTNode[];
}

const EMPTY = new Uint8Array(0);

/** Recently used decoded nodes by hash hex: a young and an old generation, each bounded. */
export class DecodedNodes {
  private young = new Map<string, RawNode>();
  private old = new Map<string, RawNode>();

  constructor(private readonly limit = DECODED_NODES) {}

  get(hashHex: string): RawNode | undefined {
    const hit = this.young.get(hashHex);
    if (hit !== undefined) return hit;
    const aged = this.old.get(hashHex);
    if (aged !== undefined) this.set(hashHex, aged);
    return aged;
  }

  set(hashHex: string, raw: RawNode): void {
    if (this.young.size >= this.limit) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(hashHex, raw);
  }

  get size(): number {
    return this.young.size + this.old.size;
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }
}

/** `key` as nibbles, high half of each byte first (the trie's path). */
function nibblesOf(key: Uint8Array): number[] {
  const out = new Array<number>(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 15;
  }
  return out;
}

/** A node's raw form as kept: empty branches and values as empty bytes, as decoding its stored form gives them. */
function rawOf(node: MPTNode): RawNode {
  return node.raw().map((part) => part ?? EMPTY) as RawNode;
}

/** Stand-ins for the hashes of nodes a batch has not hashed yet: known by identity, never by content. */
let placeholders = 0;
function placeholder(): Uint8Array {
  const p = new Uint8Array(32);
  const n = ++placeholders;
  p[28] = n >>> 24;
  p[29] = n >>> 16;
  p[30] = n >>> 8;
  p[31] = n;
  return p;
}

/**
 * Whether `node`'s encoding is shorter than 32 bytes (it sits inside its parent instead of being
 * stored under its hash), deciding without encoding it where its parts already rule it out: a
 * child referenced by hash is 33 bytes of it.
 */
function fitsInline(node: MPTNode): boolean {
  if (node instanceof BranchMPTNode) {
    for (let i = 0; i < 16; i++) {
      const c = node.getBranch(i);
      if (c instanceof Uint8Array && c.length === 32) return false;
    }
  } else if (node instanceof ExtensionMPTNode) {
    const c = node.value();
    if (c instanceof Uint8Array && c.length === 32) return false;
  } else {
    const value = node.value();
    if (value !== null && (node.key().length >> 1) + 1 + value.length >= 32) return false;
  }
  return node.serialize().length < 32;
}

/** Told of each key a value is stored under, with its hashed form (key hashing on). */
export type OnKeyWritten = (hashed: Uint8Array, key: Uint8Array) => void;

export class NodeTrie extends MerklePatriciaTrie {
  constructor(
    opts: MPTOpts,
    readonly decoded = new DecodedNodes(),
    readonly onKeyWritten?: OnKeyWritten,
  ) {
    super(opts);
  }

  /**
   * While a batch runs (`batched`): the nodes its writes formatted, not yet hashed, by the
   * placeholder standing for their hash in their parent (and as the root).
   */
  private pending: Map<Uint8Array, RawNode> | undefined;

  /**
   * Runs `fn`'s writes (puts and deletes through this trie object) as one: each write goes down
   * and back up the trie as ethereumjs's does, but the nodes it changes are kept unhashed, under
   * placeholders, and when `fn` is done every node still reachable is encoded, hashed and stored
   * once, children first. A block's end writes three accounts into the state trie, each write
   * re-hashing the root and storing it (and the branches the paths share) again; here each is
   * hashed once. A placeholder is as long as a hash, so a node's encoded length, and with it
   * whether it sits inside its parent, is the same as it will be with the hashes: the nodes, and
   * the root, are those the writes one by one give. Until `fn` is done the root is a placeholder
   * that only this object reads (copies made meanwhile cannot); the state manager's flush is the
   * only caller, and nothing reads the trie while it flushes.
   */
  async batched(fn: () => Promise<void>): Promise<void> {
    if (this.pending !== undefined || this._opts.useNodePruning || this._opts.useRootPersistence) return fn();
    const before = this.root();
    this.pending = new Map();
    try {
      await fn();
    } catch (error) {
      // What was written stays written, as after writes one by one that failed midway.
      await this.hashPending().catch(() => this.root(before));
      throw error;
    }
    await this.hashPending();
  }

  /** Ends a batch: the nodes reachable from the root hashed and stored, the root set to its hash. */
  private async hashPending(): Promise<void> {
    const pending = this.pending!;
    this.pending = undefined;
    const root = this.root();
    if (!pending.has(root)) return;
    const ops: BatchDBOp[] = [];
    this.root(this.hashNode(root, pending, ops, true) as Uint8Array);
    await this._db.batch(ops);
  }

  /** The reference to the node `ref` stands for, its pending children hashed first. */
  private hashNode(ref: Uint8Array, pending: Map<Uint8Array, RawNode>, ops: BatchDBOp[], top: boolean): NodeRef {
    const node = decodeRawMPTNode(pending.get(ref)!);
    if (node instanceof BranchMPTNode) {
      for (let i = 0; i < 16; i++) {
        const c = node.getBranch(i);
        if (c instanceof Uint8Array && pending.has(c)) node.setBranch(i, this.hashNode(c, pending, ops, false) as Uint8Array);
      }
    } else if (node instanceof ExtensionMPTNode) {
      const c = node.value();
      if (c instanceof Uint8Array && pending.has(c)) node.value(this.hashNode(c, pending, ops, false) as Uint8Array);
    }
    return this._formatNode(node, top, ops) as NodeRef;
  }

  override async put(key: Uint8Array, value: Uint8Array | null, skipKeyTransform = false): Promise<void> {
    if (skipKeyTransform || this.onKeyWritten === undefined || value === null || value.length === 0 || !this._opts.useKeyHashing) {
      return super.put(key, value, skipKeyTransform);
    }
    // The key hashed once, here, and handed on as already hashed.
    const hashed = this.appliedKey(key);
    this.onKeyWritten(hashed, key);
    return super.put(hashed, value, true);
  }

  /** The node `ref` names (a hash, or a node small enough to sit inside its parent); undefined if the store lacks it. */
  private async readNode(ref: NodeRef): Promise<MPTNode | undefined> {
    if (Array.isArray(ref)) return decodeRawMPTNode(ref);
    const waiting = this.pending?.get(ref);
    if (waiting !== undefined) return decodeRawMPTNode(waiting);
    const hex = bytesToUnprefixedHex(ref);
    let raw = this.decoded.get(hex);
    if (raw === undefined) {
      const bytes = await this._db.get(this._getDbKey(ref));
      if (bytes === undefined || bytes === null) return undefined;
      raw = RLP.decode(bytes) as RawNode;
      // Anything but a node ethereumjs's own lookup rejects, with its error.
      if (!Array.isArray(raw)) return super.lookupNode(ref);
      this.decoded.set(hex, raw);
    }
    return decodeRawMPTNode(raw);
  }

  override async lookupNode(node: NodeRef): Promise<MPTNode> {
    // A node the store lacks: ethereumjs's own lookup reports it, with its own error.
    return (await this.readNode(node)) ?? super.lookupNode(node);
  }

  override async findPath(key: Uint8Array, throwIfMissing = false, partialPath: { stack: MPTNode[] } = { stack: [] }): Promise<Path> {
    // Resuming a walk from a partial path (proofs of ranges) stays with ethereumjs.
    if (partialPath.stack.length > 0) return super.findPath(key, throwIfMissing, partialPath);
    const target = nibblesOf(key);
    const stack: MPTNode[] = [];
    let at = 0;
    let ref: NodeRef = this.root();
    for (;;) {
      const node = await this.readNode(ref);
      if (node === undefined) {
        // As ethereumjs's walk: a missing node ends it with nothing found, unless asked to throw.
        if (throwIfMissing) await super.lookupNode(ref);
        return { node: null, remaining: [], stack };
      }
      stack.push(node);
      if (node instanceof BranchMPTNode) {
        if (at === target.length) return { node, remaining: [], stack };
        const child = node.getBranch(target[at]);
        if (child === null) return { node: null, remaining: target.slice(at), stack };
        at++;
        ref = child as NodeRef;
        continue;
      }
      // A leaf or an extension: its key must match the next nibbles.
      const start = at;
      const part = node.key();
      const leaf = node instanceof LeafMPTNode;
      if (leaf && target.length - at > part.length) return { node: null, remaining: target.slice(start), stack };
      for (let i = 0; i < part.length; i++, at++) {
        if (part[i] !== target[at]) return { node: null, remaining: target.slice(start), stack };
      }
      if (leaf) return { node, remaining: [], stack };
      ref = node.value() as NodeRef;
    }
  }

  override _formatNode(node: MPTNode, topLevel: boolean, opStack: BatchDBOp[], remove = false): ReturnType<MerklePatriciaTrie['_formatNode']> {
    const pending = this.pending;
    if (pending !== undefined) {
      // In a batch: a node that would be stored under its hash gets a placeholder instead. A node
      // removed has nothing to delete (batches run without pruning); ethereumjs ignores the result.
      if (remove || (!topLevel && fitsInline(node))) return node.raw();
      const p = placeholder();
      pending.set(p, rawOf(node));
      return p;
    }
    const out = super._formatNode(node, topLevel, opStack, remove);
    // A node stored under its hash: keep it decoded (empty branches and values as empty bytes, as
    // decoding its stored form gives them).
    if (!remove && out instanceof Uint8Array) this.decoded.set(bytesToUnprefixedHex(out), rawOf(node));
    return out;
  }

  override shallowCopy(includeCheckpoints = true, opts?: TrieShallowCopyOpts): NodeTrie {
    const self = this as unknown as { _opts: MPTOpts; _db: { db: { shallowCopy(): MPTOpts['db'] }; checkpoints: unknown } };
    const trie = new NodeTrie({ ...self._opts, db: self._db.db.shallowCopy(), root: this.root(), cacheSize: 0, ...(opts ?? {}) }, this.decoded, this.onKeyWritten);
    if (includeCheckpoints && this.hasCheckpoints()) (trie as unknown as { _db: { setCheckpoints(c: unknown): void } })._db.setCheckpoints(self._db.checkpoints);
    return trie;
  }
}
