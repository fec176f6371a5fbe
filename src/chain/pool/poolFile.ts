/**
 * The pool in a state file: transactions acknowledged but not yet mined (--block-time,
 * --no-mining) are written with the chain and put back on load, in arrival order.
 */
import { createTxFromRLP } from '@ethereumjs/tx';
import { bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';
import type { PendingTx } from './txpool.js';
import { withRecordedSender } from '../exec/request.js';
import type { TxPool } from './txpool.js';

export interface PoolTxJson {
  hash: string;
  from: string;
  /** The transaction's encoding (without a signature for an impersonated sender). */
  raw: string;
  unsigned?: boolean;
  /** A blob transaction's sidecar: wrapper version, blobs, commitments and proofs as 0x-hex. */
  sidecar?: { version: number; blobs: string[]; commitments: string[]; proofs: string[] };
}

export function dumpPool(pool: TxPool): PoolTxJson[] {
  return pool.all().map((p) => {
    const out: PoolTxJson = { hash: p.hashHex, from: p.from.toString(), raw: bytesToHex(p.tx.serialize()) };
    if (p.tx.v === undefined) out.unsigned = true;
    const sc = p.sidecar;
    if (sc) out.sidecar = { version: sc.version, blobs: sc.blobs.map(bytesToHex), commitments: sc.commitments.map(bytesToHex), proofs: sc.proofs.map(bytesToHex) };
    return out;
  });
}

/** The pool entries of a document, checked: each decodes, and signed ones recover to the recorded sender and hash. */
export function parsePool(value: unknown, common: Common, fail: (m: string) => never): PendingTx[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return fail('"pool" must be an array');
  return value.map((v, i) => {
    const where = `pool[${i}]`;
    if (v === null || typeof v !== 'object') return fail(`${where} must be an object`);
    const o = v as Record<string, unknown>;
    if (typeof o.raw !== 'string' || !/^0x[0-9a-fA-F]+$/.test(o.raw)) return fail(`${where}.raw must be 0x-hex`);
    if (typeof o.hash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(o.hash)) return fail(`${where}.hash must be a 32-byte hash`);
    if (typeof o.from !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(o.from)) return fail(`${where}.from must be an address`);
    const from = createAddressFromString(o.from);
    const hash = hexToBytes(o.hash as `0x${string}`);
    let tx;
    try {
      tx = createTxFromRLP(hexToBytes(o.raw as `0x${string}`), { common });
    } catch (err) {
      return fail(`${where}.raw is not a transaction: ${(err as Error).message.split('\n')[0]}`);
    }
    if (o.unsigned === true) tx = withRecordedSender(tx, from, hash);
    else if (!tx.getSenderAddress().equals(from) || bytesToHex(tx.hash()) !== o.hash.toLowerCase()) return fail(`${where}: the transaction's signature does not match its recorded sender and hash`);
    const ptx: PendingTx = { tx, from, hash, hashHex: bytesToHex(hash) };
    const sc = o.sidecar as PoolTxJson['sidecar'] | undefined;
    if (sc !== undefined) {
      const list = (l: unknown, name: string) => (Array.isArray(l) && l.every((x) => typeof x === 'string' && /^0x([0-9a-fA-F]{2})*$/.test(x)) ? l.map((x) => hexToBytes(x as `0x${string}`)) : fail(`${where}.sidecar.${name} must be a list of 0x-hex`));
      ptx.sidecar = { version: Number(sc.version) === 1 ? 1 : 0, blobs: list(sc.blobs, 'blobs'), commitments: list(sc.commitments, 'commitments'), proofs: list(sc.proofs, 'proofs') };
    }
    return ptx;
  });
}
