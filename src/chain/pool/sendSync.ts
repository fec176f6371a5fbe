/**
 * EIP-7966 `eth_sendRawTransactionSync` / `eth_sendTransactionSync`: submit, then wait for the
 * transaction's block and answer its receipt. Timeout as anvil 1.7.1 has it: in milliseconds,
 * 30 s when absent or 0, and no more than 30 s (a larger value is lowered to it). Past it the
 * answer is error 4 "Transaction confirmation timeout" with the transaction hash as `data` (the
 * transaction stays in the pool). With automine the block exists before the submit returns;
 * with interval or manual mining the wait lasts until a block takes it. A transaction that
 * leaves the pool unmined (dropped, replaced, reset) ends the wait at once with -32000 naming why,
 * where anvil would wait out the timeout.
 */
import type { EventEmitter } from 'node:events';
import { bytesToHex } from '@ethereumjs/util';
import { ChainError } from '../core/errors.js';
import type { BlockStore } from '../head/store.js';
import type { MinedTx, TxRequest } from '../core/types.js';
import type { NodeEvents } from './events.js';
import type { Intake } from './intake.js';

/** anvil's default and ceiling of the wait. */
export const SYNC_TIMEOUT_MS = 30_000;

/** EIP-7966 / anvil: the timeout's error code. */
export const SYNC_TIMEOUT_CODE = 4;

export function syncTimeout(ms: number | undefined): number {
  return ms === undefined || ms === 0 ? SYNC_TIMEOUT_MS : Math.min(ms, SYNC_TIMEOUT_MS);
}

interface SyncParts {
  readonly store: BlockStore;
  readonly events: EventEmitter<NodeEvents>;
  readonly intake: Intake;
}

export async function sendRawTransactionSync(n: SyncParts, raw: Uint8Array, timeoutMs?: number): Promise<MinedTx> {
  return included(n, await n.intake.sendRawTransaction(raw), syncTimeout(timeoutMs));
}

export async function sendTransactionSync(n: SyncParts, req: TxRequest, timeoutMs?: number): Promise<MinedTx> {
  return included(n, await n.intake.sendTransaction(req), syncTimeout(timeoutMs));
}

/** The mined transaction `hash` once a block holds it. */
function included(n: SyncParts, hash: Uint8Array, timeoutMs: number): Promise<MinedTx> {
  const hashHex = bytesToHex(hash);
  const mined = n.store.tx(hashHex);
  if (mined) return Promise.resolve(mined);
  return new Promise<MinedTx>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      n.events.off('block', onBlock);
      n.events.off('dropped', onDropped);
    };
    const onBlock = () => {
      const t = n.store.tx(hashHex);
      if (t === undefined) return;
      done();
      resolve(t);
    };
    const onDropped = (p: { hashHex: string }, reason: string) => {
      if (p.hashHex !== hashHex) return;
      done();
      reject(new ChainError(`transaction ${hashHex} left the pool without being mined (${reason})`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new ChainError('Transaction confirmation timeout', hash, SYNC_TIMEOUT_CODE));
    }, timeoutMs);
    n.events.on('block', onBlock);
    n.events.on('dropped', onDropped);
  });
}
