/**
 * The bounds on execution nobody pays for (eth_call, eth_estimateGas, eth_createAccessList,
 * eth_simulateV1, debug_traceCall), as geth sets them: a gas cap, and a wall-clock limit after
 * which the run is aborted. Without them one call of an infinite loop with gas 1e12 held the event
 * loop for over a minute.
 */
import { withRunLimit } from '../engine/loop/limit.js';
import { ChainError } from '../core/errors.js';
import type { TxRequest } from '../core/types.js';

/** geth's default RPC gas cap; a block gas limit above it raises it (the larger of the two applies). */
export const DEFAULT_GAS_CAP = 50_000_000n;
/** geth's default eth_call timeout. */
export const DEFAULT_CALL_TIMEOUT_MS = 5_000;

export interface CallBounds {
  /** Most gas one call may use (--rpc-gas-cap); undefined: the larger of 50M and the block gas limit. */
  gasCap: bigint | undefined;
  /** Wall-clock limit of one call in milliseconds (--call-timeout); 0: none. */
  timeoutMs: number;
}

/** The gas cap for calls at a block whose gas limit is `blockGasLimit`. */
export function gasCapAt(bounds: CallBounds, blockGasLimit: bigint): bigint {
  if (bounds.gasCap !== undefined) return bounds.gasCap;
  return blockGasLimit > DEFAULT_GAS_CAP ? blockGasLimit : DEFAULT_GAS_CAP;
}

/**
 * `req` with its gas lowered to `cap` (silently, as geth does); a request without gas runs with
 * `fallback` (the block gas limit), capped the same way.
 */
export function capGas(req: TxRequest, cap: bigint, fallback: bigint): TxRequest {
  return (req.gas ?? fallback) > cap ? { ...req, gas: cap } : req;
}

/**
 * Run `fn`, whose executions on `evm` are cut short once `timeoutMs` has passed; an execution so
 * cut ends as geth's does, `execution aborted (timeout = 5s)`.
 */
export async function withTimeout<T>(evm: object, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  if (timeoutMs <= 0) return fn();
  const { value, error, expired } = await withRunLimit(evm, timeoutMs, fn);
  if (expired) throw new ChainError(`execution aborted (timeout = ${formatSeconds(timeoutMs)})`);
  if (error !== undefined) throw error;
  return value as T;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
