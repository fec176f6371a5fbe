/**
 * The state at one root, read without the live state manager: a copy of the state trie set to the
 * root, storage tries opened at an account's storage root, code read by its hash. Every node and
 * every code entry is stored under the hash of its content, so what is read is the state at that
 * root or nothing: an entry deleted meanwhile (a snapshot rewound) makes a read throw, never give
 * other content. A state dump reads it outside the node's lock (stateDump.ts).
 *
 * The tries are walked here, not with ethereumjs's walker: that one passes over a node missing from
 * the store as if the subtree were empty, which would make a dump whose root was rewound away
 * meanwhile silently leave accounts out. This walk throws instead.
 */
import { CODEHASH_PREFIX, type MerkleStateManager } from '@ethereumjs/statemanager';
import { BranchMPTNode, ExtensionMPTNode, nibblesToBytes, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, concatBytes, equalsBytes } from '@ethereumjs/util';

/** A node's reference in its parent: its hash, or the node itself when its encoding is under 32 bytes. */
type Ref = Uint8Array | Uint8Array[];

/** Told of a leaf: its key (hex) and value (hex). */
export type OnLeaf = (keyHex: string, valueHex: string) => Promise<void> | void;

/** Called between nodes of a walk; may wait (to let the event loop in). */
export type Pace = () => Promise<void> | void;

export interface FrozenState {
  /** Each account leaf under the root: hashed address and RLP account, both hex. Throws when a node went from the store. */
  eachAccount(fn: OnLeaf, pace: Pace): Promise<void>;
  /**
   * The account leaves under the root that are not under `before` as they are: added or changed
   * ones to `fn` (some unchanged ones too, where the trie's shape changed), and the hashed
   * addresses of accounts gone to `gone`. Throws when a node of either root went from the store.
   */
  changedAccounts(before: Uint8Array, fn: OnLeaf, gone: (keyHex: string) => void, pace: Pace): Promise<void>;
  /** Storage values (RLP, hex) by hashed slot key (hex) under `storageRoot`, as `dumpStorage` gives them. */
  storage(storageRoot: Uint8Array, pace?: Pace): Promise<Record<string, string>>;
  /** The code whose hash is `codeHash`; throws when the store no longer holds it. */
  code(codeHash: Uint8Array): Promise<Uint8Array>;
}

/** The state under `root` of `trie`, laid out as `sm` lays it out (key prefixes). */
export function frozenState(sm: MerkleStateManager, trie: MerklePatriciaTrie, root: Uint8Array): FrozenState {
  const layout = sm as unknown as { _prefixCodeHashes: boolean; _prefixStorageTrieKeys: boolean };
  if (layout._prefixStorageTrieKeys) throw new Error('frozenState: prefixed storage trie keys are not supported');
  const accounts = trie.shallowCopy(false);
  accounts.root(root);
  const db = trie.database();
  return {
    eachAccount: (fn, pace) => eachLeaf(accounts, root, fn, pace),
    async changedAccounts(before, fn, gone, pace) {
      await diff(accounts, isEmpty(accounts, root) ? null : root, isEmpty(accounts, before) ? null : before, [], fn, gone, pace);
    },
    async storage(storageRoot, pace = noPace) {
      const values: Record<string, string> = {};
      await eachLeaf(accounts, storageRoot, (k, v) => void (values[k] = v), pace);
      return values;
    },
    async code(codeHash) {
      const code = await db.get(layout._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash);
      if (code === undefined || code === null) throw new Error('frozenState: code no longer stored');
      return code as Uint8Array;
    },
  };
}

/**
 * Each leaf of the trie under `root` (key and value, hex), depth first; throws when a node is not in
 * the store. `trie` only lends its store (any copy of the state trie serves).
 */
export async function eachLeaf(trie: MerklePatriciaTrie, root: Uint8Array, fn: OnLeaf, pace: Pace): Promise<void> {
  if (!isEmpty(trie, root)) await walk(trie, root, [], (path, value) => fn(keyHex(path), bytesToHex(value)), pace);
}

const noPace: Pace = () => undefined;

const isEmpty = (trie: MerklePatriciaTrie, root: Uint8Array): boolean => equalsBytes(root, trie.EMPTY_TRIE_ROOT);

const keyHex = (path: number[]): string => bytesToHex(nibblesToBytes(Uint8Array.from(path)));

const sameRef = (a: Ref, b: Ref): boolean =>
  a instanceof Uint8Array && b instanceof Uint8Array ? equalsBytes(a, b) : equalsBytes(RLP.encode(a), RLP.encode(b));

type OnPath = (path: number[], value: Uint8Array) => Promise<void> | void;

async function walk(trie: MerklePatriciaTrie, ref: Ref, path: number[], fn: OnPath, pace: Pace): Promise<void> {
  // lookupNode throws when the store lacks the node (ethereumjs's own error).
  const node = await trie.lookupNode(ref);
  await pace();
  if (node instanceof BranchMPTNode) {
    const value = node.value();
    if (value !== null) await fn(path, value);
    for (let i = 0; i < 16; i++) {
      const child = node.getBranch(i);
      if (child !== null) await walk(trie, child as Ref, [...path, i], fn, pace);
    }
  } else if (node instanceof ExtensionMPTNode) {
    await walk(trie, node.value() as Ref, [...path, ...node.key()], fn, pace);
  } else {
    await fn([...path, ...node.key()], node.value()!);
  }
}

/** The leaves under `now` not under `before` as they are (`fn`), and the keys under `before` only (`gone`). */
async function diff(trie: MerklePatriciaTrie, now: Ref | null, before: Ref | null, path: number[], fn: OnLeaf, gone: (keyHex: string) => void, pace: Pace): Promise<void> {
  if (now !== null && before !== null && sameRef(now, before)) return;
  const report: OnPath = (p, v) => fn(keyHex(p), bytesToHex(v));
  // A side that is empty here: all of the other one is added, or gone.
  if (before === null) {
    if (now !== null) await walk(trie, now, path, report, pace);
    return;
  }
  if (now === null) {
    await walk(trie, before, path, (p) => gone(keyHex(p)), pace);
    return;
  }
  const n = await trie.lookupNode(now);
  const b = await trie.lookupNode(before);
  await pace();
  if (n instanceof BranchMPTNode && b instanceof BranchMPTNode) {
    const nv = n.value();
    const bv = b.value();
    if (nv !== null && (bv === null || !equalsBytes(nv, bv))) await report(path, nv);
    else if (nv === null && bv !== null) gone(keyHex(path));
    for (let i = 0; i < 16; i++) await diff(trie, n.getBranch(i) as Ref | null, b.getBranch(i) as Ref | null, [...path, i], fn, gone, pace);
    return;
  }
  if (n instanceof ExtensionMPTNode && b instanceof ExtensionMPTNode && sameNibbles(n.key(), b.key())) {
    await diff(trie, n.value() as Ref, b.value() as Ref, [...path, ...n.key()], fn, gone, pace);
    return;
  }
  // The shape changed here: every leaf under `now` is told, and those only under `before` are gone.
  const left = new Set<string>();
  await walk(trie, before, path, (p) => void left.add(keyHex(p)), pace);
  await walk(
    trie,
    now,
    path,
    (p, v) => {
      const k = keyHex(p);
      left.delete(k);
      return fn(k, bytesToHex(v));
    },
    pace,
  );
  for (const k of left) gone(k);
}

function sameNibbles(a: number[], b: number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
