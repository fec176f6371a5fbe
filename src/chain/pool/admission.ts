/** Decoding and admission checks for incoming transactions, with geth's error messages. */
import type { Common } from '@ethereumjs/common';
import { Capability, TransactionType, createTxFromRLP, isBlob4844Tx, type TypedTransaction } from '@ethereumjs/tx';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, type Address } from '@ethereumjs/util';
import type { BlobSidecar } from '../core/types.js';
import { blobGasOf, checkBlobSidecar, splitBlobTx, type SplitBlobTx } from './blobs.js';
import { txCommon } from '../engine/common.js';
import { ChainError } from '../core/errors.js';
import { checkInitCodeSize } from '../exec/rejections.js';
import { knowsTxType } from '../exec/request.js';
import { feeCap } from '../fees/rules.js';

const TYPED = new Set<number>([TransactionType.AccessListEIP2930, TransactionType.FeeMarketEIP1559, TransactionType.BlobEIP4844, TransactionType.EOACodeEIP7702]);

/** The chain id a raw transaction is signed for (undefined: a legacy transaction without EIP-155). */
function signedChainId(raw: Uint8Array): bigint | undefined {
  const typed = raw[0]! <= 0x7f;
  const fields = RLP.decode(typed ? raw.subarray(1) : raw);
  if (!Array.isArray(fields)) throw new Error('not a list');
  const at = fields[typed ? 0 : 6];
  if (!(at instanceof Uint8Array)) throw new Error('bad field');
  const n = bytesToBigInt(at);
  if (typed) return n;
  return n >= 35n ? (n - 35n) / 2n : undefined;
}

/** Decode a signed raw transaction for this chain (a blob transaction's sidecar checked and left out). */
export function decodeRawTx(raw: Uint8Array, common: Common): TypedTransaction {
  return decodeRaw(raw, common).tx;
}

/**
 * Decode a signed raw transaction for this chain, with a blob transaction's sidecar checked as
 * geth's pool checks it (blobs.ts; a version-0 sidecar at Osaka converted to version 1 first, as
 * geth's eth_sendRawTransaction converts it). The type byte and the signed chain id are read before
 * ethereumjs decodes, so each refusal has its own kind and wording.
 */
export function decodeRaw(raw: Uint8Array, common: Common): { tx: TypedTransaction; sidecar?: BlobSidecar } {
  if (raw.length === 0) throw new ChainError('typed transaction too short');
  const type = raw[0]! <= 0x7f ? raw[0]! : TransactionType.Legacy;
  if (type !== TransactionType.Legacy && (!TYPED.has(type) || !knowsTxType(common, type))) {
    throw new ChainError(`transaction type not supported: type ${type}`);
  }
  let blob: SplitBlobTx | undefined;
  if (type === TransactionType.BlobEIP4844) {
    if (!common.isActivatedEIP(4844)) throw new ChainError(`transaction type not supported: type ${type} rejected, pool not yet in Cancun`);
    blob = splitBlobTx(raw);
    raw = blob.canonical;
  }
  let chainId: bigint | undefined;
  try {
    chainId = signedChainId(raw);
  } catch {
    throw new ChainError('invalid transaction: rlp: not a transaction');
  }
  if (chainId !== undefined && chainId !== common.chainId()) throw new ChainError('invalid chain id for signer');
  // Before the transaction is built: ethereumjs refuses too many or no blobs in its own words.
  // A version-0 sidecar at Osaka and later comes back converted to version 1, as geth converts it.
  const sidecar = blob ? checkBlobSidecar(common, blob.hashes, blob.maxFeePerBlobGas, blob.sidecar, true) : undefined;
  let tx: TypedTransaction;
  try {
    // The init code size is checked below, so its refusal is told as such; EIP-7825's cap is
    // checked on admission (see txCommon).
    tx = createTxFromRLP(raw, { common: txCommon(common), allowUnlimitedInitCodeSize: true });
  } catch (err) {
    throw new ChainError(`invalid transaction: ${firstLine(err instanceof Error ? err.message : String(err))}`);
  }
  checkInitCodeSize(common, tx.to, tx.data);
  return sidecar ? { tx, sidecar } : { tx };
}

/** Recover and return the signer once; a bad signature is a clear error. */
export function recoverSender(tx: TypedTransaction): Address {
  try {
    return tx.getSenderAddress();
  } catch {
    throw new ChainError('invalid sender: signature does not recover to an address');
  }
}

