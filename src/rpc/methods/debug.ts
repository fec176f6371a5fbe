/**
 * debug_* methods: transaction, call and block tracing with geth's tracers and formats, and the
 * raw (RLP) encodings of transactions, blocks, headers and receipts.
 *
 * Mined transactions are traced on a replay of their block (earlier transactions applied), calls
 * on a private copy of the requested state; the EVM hooks exist only while a trace runs.
 */
import { bytesToHex } from '@ethereumjs/util';
import { encodeReceipt, type TxReceipt } from '@ethereumjs/vm';
import { ChainError } from '../../chain/core/errors.js';
import type { ChainReads, PoolReads, Tracing } from '../../chain/api.js';
import { LATEST, type BlockOverrides, type BlockRef, type MinedTx, type StoredBlock } from '../../chain/core/types.js';
import { traceJson } from '../../format/stream.js';
import { hex } from '../../format/hex.js';
import { parseTraceConfig, type TraceConfig } from '../../trace/index.js';
import { traceBlock, traceCall, traceMinedTx, type TraceCallConfig } from '../../trace/positions.js';
import { address, blockId, blockNumberOrTag, hash32, namingArgument, optional, quantity, struct, type Codec } from '../codecs.js';
import { invalidParams } from '../errors.js';
import { stateOverrides, txRequest } from '../params.js';
import { method, type MethodDef } from '../registry.js';

// ------------------------------------------------------------------ params

/** geth's TraceConfig (the tracer and its options); bad tracers or options are -32602. */
const traceConfig: Codec<TraceConfig> = {
  type: 'trace config',
  optional: true,
  parse: (value, where) => namingArgument(where, () => parseTraceConfig(value)),
};

const blockOverridesShape = struct(
  {
    number: optional(quantity),
    difficulty: optional(quantity),
    time: optional(quantity),
    gasLimit: optional(quantity),
    coinbase: optional(address),
    feeRecipient: optional(address),
    random: optional(hash32),
    prevRandao: optional(hash32),
    baseFee: optional(quantity),
    baseFeePerGas: optional(quantity),
    blobBaseFee: optional(quantity),
  },
  'block overrides',
);

function parseBlockOverrides(value: unknown, where: string): BlockOverrides {
  const o = blockOverridesShape.parse(value, where);
  if (o.blobBaseFee !== undefined) throw invalidParams(`invalid argument ${where}.blobBaseFee: overriding the blob base fee is not supported`);
  return {
    number: o.number,
    difficulty: o.difficulty,
    time: o.time,
    gasLimit: o.gasLimit,
    feeRecipient: o.feeRecipient ?? o.coinbase,
    prevRandao: o.prevRandao ?? o.random,
    baseFeePerGas: o.baseFeePerGas ?? o.baseFee,
  };
}

const traceCallConfig: Codec<TraceCallConfig> = {
  type: 'trace call config',
  optional: true,
  parse(value, where) {
    const config = namingArgument(where, () => parseTraceConfig(value));
    if (value === undefined || value === null) return { config };
    const raw = value as Record<string, unknown>;
    const field = (name: string) => raw[Object.keys(raw).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name];
    const state = stateOverrides.parse(field('stateOverrides'), `${where}.stateOverrides`);
    const b = field('blockOverrides');
    const block = b === undefined || b === null ? undefined : parseBlockOverrides(b, `${where}.blockOverrides`);
    const i = field('txIndex');
    const txIndex = i === undefined || i === null ? undefined : Number(quantity.parse(i, `${where}.txIndex`));
    return { config, state: state ?? undefined, block, txIndex };
  },
};

/** geth's BlockNumberOrHash: a number, a tag, a block hash, or an EIP-1898 object. */
const blockNumberOrHash: Codec<BlockRef> = {
  type: 'block number or hash',
  parse(value, where) {
    if (typeof value === 'string' && value.length === 66) return { kind: 'hash', hash: hash32.parse(value, where), requireCanonical: false };
    return blockId.parse(value, where);
  },
};

