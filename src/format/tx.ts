/** Transactions as eth_getTransactionByHash and full blocks show them. */
import { Capability, TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import type { MinedTx } from '../chain/core/types.js';
import { addr, hex, jsonOnce, qty } from './hex.js';

const cache = new WeakMap<MinedTx, object>();

/** Where a transaction sits; all null while pending. */
export interface TxPosition {
  blockHash: string | null;
  blockNumber: string | null;
  blockTimestamp?: string;
  transactionIndex: string | null;
  /** Effective gas price once mined. */
  gasPrice?: bigint;
}

export const PENDING: TxPosition = { blockHash: null, blockNumber: null, transactionIndex: null };

export function formatMinedTx(t: MinedTx): object {
  let out = cache.get(t);
  if (!out) {
    out = formatTx(t.tx, t.from, t.hashHex, {
      blockHash: t.block.hashHex,
      blockNumber: qty(t.block.number),
      blockTimestamp: qty(t.block.block.header.timestamp),
      transactionIndex: qty(t.index),
      gasPrice: t.receipt.effectiveGasPrice,
    });
    cache.set(t, out);
  }
  return out;
}

/** eth_getTransactionByHash's answer for a mined transaction, serialized once (see jsonOnce). */
export const minedTxJson = jsonOnce(formatMinedTx);

export function formatTx(tx: TypedTransaction, from: Address, hashHex: string, at: TxPosition): object {
  const out: Record<string, unknown> = {
    type: qty(tx.type),
    blockHash: at.blockHash,
    blockNumber: at.blockNumber,
  };
  if (at.blockTimestamp !== undefined) out.blockTimestamp = at.blockTimestamp;
  out.transactionIndex = at.transactionIndex;
  out.hash = hashHex;
  out.from = addr(from);
  out.to = tx.to ? addr(tx.to) : null;
  out.nonce = qty(tx.nonce);
  out.value = qty(tx.value);
  out.gas = qty(tx.gasLimit);
  out.input = hex(tx.data);
  if ('maxFeePerGas' in tx) {
    out.gasPrice = qty(at.gasPrice ?? tx.maxFeePerGas);
    out.maxFeePerGas = qty(tx.maxFeePerGas);
    out.maxPriorityFeePerGas = qty(tx.maxPriorityFeePerGas);
  } else {
    out.gasPrice = qty((tx as { gasPrice: bigint }).gasPrice);
  }
  if (tx.type !== TransactionType.Legacy) {
    out.accessList = (tx as { accessList: Array<[Uint8Array, Uint8Array[]]> }).accessList.map(([a, keys]) => ({
      address: hex(a),
      storageKeys: keys.map(hex),
    }));
  }
  if (tx.type === TransactionType.BlobEIP4844) {
    // ethereumjs keeps the versioned hashes as hex text.
    const blob = tx as unknown as { maxFeePerBlobGas: bigint; blobVersionedHashes: string[] };
    out.maxFeePerBlobGas = qty(blob.maxFeePerBlobGas);
    out.blobVersionedHashes = blob.blobVersionedHashes.map((h) => h.toLowerCase());
  }
  if (tx.type === TransactionType.EOACodeEIP7702) {
    out.authorizationList = (tx as unknown as { authorizationList: Uint8Array[][] }).authorizationList.map(([chainId, address, nonce, yParity, r, s]) => ({
      chainId: qty(big(chainId)),
      address: hex(address),
      nonce: qty(big(nonce)),
      yParity: qty(big(yParity)),
      r: qty(big(r)),
      s: qty(big(s)),
    }));
  }
  if (tx.type !== TransactionType.Legacy || tx.supports(Capability.EIP155ReplayProtection)) {
    out.chainId = qty(tx.common.chainId());
  }
  out.v = qty(tx.v ?? 0n);
  out.r = qty(tx.r ?? 0n);
  out.s = qty(tx.s ?? 0n);
  if (tx.type !== TransactionType.Legacy) out.yParity = qty(tx.v ?? 0n);
  return out;
}

const big = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt('0x' + Buffer.from(b).toString('hex')));
