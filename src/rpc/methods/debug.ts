/**
 * debug_* methods: transaction, call and block tracing with geth's tracers and formats, and the
 * raw (RLP) encodings of transactions, blocks, headers and receipts.
 *
 * Mined transactions are traced on a replay of their block (earlier transactions applied), calls
 * on a private copy of the requested state; the EVM hooks exist only while a trace runs.
 */
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Capability, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, eoaCode7702RecoverAuthority, type Address, type EOACode7702AuthorizationListBytesItem } from '@ethereumjs/util';
import { encodeReceipt, runTx, type RunTxResult, type TxReceipt, type VM } from '@ethereumjs/vm';
import { ChainError } from '../../chain/errors.js';
import { applyOverrides, asSender, ZERO_ADDRESS } from '../../chain/execute.js';
import { headerFields, type DevNode } from '../../chain/node.js';
import { BlockReplay } from '../../chain/replay.js';
import { withFakeSender } from '../../chain/request.js';
import { effectiveGasPrice } from '../../chain/txs.js';
import { feesOf, runChecked } from '../../chain/rejections.js';
import { traceJson } from '../../format/stream.js';
import { LATEST, type BlockRef, type MinedTx, type StateOverrides, type StoredBlock, type TxRequest } from '../../chain/types.js';
import { hex } from '../../format/hex.js';
import { parseTraceConfig, traceRun, type TraceConfig, type TraceOutcome, type TraceRun } from '../../trace/index.js';
import { address, blockId, blockNumberOrTag, hash32, optional, quantity, struct, type Codec } from '../codecs.js';
import { invalidParams } from '../errors.js';
import { stateOverrides, txRequest } from '../params.js';
import { method, type MethodDef } from '../registry.js';

// ------------------------------------------------------------------ params

/** geth's TraceConfig (the tracer and its options); bad tracers or options are -32602. */
const traceConfig: Codec<TraceConfig> = {
  type: 'trace config',
  optional: true,
  parse: (value) => parseTraceConfig(value),
};

/** geth's BlockOverrides for debug_traceCall (both the older and the current field names). */
interface BlockOverrides {
  number?: bigint;
  difficulty?: bigint;
  time?: bigint;
  gasLimit?: bigint;
  coinbase?: Address;
  prevRandao?: Uint8Array;
  baseFee?: bigint;
}

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
    coinbase: o.feeRecipient ?? o.coinbase,
    prevRandao: o.prevRandao ?? o.random,
    baseFee: o.baseFeePerGas ?? o.baseFee,
  };
}

/** geth's TraceCallConfig: a TraceConfig plus state and block overrides and a position. */
interface TraceCallConfig {
  config: TraceConfig;
  state?: StateOverrides;
  block?: BlockOverrides;
  txIndex?: number;
}

const traceCallConfig: Codec<TraceCallConfig> = {
  type: 'trace call config',
  optional: true,
  parse(value, where) {
    const config = parseTraceConfig(value);
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

// ------------------------------------------------------------------ execution

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
  };
}

/** Trace the transaction at `replay`'s position; it advances past it. */
async function traceNext(replay: BlockReplay, config: TraceConfig): Promise<unknown> {
  const t = replay.peek();
  if (!t) throw new Error(`replay of block #${replay.stored.number} has no transaction ${replay.position}`);
  return traceRun(minedTarget(replay, t), config);
}

