/**
 * The state at a fixed root (src/chain/engine/frozenState.ts), read without the live state manager:
 * accounts, storage and code stay those of the root while the live state moves on, and equal what
 * the live state manager gave at that root.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LeafMPTNode, nibblesToBytes } from '@ethereumjs/mpt';
import { Account, bytesToHex, createAccountFromRLP, hexToBytes } from '@ethereumjs/util';
import { makeCommon } from '../../src/chain/engine/common.js';
import { createEngine, type Engine } from '../../src/chain/engine/engine.js';
import { frozenState, type FrozenState } from '../../src/chain/engine/frozenState.js';
import { NO_HISTORY, address, slot } from '../support/engine.js';

const CONTRACT = address(0xc0de);

/** Every account under the frozen root: hashed key (hex) → account. */
async function accountsOf(f: FrozenState): Promise<Map<string, Account>> {
  const out = new Map<string, Account>();
  await f.accounts.walkAllValueNodes(async (node, key) => {
    if (node instanceof LeafMPTNode) out.set(bytesToHex(nibblesToBytes(Uint8Array.from([...key, ...node.key()]))), createAccountFromRLP(node.value()!));
  });
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
