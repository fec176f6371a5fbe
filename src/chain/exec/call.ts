/**
 * Message execution on a VM without keeping its effects: eth_call, eth_createAccessList (and the
 * runs of eth_estimateGas, estimate.ts). The caller holds the VM exclusively for the duration.
 */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Account, Address, bytesToHex, type PrefixedHexString } from '@ethereumjs/util';
import type { TypedTransaction } from '@ethereumjs/tx';
import { runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import { ChainError, ExecutionError, RevertError } from '../core/errors.js';
import { NodeStateManager } from '../engine/forkState.js';
import { engineRejection, feesOf, runChecked } from './rejections.js';
import { leanCall } from './lean.js';
import { withFakeSender } from './request.js';
import { revertMessage } from './revertData.js';
import { precompilesAfter } from './precompileMoves.js';
import { usePrecompiles } from '../engine/internals.js';
import type { StateOverrides, TxRequest } from '../core/types.js';

export interface CallOutcome {
  result: RunTxResult;
  /** Undefined when the call succeeded; the EVM error name otherwise ("revert", "out of gas", ...). */
  error?: string;
}

export const ZERO_ADDRESS = new Address(new Uint8Array(20));

/** Apply geth-style state overrides on the VM's current (checkpointed) state and precompiles. */
export async function applyOverrides(vm: VM, overrides: StateOverrides | undefined): Promise<void> {
  if (!overrides) return;
  // Moved or overridden precompiles (geth's rules, precompileMoves.ts); `discarding` puts the fork's back.
  const precompiles = precompilesAfter(vm.evm.precompiles, overrides);
  if (precompiles !== undefined) usePrecompiles(vm.evm, precompiles);
  const sm = vm.stateManager;
  for (const [address, o] of overrides) {
    if (o.state && o.stateDiff) throw new ChainError(`account ${address} has both 'state' and 'stateDiff'`, undefined, -32602);
    if (o.balance !== undefined || o.nonce !== undefined) {
      const account = (await sm.getAccount(address)) ?? new Account();
      if (o.balance !== undefined) account.balance = o.balance;
      if (o.nonce !== undefined) account.nonce = o.nonce;
      await sm.putAccount(address, account);
    }
    if (o.code !== undefined) await sm.putCode(address, o.code);
    if (o.state) {
      await sm.clearStorage(address);
      for (const [k, v] of o.state) await sm.putStorage(address, k, v);
    }
    if (o.stateDiff) for (const [k, v] of o.stateDiff) await sm.putStorage(address, k, v);
  }
}

/**
 * Run one transaction of `sender` on the VM, accepting the sender even if it holds code (EIP-3607
 * is not enforced, as in anvil: impersonated contracts send, calls come from contracts).
 */
export function asSender<T>(vm: VM, sender: Address, fn: () => Promise<T>): Promise<T> {
  const sm = vm.stateManager;
  return sm instanceof NodeStateManager ? sm.withCodeSender(sender, fn) : fn();
}

/** A request made ready to run once (see `discarding`): the transaction, its sender, and the run. */
export interface DiscardedRun {
  tx: TypedTransaction;
  from: Address;
  /** Execute the transaction (once); its effects are dropped when `discarding` returns. */
  run(): Promise<RunTxResult>;
}

/**
 * The recipe of a call: on a checkpoint of the VM's state, `prepare` (state overrides), then the
 * request as a transaction of its sender (the sender's nonce unless it names one; without a gas
 * limit the whole block's, as in geth and anvil), balance and nonce unchecked; `use` runs it (a
 * tracer wraps the run with its hooks) and says what to keep; every effect is discarded after.
 */
export async function discarding<T>(
  vm: VM,
  block: Block,
  req: TxRequest,
  use: (r: DiscardedRun) => Promise<T>,
  options: { reportAccessList?: boolean; prepare?: () => Promise<void> } = {},
): Promise<T> {
  await vm.evm.journal.checkpoint();
  try {
    await options.prepare?.();
    const from = req.from ?? ZERO_ADDRESS;
    const nonce = req.nonce ?? ((await vm.stateManager.getAccount(from))?.nonce ?? 0n);
    // A call with versioned hashes and no blob fee cap offers the block's blob gas price (geth
    // skips the check for such calls; ethereumjs's run always makes it).
    const blobFee = req.blobVersionedHashes !== undefined && req.maxFeePerBlobGas === undefined && vm.common.isActivatedEIP(4844) ? block.header.getBlobGasPrice() : req.maxFeePerBlobGas;
    const tx = withFakeSender({ ...req, nonce, gas: req.gas ?? block.header.gasLimit, maxFeePerBlobGas: blobFee }, vm.common as Common, from);
    const run = () =>
      runChecked(vm, tx, from, { ...feesOf(block.header), skipBalance: true, skipNonce: true, skipGasCap: true }, () =>
        asSender(vm, from, () =>
          runTx(vm, {
            tx,
            block,
            skipBalance: true,
            skipNonce: true,
            skipBlockGasLimitValidation: true,
            skipHardForkValidation: true,
            reportAccessList: options.reportAccessList,
          }),
        ),
      );
    return await use({ tx, from, run });
  } finally {
    await vm.evm.journal.revert();
    if (options.prepare !== undefined) usePrecompiles(vm.evm, undefined);
  }
}

/** Run a request once on the VM, discarding every effect (the recipe of `discarding`). */
export function runDiscarded(
  vm: VM,
  block: Block,
  req: TxRequest,
  options: { reportAccessList?: boolean; prepare?: () => Promise<void> } = {},
): Promise<CallOutcome> {
  return discarding(
    vm,
    block,
    req,
    async ({ run }) => {
      const result = await run();
      return { result, error: result.execResult.exceptionError?.error };
    },
    options,
  );
}

/** eth_call: the return data, or a revert / EVM error. Plain calls take the lean path (lean.ts). */
export async function call(vm: VM, block: Block, req: TxRequest, overrides?: StateOverrides): Promise<Uint8Array> {
  const { execResult } =
    (overrides === undefined ? await leanCall(vm, block, { ...req, gas: req.gas ?? block.header.gasLimit }, req.from ?? ZERO_ADDRESS) : undefined) ??
    (await runDiscarded(vm, block, req, { prepare: () => applyOverrides(vm, overrides) }).catch(rethrow)).result;
  const error = execResult.exceptionError?.error;
  if (error) throw executionError(error, execResult.returnValue);
  return execResult.returnValue;
}

/** The JSON-RPC error for a failed execution: reverts carry their data and decoded reason. */
export function executionError(error: string, returnValue: Uint8Array): ExecutionError {
  if (error === 'revert') return new RevertError(revertMessage(returnValue), returnValue);
  return new ExecutionError(error);
}

export interface AccessListResult {
  accessList: Array<{ address: PrefixedHexString; storageKeys: PrefixedHexString[] }>;
  gasUsed: bigint;
  error?: string;
}

/** eth_createAccessList: the storage a request touches, and the gas it uses with that list. */
export async function createAccessList(vm: VM, block: Block, req: TxRequest, precompiles: Set<string>): Promise<AccessListResult> {
  const from = (req.from ?? ZERO_ADDRESS).toString();
  const to = req.to?.toString();
  let list = req.accessList ?? [];
  // Run as the newest type the rules know: before berlin there are no access lists (none is found,
  // as in geth), before london a type 1.
  const type = req.type ?? (vm.common.isActivatedEIP(1559) ? 2 : vm.common.isActivatedEIP(2930) ? 1 : 0);
  for (let round = 0; round < 4; round++) {
    const run = type === 0 ? { ...req, accessList: undefined, type } : { ...req, accessList: list, type };
    const { result, error } = await runDiscarded(vm, block, run, { reportAccessList: true }).catch(rethrow);
    const next = (result.accessList ?? [])
      // As geth: sender, recipient and precompiles are warm anyway; their storage slots still count.
      .filter((e) => e.storageKeys.length > 0 || (e.address !== from && e.address !== to && !precompiles.has(e.address)))
      .map((e) => ({ address: new Address(Buffer.from(e.address.slice(2), 'hex')), storageKeys: e.storageKeys.map((k) => Buffer.from(k.slice(2), 'hex')) }));
    const same = JSON.stringify(next.map(show)) === JSON.stringify(list.map(show));
    if (same || round === 3) {
      const out: AccessListResult = { accessList: next.map(show), gasUsed: result.totalGasSpent };
      if (error) out.error = error === 'revert' ? revertMessage(result.execResult.returnValue) : error;
      return out;
    }
    list = next;
  }
  throw new ChainError('access list did not settle');
}

const show = (e: { address: Address; storageKeys: Uint8Array[] }) => ({
  address: e.address.toString(),
  storageKeys: e.storageKeys.map((k) => bytesToHex(k)),
});

function rethrow(err: unknown): never {
  throw engineRejection(err);
}
