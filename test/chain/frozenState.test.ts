/**
 * The state at a fixed root (src/chain/engine/frozenState.ts), read without the live state manager:
 * accounts, storage and code stay those of the root while the live state moves on, and equal what
 * the live state manager gave at that root.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account, bytesToHex, createAccountFromRLP, hexToBytes } from '@ethereumjs/util';
import { makeCommon } from '../../src/chain/engine/common.js';
import { createEngine, type Engine } from '../../src/chain/engine/engine.js';
import { frozenState, type FrozenState } from '../../src/chain/engine/frozenState.js';
import { NO_HISTORY, address, slot } from '../support/engine.js';

const CONTRACT = address(0xc0de);

/** Every account under the frozen root: hashed key (hex) → account. */
async function accountsOf(f: FrozenState): Promise<Map<string, Account>> {
  const out = new Map<string, Account>();
  await f.eachAccount((key, rlp) => void out.set(key, createAccountFromRLP(hexToBytes(rlp as `0x${string}`))), () => undefined);
  return out;
}

async function engine(): Promise<Engine> {
  const e = await createEngine(makeCommon(984n, 'prague'), NO_HISTORY, { cacheSize: 1_000 });
  for (let i = 1; i <= 30; i++) await e.state.putAccount(address(i), new Account(BigInt(i), 10n ** 18n * BigInt(i)));
  await e.state.putCode(CONTRACT, hexToBytes('0x600160005500'));
  await e.state.putStorage(CONTRACT, slot(1), new Uint8Array([7]));
  await e.state.putStorage(CONTRACT, slot(2), new Uint8Array([9]));
  return e;
}

test('the frozen state keeps the root it was taken at while the live state changes', async () => {
  const e = await engine();
  const root = await e.state.getStateRoot();
  const storageThen = await e.state.dumpStorage(CONTRACT);
  const contractThen = (await e.state.getAccount(CONTRACT))!;
  const frozen = frozenState(e.state, e.stateTrie, root);

  // The live state moves on: balances, a new account, a slot changed and one added, new code.
  await e.state.putAccount(address(1), new Account(5n, 1n));
  await e.state.putAccount(address(99), new Account(0n, 2n));
  await e.state.putStorage(CONTRACT, slot(1), new Uint8Array([8]));
  await e.state.putStorage(CONTRACT, slot(3), new Uint8Array([1]));
  await e.state.putCode(CONTRACT, hexToBytes('0x60026000f3'));
  const later = await e.state.getStateRoot();
  assert.notDeepEqual(later, root);

  const accounts = await accountsOf(frozen);
  assert.equal(accounts.size, 31, '30 funded accounts and the contract, not the account added later');
  const one = [...accounts.values()].find((a) => a.nonce === 1n)!;
  assert.equal(one.balance, 10n ** 18n, 'account 1 as it was at the root');
  const contract = [...accounts.values()].find((a) => a.isContract())!;
  assert.deepEqual(contract.storageRoot, contractThen.storageRoot);
  assert.deepEqual(await frozen.storage(contract.storageRoot), storageThen);
  assert.equal(bytesToHex(await frozen.code(contract.codeHash)), '0x600160005500');

  // The live state manager sees the new state meanwhile.
  assert.equal(Object.keys(await e.state.dumpStorage(CONTRACT)).length, 3);
  assert.equal(bytesToHex(await e.state.getCode(CONTRACT)), '0x60026000f3');
});

test('code the store does not hold is an error, not empty code', async () => {
  const e = await engine();
  const frozen = frozenState(e.state, e.stateTrie, await e.state.getStateRoot());
  await assert.rejects(frozen.code(new Uint8Array(32).fill(0xab)));
});

