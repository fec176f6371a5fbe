/**
 * The node's trie (NodeTrie): the same roots, values and paths as ethereumjs's MerklePatriciaTrie
 * over the same writes, including deletes, keys sharing long prefixes (extension nodes), values
 * small enough to sit inside their parent, and nodes the store lacks; its decoded nodes stay
 * bounded and are shared with its copies.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MerklePatriciaTrie, type MPTNode } from '@ethereumjs/mpt';
import { bytesToHex } from '@ethereumjs/util';
import { keccak256 } from '../../src/chain/core/keccak.js';
import { NodeStore } from '../../src/chain/engine/nodeStore.js';
import { DECODED_NODES, DecodedNodes, NodeTrie } from '../../src/chain/engine/nodeTrie.js';
import { rng, trieOpts } from '../support/engine.js';

const opts = trieOpts;

/** Keys of a few shapes: hashed-like, sharing a 30-byte prefix (extensions), and short ones. */
function keyOf(i: number): Uint8Array {
  const k = new Uint8Array(i % 3 === 0 ? 32 : i % 3 === 1 ? 32 : 4);
  if (i % 3 === 0) k.set(keccak256(new Uint8Array([i & 255, i >> 8])));
  else if (i % 3 === 1) new DataView(k.buffer).setUint16(30, i);
  else new DataView(k.buffer).setUint32(0, i * 2654435761);
  return k;
}

/** Values from one byte (nodes that sit inside their parent) to 40 bytes. */
function valueOf(n: number): Uint8Array {
  const v = new Uint8Array(1 + (n % 40));
  v.fill((n % 255) + 1);
  return v;
}

const shape = (path: { node: MPTNode | null; remaining: number[]; stack: MPTNode[] }) => ({
  node: path.node === null ? null : bytesToHex(path.node.serialize()),
  remaining: path.remaining.join(','),
  stack: path.stack.map((n) => bytesToHex(n.serialize())),
});

test('same roots, values and paths as ethereumjs over random puts and deletes', async () => {
  const plain = new MerklePatriciaTrie(opts());
  const node = new NodeTrie(opts(), new DecodedNodes(64));
  const next = rng(7);
  for (let step = 0; step < 3000; step++) {
    const i = next() % 600;
    const k = keyOf(i);
    if (next() % 5 === 0) {
      await plain.del(k);
      await node.del(k);
    } else {
      const v = valueOf(next());
      await plain.put(k, v);
      await node.put(k, v);
    }
    if (step % 100 === 99) assert.equal(bytesToHex(node.root()), bytesToHex(plain.root()), `root after step ${step}`);
  }
  for (let i = 0; i < 700; i++) {
    const k = keyOf(i);
    const want = await plain.get(k);
    const got = await node.get(k);
    assert.equal(got === null ? null : bytesToHex(got), want === null ? null : bytesToHex(want), `value of key ${i}`);
    assert.deepEqual(shape(await node.findPath(k)), shape(await plain.findPath(k)), `path of key ${i}`);
  }
  // A key that is a prefix of stored keys ends at a branch or inside an extension.
  for (const k of [new Uint8Array(0), new Uint8Array(30), new Uint8Array([0, 0, 0])]) {
    assert.deepEqual(shape(await node.findPath(k)), shape(await plain.findPath(k)));
  }
});

test('a node the store lacks: nothing found, or the error ethereumjs throws when asked to throw', async () => {
  const store = new NodeStore();
  const trie = new NodeTrie(opts(store));
  for (let i = 0; i < 50; i++) await trie.put(keyOf(i), valueOf(i + 33));
  const root = trie.root();
  const missing = new Uint8Array(32).fill(0xab);
  trie.root(missing);
  const plain = new MerklePatriciaTrie({ ...opts(store), root: missing });
  assert.deepEqual(shape(await trie.findPath(keyOf(1))), shape(await plain.findPath(keyOf(1))));
  assert.equal(await trie.get(keyOf(1)), null);
  const theirs = await plain.findPath(keyOf(1), true).then(
    () => undefined,
    (e: Error) => e,
  );
  const ours = await trie.findPath(keyOf(1), true).then(
    () => undefined,
    (e: Error) => e,
  );
  assert.ok(theirs instanceof Error && ours instanceof Error);
  assert.equal(ours.constructor, theirs.constructor);
  assert.equal(ours.message, theirs.message);
  await assert.rejects(trie.lookupNode(missing), (e: Error) => e.message === theirs.message);
  trie.root(root);
  assert.ok(await trie.get(keyOf(1)));
});

test('decoded nodes stay bounded, and copies (storage tries) share them', async () => {
  const trie = new NodeTrie(opts());
  for (let i = 0; i < 6000; i++) await trie.put(keccak256(new Uint8Array([i & 255, i >> 8])), valueOf(i + 40));
  assert.ok(trie.decoded.size <= 2 * DECODED_NODES, `${trie.decoded.size} decoded nodes`);
  const copy = trie.shallowCopy(false);
  assert.ok(copy instanceof NodeTrie);
  assert.equal(copy.decoded, trie.decoded);
  assert.equal(bytesToHex(copy.root()), bytesToHex(trie.root()));
  await copy.put(new Uint8Array(32), valueOf(50));
  assert.notEqual(bytesToHex(copy.root()), bytesToHex(trie.root()));
  assert.ok(await copy.get(keccak256(new Uint8Array([5, 0]))));
});
