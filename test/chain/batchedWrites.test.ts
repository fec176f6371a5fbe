/**
 * A flush's writes made as one (NodeTrie.batched, CachedStateManager's flush): the same roots as
 * ethereumjs's trie and state manager writing one key at a time, every node of the result in the
 * store (a trie opened afresh at the root reads every value), and after a batch that fails midway
 * the writes made before the failure.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from '../../src/chain/core/keccak.js';
import { makeCommon } from '../../src/chain/engine/common.js';
import { createEngine } from '../../src/chain/engine/engine.js';
import { NodeStore } from '../../src/chain/engine/nodeStore.js';
import { DecodedNodes, NodeTrie } from '../../src/chain/engine/nodeTrie.js';
import { NO_HISTORY, address, countWrites, rng, slot, trieOpts } from '../support/engine.js';

const opts = trieOpts;

/** Hashed-like keys, keys sharing a 30-byte prefix (extensions), and short keys (nodes inside their parent). */
function keyOf(i: number): Uint8Array {
  const k = new Uint8Array(i % 3 === 2 ? 4 : 32);
  if (i % 3 === 0) k.set(keccak256(new Uint8Array([i & 255, i >> 8])));
  else if (i % 3 === 1) new DataView(k.buffer).setUint16(30, i);
  else new DataView(k.buffer).setUint32(0, i * 2654435761);
  return k;
}

function valueOf(n: number): Uint8Array {
  return new Uint8Array(1 + (n % 40)).fill((n % 255) + 1);
}

test('batches of puts and deletes give the roots of the same writes one by one, with every node stored', async () => {
  const store = new NodeStore();
  const plain = new MerklePatriciaTrie(opts());
  const node = new NodeTrie(opts(store), new DecodedNodes(64));
  const next = rng(11);
  for (let batch = 0; batch < 300; batch++) {
    // Now and then a batch that deletes every key written so far (the trie empties, then grows again).
    const clear = batch % 97 === 96;
    const ops: Array<[Uint8Array, Uint8Array | null]> = [];
    if (clear) for (let i = 0; i < 300; i++) ops.push([keyOf(i), null]);
    else for (let n = 1 + (next() % 40); n > 0; n--) ops.push([keyOf(next() % 300), next() % 4 === 0 ? null : valueOf(next())]);
    for (const [k, v] of ops) await (v === null ? plain.del(k) : plain.put(k, v));
    await node.batched(async () => {
      for (const [k, v] of ops) await (v === null ? node.del(k) : node.put(k, v));
    });
    assert.equal(bytesToHex(node.root()), bytesToHex(plain.root()), `root after batch ${batch}`);
  }
  // Every node under the root is in the store: a trie with nothing decoded reads every value.
  const fresh = new NodeTrie({ ...opts(store), root: node.root() }, new DecodedNodes(1));
  for (let i = 0; i < 300; i++) {
    const want = await plain.get(keyOf(i));
    const got = await fresh.get(keyOf(i), true);
    assert.equal(got === null ? null : bytesToHex(got), want === null ? null : bytesToHex(want), `value of key ${i}`);
  }
});

test('a batch that fails midway keeps the writes made before the failure', async () => {
  const plain = new MerklePatriciaTrie(opts());
  const node = new NodeTrie(opts());
  for (let i = 0; i < 50; i++) {
    await plain.put(keyOf(i), valueOf(i));
    await node.put(keyOf(i), valueOf(i));
  }
  await plain.put(keyOf(60), valueOf(1));
  await plain.del(keyOf(3));
  await assert.rejects(
    node.batched(async () => {
      await node.put(keyOf(60), valueOf(1));
      await node.del(keyOf(3));
      throw new Error('midway');
    }),
    /midway/,
  );
  assert.equal(bytesToHex(node.root()), bytesToHex(plain.root()));
  assert.equal(bytesToHex((await node.get(keyOf(60)))!), bytesToHex(valueOf(1)));
});

