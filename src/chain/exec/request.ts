/** Turning a caller's transaction request into an ethereumjs transaction. */
import type { Common } from '@ethereumjs/common';
import { createTx, TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { concatBytes, type Address } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { txCommon } from '../engine/common.js';
import type { TxRequest } from '../core/types.js';
import { ChainError } from '../core/errors.js';
import { checkInitCodeSize } from './rejections.js';

/** Pick the transaction type a request describes, as geth does (before London an access list makes type 1). */
export function requestType(req: TxRequest, common?: Common): number {
  if (req.type !== undefined) return req.type;
  if (req.authorizationList !== undefined) return TransactionType.EOACodeEIP7702;
  if (req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined) return TransactionType.FeeMarketEIP1559;
  if (req.accessList !== undefined) return req.gasPrice !== undefined || common?.isActivatedEIP(1559) === false ? TransactionType.AccessListEIP2930 : TransactionType.FeeMarketEIP1559;
  return TransactionType.Legacy;
}

/** The EIP that brings each transaction type in (berlin, london, cancun, prague). */
const TYPE_EIP: Record<number, number> = { 1: 2930, 2: 1559, 3: 4844, 4: 7702 };

/** Whether the rules of `common` know transactions of `type` (geth refuses the others). */
export function knowsTxType(common: Common, type: number): boolean {
  return type === TransactionType.Legacy || (TYPE_EIP[type] !== undefined && common.isActivatedEIP(TYPE_EIP[type]));
}

/**
 * A request the rules of `common` cannot carry, refused in geth's words: fee-market fields before
 * London, any other type before its fork.
 */
export function checkRequestType(req: TxRequest, common: Common): void {
  if (common.isActivatedEIP(1559)) {
    const type = requestType(req, common);
    if (!knowsTxType(common, type)) throw new ChainError(`transaction type not supported: type ${type}`);
    return;
  }
  if (req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined) throw new ChainError('maxFeePerGas and maxPriorityFeePerGas are not valid before London is active');
  const type = requestType(req, common);
  if (!knowsTxType(common, type)) throw new ChainError(`transaction type not supported: type ${type}`);
}

/**
 * Build an unsigned transaction from a fully filled request. Its gas limit may exceed EIP-7825's
 * cap: a call may run past it, and a transaction is refused by the node's own check (txCommon).
 */
export function unsignedTx(req: TxRequest, common: Common, freeze = true): TypedTransaction {
  checkInitCodeSize(common, req.to, req.data);
  checkRequestType(req, common);
  const type = requestType(req, common);
  const accessList = req.accessList?.map((e) => ({ address: e.address.toString(), storageKeys: e.storageKeys.map(hex) }));
  return createTx(
    {
      type,
      nonce: req.nonce ?? 0n,
      gasLimit: req.gas ?? 0n,
      to: req.to,
      value: req.value ?? 0n,
      data: req.data ?? new Uint8Array(),
      gasPrice: type < 2 ? (req.gasPrice ?? 0n) : undefined,
      maxFeePerGas: type >= 2 ? (req.maxFeePerGas ?? req.gasPrice ?? 0n) : undefined,
      maxPriorityFeePerGas: type >= 2 ? (req.maxPriorityFeePerGas ?? 0n) : undefined,
      accessList: type >= 1 ? (accessList ?? []) : undefined,
      authorizationList:
        type === TransactionType.EOACodeEIP7702
          ? (req.authorizationList ?? []).map((a) => ({
              chainId: q(a.chainId),
              address: a.address.toString(),
              nonce: q(a.nonce),
              yParity: q(a.yParity),
              r: q(a.r),
              s: q(a.s),
            }))
          : undefined,
      chainId: type >= 1 ? common.chainId() : undefined,
    } as never,
    { common: txCommon(common), freeze },
  ) as TypedTransaction;
}

/**
 * A transaction that claims `from` without a signature: for calls, estimates, traces and
 * impersonated senders. Its hash is derived from the signing payload and the sender.
 */
export function withFakeSender(req: TxRequest, common: Common, from: Address): TypedTransaction {
  const tx = unsignedTx(req, common, false) as TypedTransaction & Record<string, unknown>;
  // Computed on first use: calls and estimates never ask for it (hashing large calldata costs).
  let hash: Uint8Array | undefined;
  tx.getSenderAddress = () => from;
  tx.isSigned = () => true;
  tx.hash = () => (hash ??= keccak_256(concatBytes(tx.getHashedMessageToSign(), from.bytes)));
  tx.verifySignature = () => true;
  return tx;
}

const hex = (b: Uint8Array): `0x${string}` => ('0x' + Buffer.from(b).toString('hex')) as `0x${string}`;
const q = (n: bigint): `0x${string}` => `0x${n.toString(16)}`;

/** Give an unsigned transaction the sender and hash it was sent with (state files, restored pools). */
export function withRecordedSender(tx: TypedTransaction, from: Address, hash: Uint8Array): TypedTransaction {
  const t = tx as TypedTransaction & Record<string, unknown>;
  t.getSenderAddress = () => from;
  t.isSigned = () => true;
  t.hash = () => hash;
  t.verifySignature = () => true;
  return t;
}
