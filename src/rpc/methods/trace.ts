/**
 * trace_* (OpenEthereum's trace module, as anvil, erigon and reth serve it): flat call traces of
 * mined transactions, blocks and filters, and replays with `trace` and `stateDiff`.
 */
import { bytesToHex } from '@ethereumjs/util';
import { ChainError } from '../../chain/core/errors.js';
import type { ChainReads, Tracing } from '../../chain/api.js';
import { isPending, LATEST, type MinedTx, type StoredBlock } from '../../chain/core/types.js';
import { DEFAULT_TIMEOUT_MS, parityStateDiff, type ParityTrace, type TraceConfig } from '../../trace/index.js';
import { address, arrayOf, blockId, blockNumberOrTag, count, hash32, optional, struct, uint, type Codec } from '../codecs.js';
import { invalidParams } from '../errors.js';
import { callRequest } from '../params.js';
import { method, type MethodDef } from '../registry.js';
import { traceBlock, traceCallAt, traceMinedTx } from '../../trace/positions.js';

const PARITY: TraceConfig = { tracer: { name: 'parity' }, timeoutMs: DEFAULT_TIMEOUT_MS };
const PRESTATE_DIFF = { name: 'prestateTracer' as const, options: { diffMode: true, disableCode: false, disableStorage: false, includeEmpty: false } };

type TraceType = 'trace' | 'stateDiff' | 'vmTrace';

/** The replay kinds asked for: any of trace, stateDiff, vmTrace. */
const traceTypes: Codec<Set<TraceType>> = {
  type: 'trace types',
  parse(value, where) {
    if (!Array.isArray(value)) throw invalidParams(`invalid argument ${where}: expected a list of trace types (trace, stateDiff, vmTrace)`);
    const out = new Set<TraceType>();
    for (const [i, t] of value.entries()) {
      if (t !== 'trace' && t !== 'stateDiff' && t !== 'vmTrace') throw invalidParams(`invalid argument ${where}[${i}]: unknown trace type ${JSON.stringify(t)}, expected trace, stateDiff or vmTrace`);
      out.add(t);
    }
    return out;
  },
};

const traceFilter = struct(
  {
    fromBlock: optional(blockNumberOrTag),
    toBlock: optional(blockNumberOrTag),
    fromAddress: optional(arrayOf(address)),
    toAddress: optional(arrayOf(address)),
    after: optional(count),
    count: optional(count),
  },
  'trace filter',
);

/** A transaction's traces with the block and transaction they belong to. */
function located(traces: ParityTrace[], t: MinedTx): object[] {
  return traces.map((tr) => ({
    action: tr.action,
    blockHash: t.block.hashHex,
    blockNumber: Number(t.block.number),
    ...(tr.error === undefined ? {} : { error: tr.error }),
    result: tr.result,
    subtraces: tr.subtraces,
    traceAddress: tr.traceAddress,
    transactionHash: t.hashHex,
    transactionPosition: t.index,
    type: tr.type,
  }));
}

function replayConfig(types: Set<TraceType>): TraceConfig {
  const tracers = [{ key: 'trace', spec: PARITY.tracer }];
  if (types.has('stateDiff')) tracers.push({ key: 'stateDiff', spec: PRESTATE_DIFF });
  return { tracer: { name: 'muxTracer', tracers }, timeoutMs: DEFAULT_TIMEOUT_MS };
}

/** OpenEthereum's replay answer: the output, and what was asked of trace, stateDiff and vmTrace. */
function replayResult(raw: unknown, types: Set<TraceType>): Record<string, unknown> {
  const r = raw as { trace: ParityTrace[]; stateDiff?: { pre?: Record<string, never>; post?: Record<string, never> } };
  const top = r.trace[0];
  const result = top?.result as { output?: string; code?: string } | null | undefined;
  return {
    output: result?.output ?? result?.code ?? '0x',
    stateDiff: types.has('stateDiff') && r.stateDiff ? parityStateDiff(r.stateDiff) : null,
    trace: types.has('trace') ? r.trace : [],
    // Per-opcode VM traces are not produced: asked for, the answer is null (as for an unasked kind).
    vmTrace: null,
  };
}

