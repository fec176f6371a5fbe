/**
 * Reads kept as reads (src/chain/engine/cacheReads.ts): accounts, slots and code read from the
 * trie are cached without being noted as changed, so a flush writes nothing back for them; what
 * is written still reaches the trie, and checkpoint reverts and state-root changes give back
 * exactly what the state held, with either kind of cache the engine uses.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { makeCommon } from '../../src/chain/engine/common.js';
import { createEngine, type Engine } from '../../src/chain/engine/engine.js';
import { NO_HISTORY, address, countWrites, slot } from '../support/engine.js';

const CONTRACT = address(0xc0de);
const CODE = hexToBytes('0x600160005500');

/** An engine holding 20 funded accounts and a contract with code and two slots, flushed. */
async function engine(cacheSize: number | 'unbounded'): Promise<Engine> {
  const e = await createEngine(makeCommon(984n, 'prague'), NO_HISTORY, { cacheSize });
  for (let i = 1; i <= 20; i++) await e.state.putAccount(address(i), new Account(BigInt(i), 10n ** 18n * BigInt(i)));
  await e.state.putCode(CONTRACT, CODE);
  await e.state.putStorage(CONTRACT, slot(1), new Uint8Array([7]));
  await e.state.putStorage(CONTRACT, slot(2), new Uint8Array([9]));
  await e.state.getStateRoot();
  return e;
}

/** Count the state and storage tries' writes while `fn` runs. */
const trieWrites = (e: Engine, fn: () => Promise<void>): Promise<number> => countWrites(Object.getPrototypeOf(e.stateTrie) as object, fn);

for (const cacheSize of [100_000, 'unbounded'] as const) {
  test(`reads write nothing back into the trie; writes do (${cacheSize} caches)`, async () => {
    const e = await engine(cacheSize);
    const root = await e.state.getStateRoot();
    // A fresh view of the same root: every read below misses the caches and goes to the trie.
    await e.state.setStateRoot(root);
    const writes = await trieWrites(e, async () => {
      assert.equal((await e.state.getAccount(address(3)))?.nonce, 3n);
      assert.equal(await e.state.getAccount(address(999)), undefined);
      assert.deepEqual(await e.state.getStorage(CONTRACT, slot(1)), new Uint8Array([7]));
      assert.deepEqual(await e.state.getStorage(CONTRACT, slot(5)), new Uint8Array());
      assert.deepEqual(await e.state.getCode(CONTRACT), CODE);
      assert.deepEqual(await e.state.getCode(address(999)), new Uint8Array());
      assert.deepEqual(await e.state.getStateRoot(), root);
    });
    assert.equal(writes, 0);
    // A write after a read of the same key still reaches the trie.
    const changed = await trieWrites(e, async () => {
      await e.state.putAccount(address(3), new Account(4n, 1n));
      await e.state.putStorage(CONTRACT, slot(1), new Uint8Array([8]));
      assert.notDeepEqual(await e.state.getStateRoot(), root);
    });
    assert.ok(changed >= 2);
    await e.state.setStateRoot(root);
    assert.equal((await e.state.getAccount(address(3)))?.nonce, 3n);
    assert.deepEqual(await e.state.getStorage(CONTRACT, slot(1)), new Uint8Array([7]));
  });

  test(`checkpoints: reverts give back what was read and what was written (${cacheSize} caches)`, async () => {
    const e = await engine(cacheSize);
    const root = await e.state.getStateRoot();
    await e.state.setStateRoot(root);
    await e.state.checkpoint();
    // Read inside the checkpoint, then written; another only read; a slot read and one written.
    assert.equal((await e.state.getAccount(address(5)))?.balance, 5n * 10n ** 18n);
    await e.state.putAccount(address(5), new Account(6n, 1n));
    assert.equal((await e.state.getAccount(address(6)))?.nonce, 6n);
    assert.deepEqual(await e.state.getStorage(CONTRACT, slot(2)), new Uint8Array([9]));
    await e.state.putStorage(CONTRACT, slot(1), new Uint8Array([1]));
    await e.state.revert();
    assert.equal((await e.state.getAccount(address(5)))?.balance, 5n * 10n ** 18n);
    assert.equal((await e.state.getAccount(address(6)))?.nonce, 6n);
    assert.deepEqual(await e.state.getStorage(CONTRACT, slot(1)), new Uint8Array([7]));
    assert.deepEqual(await e.state.getStorage(CONTRACT, slot(2)), new Uint8Array([9]));
    assert.equal(bytesToHex(await e.state.getStateRoot()), bytesToHex(root));
    // Committed, the write is in the next root; the reads made beside it change nothing.
    await e.state.checkpoint();
    assert.equal((await e.state.getAccount(address(7)))?.nonce, 7n);
    await e.state.putAccount(address(8), new Account(0n, 1n));
    await e.state.commit();
    const next = await e.state.getStateRoot();
    assert.notDeepEqual(next, root);
    await e.state.setStateRoot(root);
    await e.state.putAccount(address(8), new Account(0n, 1n));
    assert.deepEqual(await e.state.getStateRoot(), next);
  });
}
