/**
 * eth_estimateGas: the smallest gas limit with which a request succeeds (anvil's answer), found in
 * as few executions as proving it takes (geth's eth/gasestimator shows the way).
 *
 * Gas is the only thing that changes between the runs, and a run that succeeds with some gas
 * succeeds with more (the estimate of anvil and geth rests on the same assumption). So:
 *  1. One run at the cap. If it fails, that failure is the answer (revert data and all). If the
 *     called code can take no other path with less gas (fixedPath) and the fast loop ran it,
 *     this run proves the answer (provenByFirstRun): with less gas the same steps run out.
 *  2. One run with the gas the first run consumed before refunds (`need`): most of what runs
 *     along the same path needs at least that much, so if it fails nothing below it succeeds. If
 *     it succeeds and a run with one gas less fails, `need` is the answer: two runs prove it.
 *     If that one succeeds too, a cheaper path exists (an inner call that, given less gas, fails
 *     and whose failure the caller ignores), and the answer lies below. A call whose code can
 *     take no other path with less gas (fixedPath) needs no run with one gas less: with it, the
 *     same steps would need `need` again, so it fails.
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
import { watchSstores, type WatchedRun } from '../engine/internals.js';
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
  /** For a watched run: what the fast loop saw (engine/internals.ts: watchSstores). */
  watched?: WatchedRun;
}

/** Execute the request with a given gas limit, the lean way when it can; every effect discarded. */
interface Runner {
  /** Intrinsic cost and calldata floor: a request with less gas is refused before it runs. */
  minimum: bigint;
  /** With `watch`, a plain call's run (no overrides, no authorizations) notes its frames and the least gas left at an SSTORE. */
  run(gas: bigint, watch?: boolean): Promise<Run | undefined>;
  /** Whether the request's steps cannot depend on its gas (see fixedPath). */
  fixedPath(): Promise<boolean>;
  /**
   * The answer, when the first run (watched, at `gas`, consuming `need` with the intrinsic cost
   * and floor) proves it alone: the called code takes the same steps with any gas, so the least
   * that succeeds is `need`, or more where an SSTORE would otherwise see no more than EIP-2200's
   * sentry (2,300) left. Undefined when more runs must prove it.
   */
  provenByFirstRun(first: Run, gas: bigint, need: bigint): Promise<bigint | undefined>;
}

/**
 * Opcodes through which the gas a call is given can change what it does, not only whether it
 * runs out: GAS reads it, and a call or create hands on a share of what is left (the 63/64 rule),
 * so the inner frame may fail with less and the caller go on another way. The EOF and AUTH call
 * opcodes are listed too, though no fork the node offers has them.
 */
const GAS_DEPENDENT = new Set([0x5a, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb]);
const PUSH1 = 0x60;
const PUSH32 = 0x7f;

/**
 * True when a call to `code` takes the same steps whatever gas it has, failing when that runs out:
 * none of its opcodes is in GAS_DEPENDENT (PUSH data skipped). No other code runs, as only a call
 * or create could reach it. An EIP-7702 delegation (code 0xef0100 ‖ address) runs the code it
 * points to: false. SSTORE's own check, that more than 2,300 gas is left, only makes less gas fail
 * sooner. Solidity's metadata at the end (CBOR, its length in the last two bytes) is not read:
 * its hash bytes would hit one of those opcodes in most contracts. Whatever this answers, the
 * estimate is a gas limit a run succeeded with; a wrong true could only make it higher than the
 * least.
 */
export function fixedPath(code: Uint8Array): boolean {
  let fixed = scanned.get(code);
  if (fixed === undefined) {
    fixed = scan(code);
    scanned.set(code, fixed);
  }
  return fixed;
}

/** fixedPath's answers by code array: the state's code cache hands out the same array for a contract, so a suite's estimates scan it once. */
const scanned = new WeakMap<Uint8Array, boolean>();

function scan(code: Uint8Array): boolean {
  if (code.length > 0 && code[0] === 0xef) return false;
  const end = code.length - metadataLength(code);
  for (let pc = 0; pc < end; pc++) {
    const op = code[pc]!;
    if (op >= PUSH1 && op <= PUSH32) pc += op - PUSH1 + 1;
    else if (GAS_DEPENDENT.has(op)) return false;
  }
  return true;
}

/** Bytes of Solidity's metadata at the end of `code` (a CBOR map, then its length in two bytes), or 0. */
function metadataLength(code: Uint8Array): number {
  const n = code.length;
  if (n < 2) return 0;
  const cbor = code[n - 2]! * 256 + code[n - 1]!;
  const start = n - 2 - cbor;
  return cbor > 0 && start >= 0 && code[start]! >= 0xa1 && code[start]! <= 0xa5 ? cbor + 2 : 0;
}

