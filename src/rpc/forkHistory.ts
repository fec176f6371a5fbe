/**
 * History before the fork point, on a forked node.
 *
 * Blocks up to and including the fork block, their transactions, receipts and logs, and the state
 * of blocks before the fork block belong to the upstream: those requests are answered by it (its
 * answers passed on verbatim and cached, see Fork.forward). Everything from the fork block's state
 * onwards is local. The methods concerned are routed here by name; without a fork, or for local
 * blocks, the method's own handler answers, unchanged.
 *
 *  - block methods (by number, tag or hash): upstream when the block is at or below the fork block;
 *  - state methods (eth_getBalance, eth_call, …): upstream when the block is before the fork block
 *    (the fork block's own state is the local one: the upstream's plus the dev accounts' funding);
 *  - transactions and receipts by hash: local first, then the upstream's if mined at or below the
 *    fork block;
 *  - eth_getLogs: a range that reaches below the fork point is the upstream's logs up to the fork
 *    block followed by the local ones;
 *  - debug_trace* and debug_getRaw* of upstream blocks and transactions are the upstream's (when
 *    it serves debug_*; otherwise its error is passed on).
 */
import { bytesToHex } from '@ethereumjs/util';
import { ChainError } from '../chain/core/errors.js';
import { ForkUpstreamError } from '../chain/fork/client.js';
import type { Fork } from '../chain/fork/fork.js';
import { TooManyLogsError } from '../chain/logs/logIndex.js';
import type { ChainReads, Filters } from '../chain/api.js';
import type { BlockRef } from '../chain/core/types.js';
import { RawJson, qty } from '../format/hex.js';
import { logsJsonText } from '../format/logJson.js';
import type { LogCriteria } from '../chain/logs/logTypes.js';
import { parseParam, parseParams, type MethodDef } from './registry.js';
import type { CallContext } from '../server/context.js';

/** What routing needs of the node: its fork, its blocks and transactions, and its log index. */
type Host = Pick<ChainReads, 'fork' | 'block' | 'tx'> & Pick<Filters, 'logs'>;

type Route =
  /**
   * Served by the upstream when the block (param `at`) is at or below the fork block; a block
   * unknown to this chain is `null`, or (`missing: 'local'`) whatever the method's own handler says.
   */
  | { kind: 'block'; at: number; missing: 'null' | 'local' }
  /** Served by the upstream when the block (param `at`) is before the fork block. */
  | { kind: 'state'; at: number }
  /** Local first, then the upstream's when mined at or below the fork block. */
  | { kind: 'tx' }
  | { kind: 'rawTx' }
  /** Local first; a transaction this node does not know is traced by the upstream if mined at or below the fork block. */
  | { kind: 'traceTx' }
  | { kind: 'logs' };

const block = (at: number, missing: 'null' | 'local' = 'null'): Route => ({ kind: 'block', at, missing });
const state = (at: number): Route => ({ kind: 'state', at });

const ROUTES: Readonly<Record<string, Route>> = {
  eth_getBlockByNumber: block(0),
  eth_getBlockByHash: block(0),
  eth_getBlockTransactionCountByNumber: block(0),
  eth_getBlockTransactionCountByHash: block(0),
  eth_getUncleCountByBlockNumber: block(0),
  eth_getUncleCountByBlockHash: block(0),
  eth_getUncleByBlockNumberAndIndex: block(0),
  eth_getUncleByBlockHashAndIndex: block(0),
  eth_getTransactionByBlockNumberAndIndex: block(0),
  eth_getTransactionByBlockHashAndIndex: block(0),
  eth_getBlockReceipts: block(0),
  eth_getBalance: state(1),
  eth_getTransactionCount: state(1),
  eth_getCode: state(1),
  eth_getStorageAt: state(2),
  eth_getProof: state(2),
  eth_call: state(1),
  eth_estimateGas: state(1),
  eth_createAccessList: state(1),
  eth_feeHistory: state(1),
  eth_getTransactionByHash: { kind: 'tx' },
  eth_getTransactionReceipt: { kind: 'tx' },
  eth_getRawTransactionByHash: { kind: 'rawTx' },
  eth_getLogs: { kind: 'logs' },
  // Tracing and raw encodings of upstream history need an upstream that serves debug_*.
  debug_traceTransaction: { kind: 'traceTx' },
  debug_traceCall: state(1),
  debug_traceBlockByNumber: block(0, 'local'),
  debug_traceBlockByHash: block(0, 'local'),
  debug_getRawBlock: block(0, 'local'),
  debug_getRawHeader: block(0, 'local'),
  debug_getRawReceipts: block(0, 'local'),
};

/** `defs` with the history routes above wrapped around the methods they name. */
export function withForkHistory(node: Host, defs: MethodDef[]): MethodDef[] {
  return defs.map((def) => {
    const route = ROUTES[def.name];
    if (route === undefined) return def;
    return {
      ...def,
      call: (ctx: CallContext, raw: unknown[]) => {
        const fork = node.fork;
        return fork === undefined ? def.call(ctx, raw) : routed(node, fork, def, route, ctx, raw);
      },
    };
  });
}

/**
 * The block param that decides the route, parsed alone: the other params (an eth_call's calldata
 * can be kilobytes) are parsed once, by whoever answers. When it is invalid, the error is the one
 * the full parse gives (the first invalid param, or too many).
 */
function blockParam(def: MethodDef, raw: unknown[], at: number): unknown {
  try {
    return parseParam(def.params, raw, at);
  } catch (err) {
    parseParams(def.params, raw);
    throw err;
  }
}