test("a block's worth of account, code and storage writes: the state root of ethereumjs's own state manager", async () => {
  const e = await createEngine(makeCommon(984n, 'prague'), NO_HISTORY, { cacheSize: 'unbounded' });
  const plain = new MerkleStateManager({ common: makeCommon(984n, 'prague') });
  const next = rng(5);
  const code = hexToBytes('0x6001600055600260015500');
  for (const sm of [e.state, plain]) await sm.checkpoint();
  for (let block = 0; block < 12; block++) {
    for (const sm of [e.state, plain]) await sm.checkpoint();
    const seed = next();
    for (const sm of [e.state, plain]) {
      const r = rng(seed);
      for (let i = 0; i < 40; i++) {
        const who = address(1 + (r() % 60));
        const kind = r() % 10;
        if (kind < 5) await sm.putAccount(who, new Account(BigInt(r() % 9), BigInt(r())));
        else if (kind < 6) await sm.deleteAccount(who);
        else {
          // Contracts 0xc0..0xc5: code once, then slots set and zeroed.
          const contract = address(0xc0 + (r() % 6));
          if ((await sm.getAccount(contract)) === undefined) {
            await sm.putAccount(contract, new Account(1n, 0n));
            await sm.putCode(contract, code);
          }
          const value = r() % 4 === 0 ? new Uint8Array(0) : new Uint8Array([r() & 255, 1 + (r() % 255)]);
          await sm.putStorage(contract, slot(r() % 200), value);
        }
      }
    }
    for (const sm of [e.state, plain]) await sm.commit();
    const got = await e.state.getStateRoot();
    await plain.flush();
    assert.equal(bytesToHex(got), bytesToHex((plain as unknown as { _trie: MerklePatriciaTrie })._trie.root()), `state root after block ${block}`);
  }
});

/** Count the state and storage tries' writes while `fn` runs. */
const trieWrites = (fn: () => Promise<void>): Promise<number> => countWrites(NodeTrie.prototype, fn);

test("a block's writes go into the tries once: the flush after its checkpoint is committed writes nothing again, and a revert after a flush still undoes it", async () => {
  const e = await createEngine(makeCommon(984n, 'prague'), NO_HISTORY, { cacheSize: 'unbounded' });
  const plain = new MerkleStateManager({ common: makeCommon(984n, 'prague') });
  const contract = address(0xc0);
  const both = async (fn: (sm: MerkleStateManager) => Promise<void>) => {
    for (const sm of [e.state, plain]) await fn(sm);
  };
  const rootsAgree = async (what: string) => {
    await plain.flush();
    assert.equal(bytesToHex(await e.state.getStateRoot()), bytesToHex((plain as unknown as { _trie: MerklePatriciaTrie })._trie.root()), what);
  };
  await both(async (sm) => {
    for (let i = 1; i <= 20; i++) await sm.putAccount(address(i), new Account(0n, 10n ** 18n));
    await sm.putAccount(contract, new Account(1n, 0n));
    await sm.putCode(contract, hexToBytes('0x6001600055'));
    for (let i = 0; i < 50; i++) await sm.putStorage(contract, slot(i), new Uint8Array([i + 1]));
  });
  await rootsAgree('genesis');
  const start = await e.state.getStateRoot();

  // A block: its state root asked for inside its checkpoint, as the block builder does.
  const block = async (n: number) => {
    await both(async (sm) => {
      await sm.checkpoint();
      await sm.putAccount(address(1), new Account(BigInt(n), 10n ** 18n - BigInt(n)));
      await sm.putAccount(address(2 + (n % 5)), new Account(0n, 10n ** 18n + BigInt(n)));
      await sm.putStorage(contract, slot(n % 50), new Uint8Array([0xee, n]));
      await sm.putStorage(contract, slot(49 - (n % 50)), new Uint8Array(0));
    });
    const inside = await trieWrites(async () => void (await e.state.getStateRoot()));
    assert.ok(inside > 0);
    return inside;
  };
  await block(1);
  await both((sm) => sm.commit());
  assert.equal(await trieWrites(async () => void (await e.state.getStateRoot())), 0, "the committed block's writes are not made again");
  await rootsAgree('after block 1');

  // A block given up after its state root was asked for: the revert undoes it, and the next
  // flush finds the state as before.
  const before = await e.state.getStateRoot();
  await block(2);
  await both((sm) => sm.revert());
  assert.equal(bytesToHex(await e.state.getStateRoot()), bytesToHex(before), 'the reverted block left nothing');
  assert.equal(bytesToHex(await e.state.getStorage(contract, slot(2))), '0x03');
  await rootsAgree('after block 2 was reverted');

  // Blocks inside an outer checkpoint (a snapshot's), each flushed inside its own and again after.
  await both((sm) => sm.checkpoint());
  for (let n = 3; n < 9; n++) {
    await block(n);
    await both((sm) => sm.commit());
    await rootsAgree(`after block ${n}`);
  }
  await both((sm) => sm.revert());
  assert.equal(bytesToHex(await e.state.getStateRoot()), bytesToHex(before), 'the outer revert undid every block');
  await rootsAgree('after the outer revert');
  assert.notEqual(bytesToHex(before), bytesToHex(start));
});
