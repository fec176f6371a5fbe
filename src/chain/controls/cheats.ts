/**
 * Account and pool cheats (anvil_setBalance and friends): direct edits of the live state,
 * without a transaction and without a block. They run under the node's lock, so they apply in the
 * order requested and a snapshot taken before them does not see them.
 */
import { Account, type Address } from '@ethereumjs/util';
import { ChainError } from '../core/errors.js';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { PendingTx, TxPool } from '../pool/txpool.js';

/** What the account cheats need: the live state, edited under the node's lock. */
export interface LiveState {
  /** Run `fn` on the live state under the node's lock, its edits flushed to the trie afterwards. */
  withLiveState<T>(fn: (sm: MerkleStateManager) => Promise<T>): Promise<T>;
}

/** What the pool cheats need: the pool, the `dropped` event, and the node's request order. */
export interface PoolEdits {
  /** Transactions waiting for a block. */
  readonly pool: Pick<TxPool, 'remove' | 'clear'>;
  /** Where a transaction leaving the pool unmined is announced. */
  readonly events: { emit(event: 'dropped', p: PendingTx, reason: string): boolean };
  /** Run `fn` after every operation requested before it. */
  inOrder<T>(fn: () => T | Promise<T>): Promise<T>;
}

async function editAccount(node: LiveState, address: Address, edit: (a: Account) => void): Promise<void> {
  await node.withLiveState(async (sm) => {
    const account = (await sm.getAccount(address)) ?? new Account();
    edit(account);
    await sm.putAccount(address, account);
  });
}

export function setBalance(node: LiveState, address: Address, wei: bigint): Promise<void> {
  return editAccount(node, address, (a) => {
    a.balance = wei;
  });
}

export function addBalance(node: LiveState, address: Address, wei: bigint): Promise<void> {
  return editAccount(node, address, (a) => {
    a.balance += wei;
  });
}

export function setNonce(node: LiveState, address: Address, nonce: bigint): Promise<void> {
  if (nonce >= 1n << 64n) throw new ChainError('nonce must fit in 64 bits', undefined, -32602);
  return editAccount(node, address, (a) => {
    a.nonce = nonce;
  });
}

/** Replace the account's code (empty code removes it). */
export async function setCode(node: LiveState, address: Address, code: Uint8Array): Promise<void> {
  await node.withLiveState(async (sm) => {
    if ((await sm.getAccount(address)) === undefined) await sm.putAccount(address, new Account());
    await sm.putCode(address, code);
  });
}

/** Write one storage slot (`value` of at most 32 bytes, left-padded; zero clears the slot). */
export async function setStorageAt(node: LiveState, address: Address, slot: Uint8Array, value: Uint8Array): Promise<void> {
  await node.withLiveState(async (sm) => {
    if ((await sm.getAccount(address)) === undefined) await sm.putAccount(address, new Account());
    await sm.putStorage(address, slot, value);
  });
}

/** Remove a transaction from the pool; returns it, or undefined when the pool does not hold it. */
export async function dropTransaction(node: PoolEdits, hashHex: string): Promise<PendingTx | undefined> {
  return node.inOrder(() => {
    const p = node.pool.remove(hashHex);
    if (p) node.events.emit('dropped', p, 'dropped by anvil_dropTransaction');
    return p;
  });
}

/** Empty the pool; returns how many transactions were dropped. */
export async function dropAllTransactions(node: PoolEdits): Promise<number> {
  return node.inOrder(() => {
    const all = node.pool.clear();
    for (const p of all) node.events.emit('dropped', p, 'dropped by anvil_dropAllTransactions');
    return all.length;
  });
}
