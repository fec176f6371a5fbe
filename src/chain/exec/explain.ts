/**
 * A failed call or gas estimate, explained: when source maps are loaded, the failure is run once
 * more with the step hook (failureStack.ts) and its error message gains the Solidity stack,
 * innermost frame first. The error's data (the revert bytes) is never changed, so clients decode
 * it as before. Successful executions, and nodes without source maps, never get here.
 */
import type { Block } from '@ethereumjs/block';
import type { VM } from '@ethereumjs/vm';
import { ExecutionError, RevertError } from '../core/errors.js';
import type { SourceFrame, SourceLocator, SourceStack } from '../core/sources.js';
import type { BlockRef, StateOverrides, TxRequest } from '../core/types.js';
import { withTimeout, type CallBounds } from './bounds.js';
import { applyOverrides, runDiscarded } from './call.js';
import { captureStack } from './failureStack.js';
import { decodeRevertReason } from './revertData.js';

/** What of the node explaining needs. */
export interface ExplainHost {
  readonly sources: SourceLocator | undefined;
  readonly callBounds: CallBounds;
  /** Run `fn` with a VM holding the state of `ref` (the live one at the head, under the lock); `fn` discards its effects. */
  withVm<T>(ref: BlockRef, fn: (vm: VM, block: Block) => Promise<T>): Promise<T>;
  callBlock(block: Block, req: TxRequest): Block;
  capped(req: TxRequest, block: Block): TxRequest;
}

/** Rethrow `err`, with the Solidity stack in its message when it is an execution failure in code with source. */
export async function explained(host: ExplainHost, err: unknown, req: TxRequest, ref: BlockRef, overrides?: StateOverrides): Promise<never> {
  const locator = host.sources;
  if (!(err instanceof ExecutionError) || locator === undefined || locator.mapped === 0) throw err;
  let stack: SourceStack | undefined;
  try {
    stack = await host.withVm(ref, (vm, at) => {
      const block = host.callBlock(at, req);
      const run = () => runDiscarded(vm, block, host.capped(req, at), { prepare: () => applyOverrides(vm, overrides) });
      const codeOf = (address: Parameters<VM['stateManager']['getCode']>[0]) => vm.stateManager.getCode(address);
      return withTimeout(vm.evm, host.callBounds.timeoutMs, () => captureStack(vm.evm.events as never, locator, codeOf, run));
    });
  } catch {
    // The second run could not be made (a timeout, a block mined meanwhile): the plain error stands.
  }
  if (stack === undefined) throw err;
  throw withStack(err, stack, locator);
}

/**
 * JSON-RPC code of a revert whose message carries a stack: geth's 3 (execution reverted). With the
 * generic -32000, viem decodes a custom error or panic from `error.data` only when the message is
 * exactly `execution reverted`; with 3 it always decodes the data, whatever the message says.
 */
export const REVERT_CODE = 3;

/** A copy of `err` whose message carries `stack`. */
export function withStack(err: ExecutionError, stack: SourceStack, locator: SourceLocator): ExecutionError {
  const code = err instanceof RevertError ? REVERT_CODE : err.code;
  const out = new (err.constructor as typeof ExecutionError)(failureMessage(err.message, stack, locator), err.data, code);
  out.sourceStack = stack;
  return out;
}

/** What failed, in words, when the plain message (`execution reverted`) does not say. */
export function failureDetail(stack: SourceStack, locator: Pick<SourceLocator, 'describeError'>): string | undefined {
  if (stack.error !== 'revert') return stack.error;
  const data = stack.data;
  if (data.length === 0) return stack.noCode ? `call to non-contract account ${stack.noCode}` : undefined;
  const selector = Buffer.from(data.subarray(0, 4)).toString('hex');
  if (selector === '4e487b71' && data.length === 36) return `panic: ${decodeRevertReason(data)} (0x${data[35]!.toString(16).padStart(2, '0')})`;
  if (selector === '08c379a0') return decodeRevertReason(data);
  return locator.describeError(data, stack.frames[0]?.contract) ?? `custom error 0x${selector}`;
}

/** `Thrower.requireString src/Thrower.sol:27:9` */
export function frameText(f: SourceFrame): string {
  const l = f.location;
  if (l === undefined) return `${f.contract} (pc ${f.pc})`;
  return `${l.contract ?? f.contract}${l.function ? '.' + l.function : ''} ${l.file}:${l.line}:${l.column}`;
}

/** `execution reverted: <what>`: `base` (the message without source) completed from the stack. */
export function failureHeadline(base: string, stack: SourceStack, locator: Pick<SourceLocator, 'describeError'>): string {
  if (base !== 'execution reverted') return base;
  const detail = failureDetail(stack, locator);
  return detail === undefined ? base : `${base}: ${detail}`;
}

/** `execution reverted: <what> (at <innermost frame>, …, <outermost frame>)` */
export function failureMessage(base: string, stack: SourceStack, locator: Pick<SourceLocator, 'describeError'>): string {
  return `${failureHeadline(base, stack, locator)} (at ${stack.frames.map(frameText).join(', ')})`;
}
