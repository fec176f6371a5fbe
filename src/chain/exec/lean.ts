/**
 * The lean read path: eth_call of a plain message call runs through the EVM's own entry point
 * (`evm.runCall`) instead of `runTx`, without building a transaction object, validating fees,
 * or producing receipts, refunds and miner payments that a discarded call never uses.
 *
 * Only a call whose outcome runTx would not change takes it: a recipient, no value, no gas price
 * (so nothing is debited), no access list, authorizations or blobs, gas enough for the intrinsic
 * cost and the calldata floor, and none of the EIPs whose per-transaction bookkeeping only runTx
 * does. Everything else goes through runTx as before. What runTx does that the contract can
 * observe is done here the same way: the same warm addresses (EIP-2929/3651), the sender's nonce
 * bumped (so a sender without an account exists during the call, as under runTx), the same gas
 * handed to the top frame, and the same cleanup afterwards. test/eth/leanCall.test.ts runs both
 * paths on the same requests and compares them.
 *
 * The top frame moves no value, so its two balance updates (sender minus 0, recipient plus 0) would
 * write both accounts back unchanged: with the `evm-lean-top-frame` dependency patch the EVM skips
 * them for this call (engine/internals.ts: withLeanTopFrame; about an eighth of a balanceOf call). Nothing can tell: the sender's account
 * was just written here, a recipient without an account has no code to run and is a precompile or
 * nothing, and the accounts those writes touch only matter to the end-of-transaction cleanup that a
 * discarded call never does.
 */
import type { Block } from '@ethereumjs/block';
import { Account, bytesToUnprefixedHex, type Address } from '@ethereumjs/util';
import type { EVMResult } from '@ethereumjs/evm';
import type { VM } from '@ethereumjs/vm';
import type { TxRequest } from '../core/types.js';
import { paysBaseFee } from './blockContext.js';
import { withLeanTopFrame } from '../engine/internals.js';

/** EIPs whose per-transaction bookkeeping only runTx does (access witnesses, block access lists, state gas, per-recipient charges). */
const RUNTX_ONLY_EIPS = [2780, 6800, 7864, 7928, 8037];

/** Gas parameters of the lean path, read once per chain rules. */
export interface LeanRules {
  txGas: bigint;
  dataZero: bigint;
  dataNonZero: bigint;
  /** EIP-7623's price per calldata token; 0 when it is not active. */
  floorPerToken: bigint;
  warm2929: boolean;
  warmCoinbase: boolean;
}

const rulesByCommon = new WeakMap<object, LeanRules | null>();

/** The lean path's view of `common`'s rules; null when a call under them must go through runTx. */
export function leanRules(common: VM['common']): LeanRules | null {
  let rules = rulesByCommon.get(common);
  if (rules !== undefined) return rules;
  rules = RUNTX_ONLY_EIPS.some((eip) => common.isActivatedEIP(eip))
    ? null
    : {
        txGas: common.param('txGas'),
        dataZero: common.param('txDataZeroGas'),
        dataNonZero: common.param('txDataNonZeroGas'),
        floorPerToken: common.isActivatedEIP(7623) ? common.param('totalCostFloorPerToken') : 0n,
        warm2929: common.isActivatedEIP(2929),
        warmCoinbase: common.isActivatedEIP(3651),
      };
  rulesByCommon.set(common, rules);
  return rules;
}

/** The gas a request must carry before execution starts: max(intrinsic cost, calldata floor). */
export function leanMinimumGas(rules: Pick<LeanRules, 'txGas' | 'dataZero' | 'dataNonZero' | 'floorPerToken'>, data: Uint8Array): { intrinsic: bigint; minimum: bigint } {
  let zeros = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++;
  const nonZeros = BigInt(data.length - zeros);
  const intrinsic = rules.txGas + BigInt(zeros) * rules.dataZero + nonZeros * rules.dataNonZero;
  const floor = rules.floorPerToken === 0n ? 0n : rules.txGas + rules.floorPerToken * (BigInt(zeros) + 4n * nonZeros);
  return { intrinsic, minimum: intrinsic > floor ? intrinsic : floor };
}

/**
 * The intrinsic gas of `req` (its gas filled in) when it is a call the lean path takes under
 * `common`'s rules; undefined when it must go through runTx.
 */
export function leanIntrinsicGas(common: VM['common'], req: TxRequest & { gas: bigint }): bigint | undefined {
  if (req.to === undefined || (req.value ?? 0n) !== 0n || paysBaseFee(req)) return undefined;
  if (req.accessList !== undefined || req.authorizationList !== undefined || req.blobVersionedHashes !== undefined) return undefined;
  const rules = leanRules(common);
  if (rules === null) return undefined;
  const { intrinsic, minimum } = leanMinimumGas(rules, req.data ?? new Uint8Array());
  return req.gas < minimum ? undefined : intrinsic;
}

/**
 * Run `req` (with its gas filled in) at `block` the lean way, discarding every effect; undefined
 * when the request is not one the lean path takes (the caller then runs it through runTx).
 */
export async function leanCall(vm: VM, block: Block, req: TxRequest & { gas: bigint }, from: Address): Promise<EVMResult | undefined> {
  const intrinsic = leanIntrinsicGas(vm.common, req);
  if (intrinsic === undefined || req.to === undefined) return undefined;
  const rules = leanRules(vm.common)!;
  const data = req.data ?? new Uint8Array();
  const evm = vm.evm;
  const journal = evm.journal;
  // As runDiscarded: the checkpoint first, so nothing the cleanup does (EIP-161) outlives the call.
  await journal.checkpoint();
  try {
    await journal.cleanup();
    if (rules.warm2929) {
      for (const address of evm.precompiles.keys()) journal.addAlwaysWarmAddress(address);
      journal.addAlwaysWarmAddress(bytesToUnprefixedHex(from.bytes));
      journal.addAlwaysWarmAddress(bytesToUnprefixedHex(req.to.bytes));
      if (rules.warmCoinbase) journal.addAlwaysWarmAddress(bytesToUnprefixedHex(block.header.coinbase.bytes));
    }
    const sender = (await evm.stateManager.getAccount(from)) ?? new Account();
    sender.nonce += 1n;
    await journal.putAccount(from, sender);
    const to = req.to;
    return await withLeanTopFrame(evm, () => evm.runCall({ block, gasPrice: 0n, caller: from, origin: from, to, value: 0n, data, gasLimit: req.gas - intrinsic, skipNonceIncrement: true }));
  } finally {
    await journal.revert();
    journal.cleanJournal();
    evm.stateManager.originalStorageCache.clear();
  }
}
