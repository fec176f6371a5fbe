/**
 * Why the engine would refuse to run a transaction, decided from the facts before it runs (gas,
 * fees, the sender's account), never from the wording of an ethereumjs message. Every call into
 * ethereumjs's runTx and block builder goes through `runChecked`, so the node acts on a kind (a
 * transaction that no longer fits the block goes back to the pool; estimateGas treats too little
 * gas as a failed attempt) and an upstream rewording changes nothing. What ethereumjs still throws
 * after these checks is kind `engine`: reported with its first line, never interpreted.
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Capability, getCalldataFloorGas, isBlob4844Tx, type TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { txGasCap } from '../engine/common.js';
import { ChainError } from '../core/errors.js';
import { feeCap } from '../fees/rules.js';

export type RejectionKind =
  | 'gas-limit-too-high'
  | 'block-full'
  | 'intrinsic-gas'
  | 'floor-data-gas'
  | 'fee-cap-below-base-fee'
  | 'blob-fee-below-blob-base-fee'
  | 'insufficient-funds'
  | 'nonce-too-low'
  | 'nonce-too-high'
  | 'engine';

/** A transaction the engine refuses to run; `message` is geth's wording. */
export class TxRejected extends ChainError {
  constructor(
    readonly kind: RejectionKind,
    message: string,
  ) {
    super(message);
  }
}

export interface RunChecks {
  /** The block's base fee (undefined before London) and blob gas price (read only for blob transactions). */
  baseFee: bigint | undefined;
  blobGasPrice: () => bigint;
  /** Gas still free in the block being built; unset when the block's limit does not apply. */
  gasLeft?: bigint;
  /** eth_call and friends: the nonce is not checked, and a short balance is topped up by the engine. */
  skipNonce?: boolean;
  skipBalance?: boolean;
  /** eth_call and friends: EIP-7825's cap on a transaction's gas does not apply (geth skips it for calls). */
  skipGasCap?: boolean;
  /**
   * The transaction passed the pool's admission (pool/admission.ts) on this same state just now
   * (an automined send): its intrinsic gas, the sender's nonce and balance were checked there, by
   * the same rules, and are not checked again. What admission does not check the same way (the
   * block's room, the floor data gas, the fees against the block's own rules) still is.
   */
  admitted?: boolean;
}

/** The fee facts of a block whose header exists. */
export function feesOf(header: BlockHeader): Pick<RunChecks, 'baseFee' | 'blobGasPrice'> {
  return { baseFee: header.baseFeePerGas, blobGasPrice: () => header.getBlobGasPrice() };
}

/** The first reason, in about ethereumjs's order of checks, why `tx` from `from` cannot run; undefined if none. */
export async function rejectionOf(vm: VM, tx: TypedTransaction, from: Address, checks: RunChecks): Promise<TxRejected | undefined> {
  const who = from.toString();
  const gasCap = checks.skipGasCap ? undefined : txGasCap(vm.common);
  if (gasCap !== undefined && tx.gasLimit > gasCap) return new TxRejected('gas-limit-too-high', `transaction gas limit too high (cap: ${gasCap}, tx: ${tx.gasLimit})`);
  if (checks.gasLeft !== undefined && tx.gasLimit > checks.gasLeft) {
    return new TxRejected('block-full', `gas limit reached: tx gas ${tx.gasLimit}, gas left in block ${checks.gasLeft}`);
  }
  if (!checks.admitted) {
    const intrinsic = tx.getIntrinsicGas();
    if (tx.gasLimit < intrinsic) return new TxRejected('intrinsic-gas', `intrinsic gas too low: have ${tx.gasLimit}, want ${intrinsic}`);
  }
  const floor = getCalldataFloorGas(tx, from);
  if (tx.gasLimit < floor) return new TxRejected('floor-data-gas', `insufficient gas for floor data gas cost: have ${tx.gasLimit}, want ${floor}`);
  const baseFee = checks.baseFee;
  const cap = feeCap(tx);
  if (baseFee !== undefined && cap < baseFee) {
    return new TxRejected('fee-cap-below-base-fee', `max fee per gas less than block base fee: address ${who}, maxFeePerGas: ${cap}, baseFee: ${baseFee}`);
  }
  if (isBlob4844Tx(tx)) {
    const blobFee = checks.blobGasPrice();
    if (tx.maxFeePerBlobGas < blobFee) {
      return new TxRejected('blob-fee-below-blob-base-fee', `max fee per blob gas less than block blob gas fee: address ${who}, maxFeePerBlobGas: ${tx.maxFeePerBlobGas}, blobBaseFee: ${blobFee}`);
    }
  }
  if (checks.admitted) return undefined;
  const account = await vm.stateManager.getAccount(from);
  const balance = account?.balance ?? 0n;
  const nonce = account?.nonce ?? 0n;
  if (!checks.skipBalance) {
    let cost = tx.getUpfrontCost(baseFee ?? 0n);
    if (tx.supports(Capability.EIP1559FeeMarket)) {
      let max = tx.value + tx.gasLimit * cap;
      if (isBlob4844Tx(tx)) max += vm.common.param('blobGasPerBlob') * BigInt(tx.numBlobs()) * tx.maxFeePerBlobGas;
      if (max > cost) cost = max;
    }
    if (balance < cost) return new TxRejected('insufficient-funds', `insufficient funds for gas * price + value: address ${who} have ${balance} want ${cost}`);
  }
  if (!checks.skipNonce && tx.nonce !== nonce) {
    return new TxRejected(tx.nonce < nonce ? 'nonce-too-low' : 'nonce-too-high', `nonce too ${tx.nonce < nonce ? 'low' : 'high'}: address ${who}, tx: ${tx.nonce} state: ${nonce}`);
  }
  return undefined;
}

/**
 * EIP-3860: a creation transaction's data (its init code) within the rules' limit (twice the code
 * size limit; see ChainConfig.codeSizeLimit). Checked before ethereumjs builds the transaction,
 * which would refuse it with an error of no kind; the message is geth's.
 */
export function checkInitCodeSize(common: Common, to: unknown, data: Uint8Array | undefined): void {
  if (to !== undefined || data === undefined || !common.isActivatedEIP(3860)) return;
  const limit = common.param('maxInitCodeSize');
  if (BigInt(data.length) > limit) throw new ChainError(`max initcode size exceeded: code size ${data.length}, limit ${limit}`);
}

/** Anything else ethereumjs throws for a transaction: kind `engine`, its first line as the message. */
export function engineRejection(err: unknown): ChainError {
  if (err instanceof ChainError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new TxRejected('engine', msg.split('\n')[0]!.replace(/\s*\(tx type=.*$/, '').replace(/ \(.*-> .*\)$/, ''));
}

/** Check `tx`, then run it with `run` (runTx or the block builder); every refusal is a TxRejected. */
export async function runChecked<T>(vm: VM, tx: TypedTransaction, from: Address, checks: RunChecks, run: () => Promise<T>): Promise<T> {
  const rejected = await rejectionOf(vm, tx, from, checks);
  if (rejected) throw rejected;
  try {
    return await run();
  } catch (err) {
    throw engineRejection(err);
  }
}