export function traceMethods(node: ChainReads & Tracing): MethodDef[] {
  const mined = (hash: Uint8Array): MinedTx | undefined => node.tx(bytesToHex(hash));
  const blockTraces = async (b: StoredBlock): Promise<object[]> => {
    const results = await traceBlock(node, b, PARITY);
    return results.flatMap((r, i) => {
      if (r.error !== undefined) throw new ChainError(`cannot trace transaction ${b.txs[i].hashHex}: ${String(r.error)}`);
      return located(r.result as ParityTrace[], b.txs[i]);
    });
  };

  return [
    /** Every frame of a mined transaction, flattened (null for an unknown hash). */
    method('trace_transaction', [hash32], async (hash) => {
      const t = mined(hash);
      return t ? located((await traceMinedTx(node, t, PARITY)) as ParityTrace[], t) : null;
    }),
    /** The traces at `indices` (trace addresses) of a mined transaction's tree: one frame or null. */
    method('trace_get', [hash32, arrayOf(uint)], async (hash, indices) => {
      const t = mined(hash);
      if (!t) return null;
      const all = located((await traceMinedTx(node, t, PARITY)) as ParityTrace[], t) as Array<{ traceAddress: number[] }>;
      return all.find((tr) => tr.traceAddress.length === indices.length && tr.traceAddress.every((v, i) => v === indices[i])) ?? null;
    }),
    /** Every trace of every transaction of a block (null for an unknown block); at `pending`, the pending block's, as reth answers. */
    method('trace_block', [blockNumberOrTag], async (ref) => {
      const b = isPending(ref) ? await node.pendingBlock() : node.block(ref);
      return b ? blockTraces(b) : null;
    }),
    /** Traces of a block range whose frame is from / to the given addresses, then `after` skipped and `count` kept. */
    method('trace_filter', [traceFilter], async (f) => {
      // A filter covers mined blocks, as geth's log filters do: `pending` names none of them.
      if ((f.fromBlock && isPending(f.fromBlock)) || (f.toBlock && isPending(f.toBlock))) throw invalidParams('invalid argument 0: pending traces are not supported (trace_filter covers mined blocks)');
      const from = f.fromBlock ? node.requireBlock(f.fromBlock).number : 0n;
      const to = f.toBlock ? node.requireBlock(f.toBlock).number : node.headNumber();
      if (to < from) throw invalidParams(`invalid argument 0: toBlock ${to} is before fromBlock ${from}`);
      const froms: string[] | undefined = f.fromAddress?.map((a) => a.toString());
      const tos: string[] | undefined = f.toAddress?.map((a) => a.toString());
      const out: object[] = [];
      let skip = f.after ?? 0;
      const want = f.count ?? Number.MAX_SAFE_INTEGER;
      for (const b of node.realBlocks(from, to)) {
        if (b.txs.length === 0) continue;
        for (const tr of (await blockTraces(b)) as Array<{ action: Record<string, string>; result: Record<string, string> | null }>) {
          const source = tr.action.from ?? tr.action.address;
          const target = tr.action.to ?? tr.action.refundAddress ?? tr.result?.address;
          if (froms && !froms.includes(source)) continue;
          if (tos && (target === undefined || !tos.includes(target))) continue;
          if (skip > 0) {
            skip--;
            continue;
          }
          out.push(tr);
          if (out.length >= want) return out;
        }
      }
      return out;
    }),
    /** Run a call at a block (default latest) and answer as a replay does. */
    method('trace_call', [callRequest, traceTypes, optional(blockId, LATEST)], async (req, types, ref) => replayResult(await traceCallAt(node, req, ref, replayConfig(types)), types)),
    /** Replay a mined transaction with trace and/or stateDiff. */
    method('trace_replayTransaction', [hash32, traceTypes], async (hash, types) => {
      const t = mined(hash);
      if (!t) throw new ChainError('transaction not found');
      return { ...replayResult(await traceMinedTx(node, t, replayConfig(types)), types), transactionHash: t.hashHex };
    }),
    /** Replay every transaction of a block with trace and/or stateDiff (at `pending`, the pending block's). */
    method('trace_replayBlockTransactions', [blockNumberOrTag, traceTypes], async (ref, types) => {
      const b = isPending(ref) ? await node.pendingBlock() : node.requireBlock(ref);
      const results = await traceBlock(node, b, replayConfig(types));
      return results.map((r, i) => {
        if (r.error !== undefined) throw new ChainError(`cannot trace transaction ${b.txs[i].hashHex}: ${String(r.error)}`);
        return { ...replayResult(r.result, types), transactionHash: b.txs[i].hashHex };
      });
    }),
  ];
}