/**
 * The signers of the signed transactions seen lately, by transaction hash. A suite that reverts to
 * a fixture before each test sends the same signed bytes again (signatures are deterministic and
 * the nonce is the fixture's), and recovering the signer is ~50 µs of ECDSA each time. The hash
 * covers every signed field and the signature, so it names one signer; only signatures that
 * recovered are kept.
 */
export class RecentSenders {
  private readonly keys = new Map<string, Uint8Array>();

  constructor(private readonly max = 1024) {}

  /** The signer of `tx` (whose hash is `hashHex`), recovered once per hash while it stays recent. */
  recover(tx: TypedTransaction, hashHex: string): Address {
    const known = this.keys.get(hashHex);
    if (known !== undefined) {
      tx.cache.senderPubKey = known;
      return recoverSender(tx);
    }
    const from = recoverSender(tx);
    if (this.keys.size >= this.max) this.keys.delete(this.keys.keys().next().value!);
    this.keys.set(hashHex, tx.getSenderPublicKey());
    return from;
  }
}

export interface AdmissionState {
  nonce: bigint;
  balance: bigint;
  baseFee: bigint | undefined;
  blockGasLimit: bigint;
  /** EIP-7825's cap on a transaction's gas (Osaka on); undefined before. */
  txGasCap: bigint | undefined;
  /** The next block's blob base fee (read only for blob transactions). */
  blobBaseFee: () => bigint;
}

/**
 * Stateless and state checks before a transaction may enter a block, in geth's order and words.
 * Returns 'future' for a nonce above the account's (the pool decides what to do with it).
 */
export function checkAdmission(tx: TypedTransaction, from: Address, s: AdmissionState): 'ready' | 'future' {
  const who = from.toString();
  if (s.txGasCap !== undefined && tx.gasLimit > s.txGasCap) throw gasLimitTooHigh(tx.gasLimit, s.txGasCap);
  if (tx.gasLimit > s.blockGasLimit) throw new ChainError(`exceeds block gas limit: tx gas ${tx.gasLimit}, block gas limit ${s.blockGasLimit}`);
  if ('maxFeePerGas' in tx && tx.maxPriorityFeePerGas > tx.maxFeePerGas) {
    throw new ChainError(`max priority fee per gas higher than max fee per gas: address ${who}, maxPriorityFeePerGas: ${tx.maxPriorityFeePerGas}, maxFeePerGas: ${tx.maxFeePerGas}`);
  }
  const intrinsic = tx.getIntrinsicGas();
  if (tx.gasLimit < intrinsic) throw new ChainError(`intrinsic gas too low: have ${tx.gasLimit}, want ${intrinsic}`);
  if (tx.supports(Capability.EIP7702EOACode) && 'authorizationList' in tx && (tx.authorizationList as unknown[]).length === 0) {
    throw new ChainError('EIP-7702 transaction with empty auth list');
  }
  if (tx.nonce < s.nonce) throw new ChainError(`nonce too low: address ${who}, tx: ${tx.nonce} state: ${s.nonce}`);
  if (s.baseFee !== undefined && feeCap(tx) < s.baseFee) {
    throw new ChainError(`max fee per gas less than block base fee: address ${who}, maxFeePerGas: ${feeCap(tx)}, baseFee: ${s.baseFee}`);
  }
  let cost = tx.gasLimit * feeCap(tx) + tx.value;
  if (isBlob4844Tx(tx)) {
    const blobFee = s.blobBaseFee();
    if (tx.maxFeePerBlobGas < blobFee) {
      throw new ChainError(`max fee per blob gas less than block blob gas fee: address ${who}, maxFeePerBlobGas: ${tx.maxFeePerBlobGas}, blobBaseFee: ${blobFee}`);
    }
    cost += blobGasOf(tx.common, tx.numBlobs()) * tx.maxFeePerBlobGas;
  }
  if (s.balance < cost) {
    throw new ChainError(`insufficient funds for gas * price + value: address ${who} have ${s.balance} want ${cost}`);
  }
  return tx.nonce > s.nonce ? 'future' : 'ready';
}

/** geth's refusal of a transaction over EIP-7825's cap. */
export function gasLimitTooHigh(gas: bigint, cap: bigint): ChainError {
  return new ChainError(`transaction gas limit too high (cap: ${cap}, tx: ${gas})`);
}

function firstLine(msg: string): string {
  return msg.split('\n')[0].replace(/\s*\(tx type=.*$/, '');
}

