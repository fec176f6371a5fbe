/**
 * Tracing at a position: a mined transaction replayed at its place in its block (earlier ones
 * applied), every transaction of a block, and a call on a private copy of a block's state (with
 * geth's state and block overrides). The EVM hooks exist only while a trace runs.
 */
import type { Block } from '@ethereumjs/block';
import { Capability, type TypedTransaction } from '@ethereumjs/tx';
import { eoaCode7702RecoverAuthority, type Address, type EOACode7702AuthorizationListBytesItem } from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { ChainError } from '../chain/core/errors.js';
import { overriddenBlock, paysBaseFee } from '../chain/exec/blockContext.js';
import { applyOverrides, discarding } from '../chain/exec/call.js';
import { BlockReplay } from '../chain/exec/replay.js';
import type { Tracing } from '../chain/api.js';
import { effectiveGasPrice } from '../chain/fees/rules.js';
import type { BlockOverrides, BlockRef, MinedTx, StateOverrides, StoredBlock, TxRequest } from '../chain/core/types.js';
import type { TraceConfig } from './config.js';
import { traceRun, type TraceOutcome, type TraceRun } from './index.js';

/** geth's TraceCallConfig: a TraceConfig plus state and block overrides and a position. */
export interface TraceCallConfig {
  config: TraceConfig;
  state?: StateOverrides;
  block?: BlockOverrides;
  txIndex?: number;
}


function outcomeOf(r: RunTxResult): TraceOutcome {
  const err = r.execResult.exceptionError?.error;
  return {
    gasUsed: r.totalGasSpent,
    returnValue: r.execResult.returnValue,
    error: err === undefined ? undefined : err === 'revert' ? 'execution reverted' : err,
    createdAddress: r.createdAddress,
  };
}

/** Signers of an EIP-7702 transaction's authorizations (invalid signatures are skipped). */
function authoritiesOf(tx: TypedTransaction): Address[] | undefined {
  if (!tx.supports(Capability.EIP7702EOACode)) return undefined;
  const list = (tx as unknown as { authorizationList: EOACode7702AuthorizationListBytesItem[] }).authorizationList;
  const out: Address[] = [];
  for (const item of list) {
    try {
      out.push(eoaCode7702RecoverAuthority(item));
    } catch {
      // geth skips authorizations whose signature does not recover
    }
  }
  return out;
}

/** The trace target for `t`, the transaction that runs next on `replay` (running it advances the replay). */
function minedTarget(replay: BlockReplay, t: MinedTx): TraceRun {
  return {
    vm: replay.vm,
    run: async () => outcomeOf(await replay.step()),
    from: t.from,
    to: t.tx.to,
    value: t.tx.value,
    input: t.tx.data,
    gasLimit: t.tx.gasLimit,
    gasPrice: t.receipt.effectiveGasPrice,
    type: t.tx.to ? 'CALL' : 'CREATE',
    coinbase: replay.block.header.coinbase,
    authorities: authoritiesOf(t.tx),
    logIndexOffset: t.receipt.firstLogIndex,
    blockNumber: replay.block.header.number,
    blockHash: t.block.hash,
    txHash: t.hash,
    txIndex: t.index,
  };
}

/** Trace the transaction at `replay`'s position; it advances past it. */
async function traceNext(replay: BlockReplay, config: TraceConfig): Promise<unknown> {
  const t = replay.peek();
  if (!t) throw new Error(`replay of block #${replay.stored.number} has no transaction ${replay.position}`);
  return traceRun(minedTarget(replay, t), config);
}

/** Trace every transaction of a block: geth's `[{txHash, result}]` (or `{txHash, error}`). */
export async function traceBlock(node: Tracing, stored: StoredBlock, config: TraceConfig): Promise<Array<Record<string, unknown>>> {
  let replay = await BlockReplay.open(node, stored);
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < stored.txs.length; i++) {
    const txHash = stored.txs[i].hashHex;
    try {
      out.push({ txHash, result: await traceNext(replay, config) });
    } catch (err) {
      if (!(err instanceof ChainError)) throw err;
      out.push({ txHash, error: err.message });
      // An interrupted execution leaves the replay's state unusable: start over past this one.
      replay = await BlockReplay.open(node, stored);
      await replay.advanceTo(i + 1);
    }
  }
  return out;
}

/** The block a call runs in: the state's block, unpriced calls at a zero base fee, overrides applied. */
function callBlock(node: Tracing, base: Block, req: TxRequest, o: BlockOverrides | undefined): Block {
  const block = node.callBlock(base, req);
  if (!o) return block;
  // As in geth, an unpriced call runs at a zero base fee whatever the override says.
  return overriddenBlock(block, paysBaseFee(req) ? o : { ...o, baseFeePerGas: undefined });
}

/** Trace a call on a private VM: overrides applied first, every effect dropped afterwards. */
function traceCallOn(vm: VM, block: Block, req: TxRequest, state: StateOverrides | undefined, config: TraceConfig): Promise<unknown> {
  return discarding(
    vm,
    block,
    req,
    ({ tx, from, run }) =>
      traceRun(
        {
          vm,
          run: async () => outcomeOf(await run()),
          from,
          to: tx.to,
          value: tx.value,
          input: tx.data,
          gasLimit: tx.gasLimit,
          gasPrice: effectiveGasPrice(tx, block.header.baseFeePerGas),
          type: tx.to ? 'CALL' : 'CREATE',
          coinbase: block.header.coinbase,
          authorities: authoritiesOf(tx),
          blockNumber: block.header.number,
        },
        config,
      ),
    { prepare: () => applyOverrides(vm, state) },
  );
}

/** Trace a mined transaction at its place in its block (used by the trace_ namespace too). */
export async function traceMinedTx(node: Tracing, t: MinedTx, config: TraceConfig): Promise<unknown> {
  return traceNext(await BlockReplay.before(node, t), config);
}

/**
 * debug_traceCall: a call at a block's state, or (with `txIndex`) after that many of the block's
 * transactions, with the config's state and block overrides.
 */
export async function traceCall(node: Tracing, req: TxRequest, at: BlockRef | StoredBlock, c: TraceCallConfig): Promise<unknown> {
  if (c.txIndex !== undefined) {
    const stored = at as StoredBlock;
    const replay = await BlockReplay.open(node, stored);
    await replay.advanceTo(c.txIndex);
    const block = callBlock(node, stored.block, req, c.block);
    return traceCallOn(replay.vm, block, node.capped(req, block), c.state, c.config);
  }
  const { vm, block: base } = await node.vmFor(at as BlockRef);
  const block = callBlock(node, base, req, c.block);
  return traceCallOn(vm, block, node.capped(req, block), c.state, c.config);
}

/** Trace a call at a block's state, without overrides (trace_call). */
export async function traceCallAt(node: Tracing, req: TxRequest, ref: BlockRef, config: TraceConfig): Promise<unknown> {
  const { vm, block: base } = await node.vmFor(ref);
  const block = callBlock(node, base, req, undefined);
  return traceCallOn(vm, block, node.capped(req, block), undefined, config);
}