test('the accounts changed since an earlier root: added and changed ones told, removed ones gone', async () => {
  const e = await engine();
  const before = await e.state.getStateRoot();
  const then = await accountsOf(frozenState(e.state, e.stateTrie, before));
  await e.state.putAccount(address(1), new Account(5n, 1n));
  await e.state.putAccount(address(99), new Account(0n, 2n));
  await e.state.deleteAccount(address(7));
  await e.state.putStorage(CONTRACT, slot(3), new Uint8Array([1]));
  const now = frozenState(e.state, e.stateTrie, await e.state.getStateRoot());
  const all = await accountsOf(now);

  const told = new Map<string, string>();
  const gone: string[] = [];
  let paced = 0;
  await now.changedAccounts(before, (k, rlp) => void told.set(k, rlp), (k) => void gone.push(k), () => void paced++);
  assert.ok(paced > 0, 'the walk paces itself');
  // What changed is told (an unchanged account may be told too, where the trie's shape changed).
  const changed = [...all.keys()].filter((k) => !then.has(k) || !then.get(k)!.serialize().every((b, i) => b === all.get(k)!.serialize()[i]));
  assert.equal(changed.length, 3, 'account 1, account 99 and the contract');
  for (const k of changed) assert.equal(told.get(k), bytesToHex(all.get(k)!.serialize()));
  for (const [k, rlp] of told) assert.equal(rlp, bytesToHex(all.get(k)!.serialize()), 'told as they are now');
  assert.deepEqual(gone, [...then.keys()].filter((k) => !all.has(k)), 'account 7');
  assert.equal(gone.length, 1);
  assert.ok(told.size < all.size, 'not every account');

  // Applying what was told to the earlier accounts gives the accounts now.
  const applied = new Map<string, string>([...then].map(([k, a]) => [k, bytesToHex(a.serialize())]));
  for (const [k, rlp] of told) applied.set(k, rlp);
  for (const k of gone) applied.delete(k);
  assert.deepEqual(new Map([...applied].sort()), new Map([...all].map(([k, a]) => [k, bytesToHex(a.serialize())] as const).sort()));

  // Against the same root, nothing.
  let calls = 0;
  await now.changedAccounts(await e.state.getStateRoot(), () => void calls++, () => void calls++, () => undefined);
  assert.equal(calls, 0);
});

test('a root whose nodes the store lacks is an error, not an empty state', async () => {
  const e = await engine();
  const missing = new Uint8Array(32).fill(0xcd);
  const frozen = frozenState(e.state, e.stateTrie, missing);
  await assert.rejects(frozen.eachAccount(() => undefined, () => undefined));
  await assert.rejects(frozen.storage(missing));
  const live = frozenState(e.state, e.stateTrie, await e.state.getStateRoot());
  await assert.rejects(live.changedAccounts(missing, () => undefined, () => undefined, () => undefined));
});

test('changes told over many random edits, applied one root after another, give every root exactly', async () => {
  const e = await createEngine(makeCommon(984n, 'prague'), NO_HISTORY, { cacheSize: 1_000 });
  let seed = 12345;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const known = new Map<string, string>();
  let root = await e.state.getStateRoot();
  let goneTold = 0;
  for (let round = 0; round < 40; round++) {
    // A few edits or many: new accounts, changed ones, deleted ones (the trie's shape changes).
    const edits = round % 5 === 0 ? 150 : 1 + rand(8);
    for (let i = 0; i < edits; i++) {
      const who = address(1 + rand(120));
      if (rand(3) === 0) await e.state.deleteAccount(who);
      else await e.state.putAccount(who, new Account(BigInt(rand(5)), BigInt(1 + rand(1000))));
    }
    const next = await e.state.getStateRoot();
    const frozen = frozenState(e.state, e.stateTrie, next);
    await frozen.changedAccounts(root, (k, rlp) => void known.set(k, rlp), (k) => void (goneTold++, assert.ok(known.delete(k), `round ${round}: a gone account was there`)), () => undefined);
    const all = new Map<string, string>();
    await frozen.eachAccount((k, rlp) => void all.set(k, rlp), () => undefined);
    assert.deepEqual(new Map([...known].sort()), new Map([...all].sort()), `round ${round}`);
    root = next;
  }
  assert.ok(goneTold > 20, `${goneTold} accounts told gone`);
});