// ------------------------------------------------------------------ raw encodings

function receiptRlp(t: MinedTx): Uint8Array {
  const r = t.receipt;
  const receipt = { ...(r.root !== undefined ? { stateRoot: r.root } : { status: r.status }), cumulativeBlockGasUsed: r.cumulativeGasUsed, bitvector: r.bloom, logs: r.logs } as TxReceipt;
  return encodeReceipt(receipt, t.tx.type);
}

function describeRef(ref: BlockRef): string {
  if (ref.kind === 'hash') return bytesToHex(ref.hash);
  if (ref.kind === 'number') return ref.number.toString();
  return ref.tag;
}

// ------------------------------------------------------------------ methods

export function debugMethods(node: ChainReads & PoolReads & Tracing): MethodDef[] {
  const blockOrThrow = (ref: BlockRef, what: 'block' | 'header'): StoredBlock => {
    const b = node.block(ref);
    if (!b) throw new ChainError(ref.kind === 'hash' ? `${what} ${bytesToHex(ref.hash)} not found` : `${what} #${describeRef(ref)} not found`);
    return b;
  };
  /** The node's step cap applies to every struct-log trace. */
  const capped = (config: TraceConfig): TraceConfig => ({ ...config, maxSteps: node.maxTraceSteps, sources: node.sources });
  const minedOrThrow = (hash: Uint8Array): MinedTx => {
    const t = node.tx(bytesToHex(hash));
    if (!t) throw new ChainError('transaction not found');
    return t;
  };

  return [
    /** Blocks this node rejected: it builds every block itself, so there are none. */
    method('debug_getBadBlocks', [], () => []),
    // ------------------------------------------------------------ tracing
    /** Re-execute a mined transaction at its position in its block under a tracer (default: struct logs). */
    method('debug_traceTransaction', [hash32, traceConfig], async (hash, config) => {
      return traceJson(await traceMinedTx(node, minedOrThrow(hash), capped(config)));
    }),
    /**
     * Trace a call at a block (default latest); the config may add `stateOverrides`,
     * `blockOverrides` and `txIndex` (run after that many of the block's transactions).
     */
    method('debug_traceCall', [txRequest, optional(blockNumberOrHash, LATEST), traceCallConfig], async (req, ref, cfg) => {
      const c = cfg ?? { config: parseTraceConfig(undefined) };
      c.config = capped(c.config);
      return traceJson(await traceCall(node, req, c.txIndex !== undefined ? blockOrThrow(ref, 'block') : ref, c));
    }),
    /** Trace every transaction of a block: `[{txHash, result}]`. */
    method('debug_traceBlockByNumber', [blockNumberOrTag, traceConfig], async (ref, config) => traceBlock(node, blockOrThrow(ref, 'block'), capped(config))),
    method('debug_traceBlockByHash', [hash32, traceConfig], async (hash, config) =>
      traceBlock(node, blockOrThrow({ kind: 'hash', hash, requireCanonical: false }, 'block'), capped(config)),
    ),

    // ------------------------------------------------------------ raw encodings
    /** The signed transaction's canonical encoding (`0x` when unknown), mined or pooled. */
    method('debug_getRawTransaction', [hash32], (hash) => {
      const hashHex = bytesToHex(hash);
      const tx = node.tx(hashHex)?.tx ?? node.pooledTx(hashHex)?.tx;
      return tx ? hex(tx.serialize()) : '0x';
    }),
    /** The block's RLP encoding. */
    method('debug_getRawBlock', [blockNumberOrHash], (ref) => hex(blockOrThrow(ref, 'block').block.serialize())),
    /** The header's RLP encoding. */
    method('debug_getRawHeader', [blockNumberOrHash], (ref) => hex(blockOrThrow(ref, 'header').block.header.serialize())),
    /** The block's receipts, each in its EIP-2718 consensus encoding. */
    method('debug_getRawReceipts', [blockNumberOrHash], (ref) => blockOrThrow(ref, 'block').txs.map((t) => hex(receiptRlp(t)))),
  ];
}
