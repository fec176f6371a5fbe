/**
 * txpool_* methods: what waits in the pool, in geth's shapes. Senders are keyed by checksummed
 * address, transactions by their nonce as a decimal string; `pending` holds the executable ones,
 * `queued` those behind a nonce gap.
 */
import { toChecksumAddress } from '@ethereumjs/util';
import type { PendingTx } from '../../chain/pool/txpool.js';
import type { PoolReads } from '../../chain/api.js';
import type { PoolContent } from '../../chain/pool/txpool.js';
import { feeCap } from '../../chain/fees/rules.js';
import { qty } from '../../format/hex.js';
import { formatTx, PENDING } from '../../format/tx.js';
import { address } from '../codecs.js';
import { method, type MethodDef } from '../registry.js';

type ByNonce<T> = Record<string, T>;

const pendingTx = (p: PendingTx): object => formatTx(p.tx, p.from, p.hashHex, PENDING);

/** geth's one-line summary: `0x…: 1 wei + 21000 gas × 1000000000 wei` (fee cap for EIP-1559). */
export function inspectLine(p: PendingTx): string {
  const to = p.tx.to ? toChecksumAddress(p.tx.to.toString()) : 'contract creation';
  return `${to}: ${p.tx.value} wei + ${p.tx.gasLimit} gas × ${feeCap(p.tx)} wei`;
}

function byNonce<T>(txs: PendingTx[], f: (p: PendingTx) => T): ByNonce<T> {
  const out: ByNonce<T> = {};
  for (const p of txs) out[p.tx.nonce.toString()] = f(p);
  return out;
}

function bySender<T>(group: Map<string, PendingTx[]>, f: (p: PendingTx) => T): Record<string, ByNonce<T>> {
  const out: Record<string, ByNonce<T>> = {};
  for (const [sender, txs] of group) out[toChecksumAddress(sender)] = byNonce(txs, f);
  return out;
}

function count(group: PoolContent['pending']): number {
  let n = 0;
  for (const txs of group.values()) n += txs.length;
  return n;
}

export function txpoolMethods(pool: PoolReads): MethodDef[] {
  return [
    /** Number of pending and queued transactions: `{pending: "0x1", queued: "0x0"}`. */
    method('txpool_status', [], async () => {
      const c = await pool.poolContent();
      return { pending: qty(count(c.pending)), queued: qty(count(c.queued)) };
    }),
    /** Every pooled transaction: `{pending: {sender: {nonce: tx}}, queued: {…}}`. */
    method('txpool_content', [], async () => {
      const c = await pool.poolContent();
      return { pending: bySender(c.pending, pendingTx), queued: bySender(c.queued, pendingTx) };
    }),
    /** One sender's pooled transactions: `{pending: {nonce: tx}, queued: {nonce: tx}}`. */
    method('txpool_contentFrom', [address], async (from) => {
      const c = await pool.poolContent();
      const key = from.toString();
      return { pending: byNonce(c.pending.get(key) ?? [], pendingTx), queued: byNonce(c.queued.get(key) ?? [], pendingTx) };
    }),
    /** Like txpool_content, with each transaction summarised as `to: value wei + gas gas × price wei`. */
    method('txpool_inspect', [], async () => {
      const c = await pool.poolContent();
      return { pending: bySender(c.pending, inspectLine), queued: bySender(c.queued, inspectLine) };
    }),
  ];
}