function runnerFor(vm: VM, block: Block, req: TxRequest, top: bigint, overrides: StateOverrides | undefined): Runner {
  const from = req.from ?? ZERO_ADDRESS;
  const common = vm.common as Common;
  const leanIntrinsic = overrides === undefined ? leanIntrinsicGas(common, { ...req, gas: top }) : undefined;
  if (leanIntrinsic !== undefined) {
    const { minimum } = leanMinimumGas(leanRules(common)!, req.data ?? new Uint8Array());
    const code = () => vm.stateManager.getCode(req.to!);
    return {
      minimum,
      async run(gas, watch = false) {
        if (gas < minimum) return undefined;
        const lean = () => leanCall(vm, block, { ...req, gas }, from);
        let result: Awaited<ReturnType<typeof leanCall>>;
        let watched: WatchedRun | undefined;
        if (watch) ({ value: result, watched } = await watchSstores(vm.evm, lean));
        else result = await lean();
        if (result === undefined) throw new ChainError('estimate: the lean path refused a call it had taken');
        const { exceptionError, returnValue, executionGasUsed } = result.execResult;
        return { error: exceptionError?.error, returnValue, consumed: leanIntrinsic + executionGasUsed, watched };
      },
      fixedPath: async () => req.to !== undefined && fixedPath(await code()),
      provenByFirstRun: firstRunProof(vm, req),
    };
  }
  const probe = withFakeSender({ ...req, nonce: req.nonce ?? 0n, gas: top }, common, from);
  const intrinsic = probe.getIntrinsicGas();
  const floor = common.isActivatedEIP(7623) ? getCalldataFloorGas(probe, from) : 0n;
  const prepare = () => applyOverrides(vm, overrides);
  // The code at `to` is what runs: no overrides may replace it, no authorization delegate it.
  const plain = overrides === undefined && req.to !== undefined && (req.authorizationList?.length ?? 0) === 0;
  return {
    minimum: intrinsic > floor ? intrinsic : floor,
    async run(gas, watch = false) {
      try {
        const discarded = () => runDiscarded(vm, block, { ...req, gas }, { prepare });
        let outcome: Awaited<ReturnType<typeof runDiscarded>>;
        let watched: WatchedRun | undefined;
        if (watch && plain) ({ value: outcome, watched } = await watchSstores(vm.evm, discarded));
        else outcome = await discarded();
        const { result, error } = outcome;
        return { error, returnValue: result.execResult.returnValue, consumed: intrinsic + result.execResult.executionGasUsed, watched };
      } catch (err) {
        if (err instanceof TxRejected && (err.kind === 'intrinsic-gas' || err.kind === 'floor-data-gas')) return undefined;
        throw engineRejection(err);
      }
    },
    // State overrides, contract creations and authorizations take the runs that prove it.
    fixedPath: async () => false,
    provenByFirstRun: plain ? firstRunProof(vm, req) : async () => undefined,
  };
}

/**
 * Runner.provenByFirstRun for a call to `req.to` whose code is what runs: the first run's frames
 * were one, the fast loop's, running fixedPath code (or there was no code: a transfer, a
 * precompile), so the least gas that succeeds is what it consumed, or more where an SSTORE would
 * see no more than EIP-2200's sentry left.
 */
function firstRunProof(vm: VM, req: TxRequest): Runner['provenByFirstRun'] {
  const common = vm.common as Common;
  // EIP-2200 (Istanbul on): an SSTORE with this much gas left or less runs out of gas.
  const sentry = common.gteHardfork('istanbul') ? common.param('sstoreSentryEIP2200Gas') : undefined;
  return async (first, gas, need) => {
    if (first.watched === undefined || req.to === undefined) return undefined;
    const called = await vm.stateManager.getCode(req.to);
    const { frames, leastLeft } = first.watched;
    if (!(frames === 1 || (frames === 0 && called.length === 0)) || !fixedPath(called)) return undefined;
    if (leastLeft === Infinity || sentry === undefined) return need;
    // With `limit` in place of `gas`, every point of the run has `gas - limit` less gas left, and
    // an SSTORE needs more than the sentry left: the least such point sets a floor.
    const stipendFloor = gas - BigInt(leastLeft) + sentry + 1n;
    return stipendFloor > need ? stipendFloor : need;
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
  const first = await runner.run(hi, true);
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
  const proven = await runner.provenByFirstRun(first, hi, need);
  if (proven !== undefined) return proven;
  if (need < hi) {
    if (await succeeds(need)) {
      hi = need;
      if (need - 1n > lo && !(await runner.fixedPath()) && (await succeeds(need - 1n))) hi = need - 1n;
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