/** Trace every transaction of a block: geth's `[{txHash, result}]` (or `{txHash, error}`). */
export async function traceBlock(node: DevNode, stored: StoredBlock, config: TraceConfig): Promise<Array<Record<string, unknown>>> {
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
function callBlock(node: DevNode, base: Block, req: TxRequest, o: BlockOverrides | undefined): Block {
  const block = node.callBlock(base, req);
  if (!o) return block;
  // As in geth, an unpriced call runs at a zero base fee whatever the override says.
  const priced = (req.gasPrice ?? req.maxFeePerGas ?? 0n) > 0n;
  const h = headerFields(block.header);
  return createBlock(
    {
      header: {
        ...h,
        number: o.number ?? h.number,
        difficulty: o.difficulty ?? h.difficulty,
        timestamp: o.time ?? h.timestamp,
        gasLimit: o.gasLimit ?? h.gasLimit,
        coinbase: o.coinbase ?? h.coinbase,
        mixHash: o.prevRandao ?? h.mixHash,
        baseFeePerGas: h.baseFeePerGas === undefined || !priced ? h.baseFeePerGas : (o.baseFee ?? h.baseFeePerGas),
      },
    },
    { common: block.common, skipConsensusFormatValidation: true },
  );
}

/** Trace a call on a private VM: overrides applied first, every effect dropped afterwards. */
async function traceCallOn(vm: VM, block: Block, req: TxRequest, state: StateOverrides | undefined, config: TraceConfig): Promise<unknown> {
  await vm.evm.journal.checkpoint();
  try {
    await applyOverrides(vm, state);
    const from = req.from ?? ZERO_ADDRESS;
    const nonce = req.nonce ?? ((await vm.stateManager.getAccount(from))?.nonce ?? 0n);
    const tx = withFakeSender({ ...req, nonce, gas: req.gas ?? block.header.gasLimit }, vm.common as Common, from);
    return await traceRun(
      {
        vm,
        run: async () => {
          return outcomeOf(
            await runChecked(vm, tx, from, { ...feesOf(block.header), skipBalance: true, skipNonce: true }, () =>
              asSender(vm, from, () => runTx(vm, { tx, block, skipBalance: true, skipNonce: true, skipBlockGasLimitValidation: true, skipHardForkValidation: true })),
            ),
          );
        },
        from,
        to: tx.to,
        value: tx.value,
        input: tx.data,
        gasLimit: tx.gasLimit,
        gasPrice: effectiveGasPrice(tx, block.header.baseFeePerGas),
        type: tx.to ? 'CALL' : 'CREATE',
        coinbase: block.header.coinbase,
        authorities: authoritiesOf(tx),
      },
      config,
    );
  } finally {
    await vm.evm.journal.revert();
  }
}

/** Trace a mined transaction at its place in its block (used by the trace_ namespace too). */
export async function traceMinedTx(node: DevNode, t: MinedTx, config: TraceConfig): Promise<unknown> {
  return traceNext(await BlockReplay.before(node, t), config);
}

/** Trace a call at a block's state, without overrides (trace_call). */
export async function traceCallAt(node: DevNode, req: TxRequest, ref: BlockRef, config: TraceConfig): Promise<unknown> {
  const { vm, at } = await node.vmFor(ref);
  return traceCallOn(vm, callBlock(node, at.block, req, undefined), req, undefined, config);
}

// ------------------------------------------------------------------ raw encodings

function receiptRlp(t: MinedTx): Uint8Array {
  const r = t.receipt;
  const receipt = { status: r.status, cumulativeBlockGasUsed: r.cumulativeGasUsed, bitvector: r.bloom, logs: r.logs } as TxReceipt;
  return encodeReceipt(receipt, t.tx.type);
}

function describeRef(ref: BlockRef): string {
  if (ref.kind === 'hash') return bytesToHex(ref.hash);
  if (ref.kind === 'number') return ref.number.toString();
  return ref.tag;
}

// ------------------------------------------------------------------ methods

export function debugMethods(node: DevNode): MethodDef[] {
  const blockOrThrow = (ref: BlockRef, what: 'block' | 'header'): StoredBlock => {
    const b = node.block(ref);
    if (!b) throw new ChainError(ref.kind === 'hash' ? `${what} ${bytesToHex(ref.hash)} not found` : `${what} #${describeRef(ref)} not found`);
    return b;
  };
  /** The node's step cap applies to every struct-log trace. */
  const capped = (config: TraceConfig): TraceConfig => ({ ...config, maxSteps: node.maxTraceSteps });
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
      if (c.txIndex !== undefined) {
        const stored = blockOrThrow(ref, 'block');
        const replay = await BlockReplay.open(node, stored);
        await replay.advanceTo(c.txIndex);
        return traceJson(await traceCallOn(replay.vm, callBlock(node, stored.block, req, c.block), req, c.state, c.config));
      }
      const { vm, at } = await node.vmFor(ref);
      return traceJson(await traceCallOn(vm, callBlock(node, at.block, req, c.block), req, c.state, c.config));
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
      const tx = node.tx(hashHex)?.tx ?? node.pool.get(hashHex)?.tx;
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
