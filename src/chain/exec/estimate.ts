/**
 * eth_estimateGas: the smallest gas limit with which a request succeeds (anvil's answer), found in
 * as few executions as proving it takes (geth's eth/gasestimator shows the way).
 *
 * Gas is the only thing that changes between the runs, and a run that succeeds with some gas
 * succeeds with more (the estimate of anvil and geth rests on the same assumption). So:
 *  1. One run at the cap. If it fails, that failure is the answer (revert data and all).
 *  2. One run with the gas the first run consumed before refunds (`need`): most of what runs
 *     along the same path needs at least that much, so if it fails nothing below it succeeds. If
 *     it succeeds and a run with one gas less fails, `need` is the answer: two runs prove it.
 *     If that one succeeds too, a cheaper path exists (an inner call that, given less gas, fails
 *     and whose failure the caller ignores), and the answer lies below.
 *  3. Otherwise geth's optimistic bound, (need + the 2300 call stipend) × 64/63, which covers
 *     the gas an SSTORE must see left and what the 63/64 rule holds back: usually it succeeds.
 *  4. A binary search between what is known to fail and what is known to succeed, exact to the
 *     gas unit.
 * Plain calls run the lean way (lean.ts): the engine's call entry point, without a transaction.
 */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { getCalldataFloorGas } from '@ethereumjs/tx';
import type { VM } from '@ethereumjs/vm';
import { ChainError } from '../core/errors.js';
import type { StateOverrides, TxRequest } from '../core/types.js';
import { txGasCap } from '../engine/common.js';
import { ZERO_ADDRESS, applyOverrides, executionError, runDiscarded } from './call.js';
import { leanCall, leanIntrinsicGas, leanMinimumGas, leanRules } from './lean.js';
import { TxRejected, engineRejection } from './rejections.js';
import { withFakeSender } from './request.js';

/** The gas a CALL with value hands its callee for free; an SSTORE needs more than this left (EIP-2200). */
const CALL_STIPEND = 2300n;

/** One run's outcome: undefined when the gas is below what the request needs to start at all. */
interface Run {
  /** The EVM's error; undefined when the run succeeded. */
  error?: string;
  returnValue: Uint8Array;
  /** Gas consumed before refunds: the intrinsic cost and what execution used. */
  consumed: bigint;
}

/** Execute the request with a given gas limit, the lean way when it can; every effect discarded. */
interface Runner {
  /** Intrinsic cost and calldata floor: a request with less gas is refused before it runs. */
  minimum: bigint;
  run(gas: bigint): Promise<Run | undefined>;
}

function runnerFor(vm: VM, block: Block, req: TxRequest, top: bigint, overrides: StateOverrides | undefined): Runner {
  const from = req.from ?? ZERO_ADDRESS;
  const common = vm.common as Common;
  const leanIntrinsic = overrides === undefined ? leanIntrinsicGas(common, { ...req, gas: top }) : undefined;
  if (leanIntrinsic !== undefined) {
    const { minimum } = leanMinimumGas(leanRules(common)!, req.data ?? new Uint8Array());
    return {
      minimum,
      async run(gas) {
        if (gas < minimum) return undefined;
        const result = await leanCall(vm, block, { ...req, gas }, from);
        if (result === undefined) throw new ChainError('estimate: the lean path refused a call it had taken');
        const { exceptionError, returnValue, executionGasUsed } = result.execResult;
        return { error: exceptionError?.error, returnValue, consumed: leanIntrinsic + executionGasUsed };
      },
    };
  }
  const probe = withFakeSender({ ...req, nonce: req.nonce ?? 0n, gas: top }, common, from);
  const intrinsic = probe.getIntrinsicGas();
  const floor = common.isActivatedEIP(7623) ? getCalldataFloorGas(probe, from) : 0n;
  const prepare = () => applyOverrides(vm, overrides);
  return {
    minimum: intrinsic > floor ? intrinsic : floor,
    async run(gas) {
      try {
        const { result, error } = await runDiscarded(vm, block, { ...req, gas }, { prepare });
        return { error, returnValue: result.execResult.returnValue, consumed: intrinsic + result.execResult.executionGasUsed };
      } catch (err) {
        if (err instanceof TxRejected && (err.kind === 'intrinsic-gas' || err.kind === 'floor-data-gas')) return undefined;
        throw engineRejection(err);
      }
    },
  };
}

/**
 * The smallest gas limit with which `req` succeeds at `block`, at most `cap` (or the request's own
 * gas); an error when it fails even with that.
 */
export async function estimateGas(vm: VM, block: Block, req: TxRequest, cap: bigint, overrides?: StateOverrides): Promise<bigint> {
  let hi = req.gas ?? cap;
  // Osaka on: a transaction may carry at most EIP-7825's cap, so the estimate searches below it (as geth's).
  const txCap = txGasCap(vm.common);
  if (txCap !== undefined && hi > txCap) hi = txCap;
  const runner = runnerFor(vm, block, req, hi, overrides);
  const first = await runner.run(hi);
  if (first === undefined) throw new ChainError(`gas required exceeds allowance (${hi})`);
  if (first.error !== undefined) {
    if (first.error === 'revert') throw executionError(first.error, first.returnValue);
    throw first.error === 'out of gas' ? new ChainError(`gas required exceeds allowance (${hi})`) : executionError(first.error, first.returnValue);
  }
  const succeeds = async (gas: bigint) => {
    const run = await runner.run(gas);
    return run !== undefined && run.error === undefined;
  };
  // Known to fail: `lo`; known to succeed: `hi`.
  let lo = runner.minimum - 1n;
  const need = first.consumed > runner.minimum ? first.consumed : runner.minimum;
  if (need < hi) {
    if (await succeeds(need)) {
      hi = need;
      if (need - 1n > lo && (await succeeds(need - 1n))) hi = need - 1n;
      else lo = need - 1n;
    } else {
      lo = need;
      const optimistic = ((need + CALL_STIPEND) * 64n) / 63n;
      if (optimistic < hi) {
        if (await succeeds(optimistic)) hi = optimistic;
        else lo = optimistic;
      }
    }
  }
  while (lo + 1n < hi) {
    const mid = lo + (hi - lo) / 2n;
    if (await succeeds(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