async function routed(node: Host, fork: Fork, def: MethodDef, route: Route, ctx: CallContext, raw: unknown[]): Promise<unknown> {
  switch (route.kind) {
    case 'block':
    case 'state': {
      const ref = asRef(blockParam(def, raw, route.at));
      const n = await upstreamBlock(node, fork, ref, route.kind === 'block');
      // A local block: the handler parses (and validates) the params itself.
      if (n === LOCAL || (n === MISSING && route.kind === 'block' && route.missing === 'local')) return def.call(ctx, raw);
      // Going upstream: the other params are validated here first, as the handler would.
      parseParams(def.params, raw);
      if (n === MISSING) {
        if (route.kind === 'block') return null;
        throw new ChainError(`header for hash ${bytesToHex((ref as { hash: Uint8Array }).hash)} not found`);
      }
      const out = raw.slice();
      // Tags and numbers go as the number they stand for (upstream's "earliest" is ours, its "latest" is not).
      if (ref.kind !== 'hash') out[route.at] = qty(n);
      return fork.forward(def.name, out);
    }
    case 'tx': {
      const local = await def.call(ctx, raw);
      if (local !== null && local !== undefined) return local;
      const hash = bytesToHex(parseParams(def.params, raw)[0] as Uint8Array);
      const up = await fork.forward(def.name, [hash]);
      return minedInFork(fork, up) ? up : null;
    }
    case 'rawTx': {
      const local = await def.call(ctx, raw);
      if (local !== null && local !== undefined) return local;
      const hash = bytesToHex(parseParams(def.params, raw)[0] as Uint8Array);
      if (!minedInFork(fork, await fork.forward('eth_getTransactionByHash', [hash]))) return null;
      return fork.forward(def.name, [hash]);
    }
    case 'traceTx': {
      const hash = bytesToHex(parseParams(def.params, raw)[0] as Uint8Array);
      if (node.tx(hash) !== undefined || !minedInFork(fork, await fork.forward('eth_getTransactionByHash', [hash]))) return def.call(ctx, raw);
      return fork.forward(def.name, raw);
    }
    case 'logs':
      return getLogs(node, fork, def, ctx, raw);
  }
}

const LOCAL = Symbol('local');
const MISSING = Symbol('missing');

function asRef(v: unknown): BlockRef {
  return v instanceof Uint8Array ? { kind: 'hash', hash: v, requireCanonical: false } : (v as BlockRef);
}

/**
 * The upstream block number `ref` stands for when the upstream should answer (at or below the
 * fork block for block methods, before it for state), LOCAL when this node should, MISSING when
 * it names no block of this chain.
 */
async function upstreamBlock(node: Host, fork: Fork, ref: BlockRef, inclusive: boolean): Promise<bigint | typeof LOCAL | typeof MISSING> {
  const ours = (n: bigint) => (inclusive ? n <= fork.number : n < fork.number);
  switch (ref.kind) {
    case 'tag':
      return ref.tag === 'earliest' && ours(0n) ? 0n : LOCAL;
    case 'number':
      return ours(ref.number) ? ref.number : LOCAL;
    case 'hash': {
      const local = node.block(ref);
      if (local !== undefined) return ours(local.number) ? local.number : LOCAL;
      const n = await fork.numberOfHash(ref.hash);
      return n === null ? MISSING : ours(n) ? n : LOCAL;
    }
  }
}

function minedInFork(fork: Fork, tx: unknown): boolean {
  const n = (tx as { blockNumber?: unknown } | null)?.blockNumber;
  return typeof n === 'string' && /^0x[0-9a-fA-F]+$/.test(n) && BigInt(n) <= fork.number;
}

/** eth_getLogs over a range reaching below the fork point: the upstream's logs, then the local ones. */
async function getLogs(node: Host, fork: Fork, def: MethodDef, ctx: CallContext, raw: unknown[]): Promise<unknown> {
  const q = parseParams(def.params, raw)[0] as LogCriteria;
  const filter = raw[0] as Record<string, unknown>;
  if (q.blockHash !== undefined) {
    const local = node.block({ kind: 'hash', hash: q.blockHash, requireCanonical: false });
    if (local !== undefined && local.number > fork.number) return def.call(ctx, raw);
    if ((await fork.numberOfHash(q.blockHash)) === null) throw new ChainError('unknown block');
    return fork.forward('eth_getLogs', [{ ...filter, blockHash: bytesToHex(q.blockHash) }]);
  }
  const [from, to] = node.logs.resolveRange(q.fromBlock, q.toBlock);
  if (from > fork.number) return def.call(ctx, raw);
  const upTo = to < fork.number ? to : fork.number;
  const upstream = await fork.forward('eth_getLogs', [{ ...filter, fromBlock: qty(from), toBlock: qty(upTo) }]);
  if (!Array.isArray(upstream)) throw new ForkUpstreamError('fork upstream failed: eth_getLogs did not answer with an array');
  const cap = node.logs.maxResults ?? Infinity;
  if (upstream.length > cap) throw new TooManyLogsError(cap, from, to, undefined);
  if (to <= fork.number) return upstream;
  let local;
  try {
    local = node.logs.query(q, fork.number + 1n, to, cap - upstream.length);
  } catch (err) {
    if (err instanceof TooManyLogsError) throw new TooManyLogsError(cap, from, to, upTo);
    throw err;
  }
  if (local.length === 0) return upstream;
  const localJson = logsJsonText(local);
  if (upstream.length === 0) return new RawJson(localJson);
  return new RawJson(`${JSON.stringify(upstream).slice(0, -1)},${localJson.slice(1)}`);
}
