/**
 * JSON-RPC 2.0 envelope handling: parse, validate, batch, dispatch, serialize once.
 */
import { bytesToHex } from '@ethereumjs/util';
import { ChainError, ExecutionError } from '../chain/core/errors.js';
import { asClient } from '../chain/core/lock.js';
import { RawJson } from '../format/hex.js';
import { JsonParts } from '../format/stream.js';
import { batchTooLarge, capBatch, DEFAULT_MAX_BATCH, errorText, methodsOf, onlyReads, refusedText, type Body, type Id } from './batch.js';
import { ErrorCode, RpcError } from './errors.js';
import type { CallContext } from '../server/context.js';
import type { MethodTable } from './registry.js';

export type { Body } from './batch.js';

/** Observer for the request log and metrics: each call answered, its error, and how long it took. */
export type CallObserver = (method: string, error: RpcError | undefined, ms: number) => void;

/** Bounds on one request body (see batch.ts). */
export interface DispatchLimits {
  /** Most calls in one batch (default 1,000, as geth; 0 = no cap); a larger batch gets one -32600 error. */
  maxBatch?: number;
  /** Bytes a batch answer may hold in all (default: no cap); calls past it are answered -32003. */
  maxBatchResponseBytes?: number;
}

/** The context of direct calls (`call` without one): they are one client. */
const DIRECT: CallContext = Object.freeze({ transport: 'http' as const });

export class Dispatcher {
  /** Requests being answered now. */
  private inFlight = 0;
  private idle: Array<() => void> = [];
  /** Set by `drain`: every new request is refused with this message. */
  private refusal: string | undefined;
  private readonly maxBatch: number;
  private readonly maxBatchResponseBytes: number | undefined;

  constructor(
    private readonly table: MethodTable,
    private readonly observe?: CallObserver,
    limits: DispatchLimits = {},
  ) {
    this.maxBatch = limits.maxBatch === 0 ? Infinity : (limits.maxBatch ?? DEFAULT_MAX_BATCH);
    this.maxBatchResponseBytes = limits.maxBatchResponseBytes || undefined;
  }

  /**
   * Refuse every request from now on with -32000 `message`, and resolve once the requests already
   * under way have been answered (the first step of an orderly shutdown).
   */
  drain(message = 'node is shutting down'): Promise<void> {
    this.refusal = message;
    return this.inFlight === 0 ? Promise.resolve() : new Promise((r) => this.idle.push(r));
  }

  /**
   * Handle one HTTP body or WS message. Returns the response text, or undefined when nothing
   * is to be answered (notifications only).
   */
  async handle(text: string, ctx: CallContext): Promise<Body | undefined> {
    let body: unknown;
    let parsed = true;
    try {
      body = JSON.parse(text);
    } catch {
      parsed = false;
    }
    // The transport's rate limit, if any, is asked before anything runs (and before any await).
    if (ctx.admit !== undefined && !ctx.admit(methodsOf(body, parsed, this.maxBatch))) return refusedText(body, parsed, this.maxBatch);
    if (!parsed) return errorText(null, new RpcError(ErrorCode.Parse, 'Parse error: request body is not valid JSON'));
    if (Array.isArray(body)) {
      if (body.length === 0) return errorText(null, new RpcError(ErrorCode.InvalidRequest, 'Invalid request: empty batch'));
      if (body.length > this.maxBatch) return batchTooLarge(body, this.maxBatch);
      let parts = await Promise.all(this.inOrder(body, ctx));
      if (this.maxBatchResponseBytes !== undefined) parts = capBatch(parts, body, this.maxBatchResponseBytes);
      const answered = parts.filter((p): p is Body => p !== undefined);
      if (answered.length === 0) return undefined;
      if (answered.every((p): p is string => typeof p === 'string')) return `[${answered.join(',')}]`;
      return (function* () {
        yield '[';
        for (const [i, p] of answered.entries()) {
          if (i > 0) yield ',';
          if (typeof p === 'string') yield p;
          else yield* p;
        }
        yield ']';
      })();
    }
    return this.one(body, ctx);
  }

  /** Run one method directly (used by in-process callers such as the CLI and tests). */
  async call(method: string, params: unknown[], ctx: CallContext = DIRECT): Promise<unknown> {
    const def = this.table.get(method);
    if (!def) throw new RpcError(ErrorCode.MethodNotFound, `the method ${method} does not exist/is not available`);
    return asClient(ctx.client ?? ctx, () => def.call(ctx, params));
  }

  /**
   * Run one call as a request envelope would: `params` must be an array (or absent), a draining
   * dispatcher refuses it, the observer is told. Resolves to the handler's result as is (RawJson
   * and JsonParts included); rejects with the RpcError the envelope would carry.
   */
  async request(name: string, params: unknown, ctx: CallContext): Promise<unknown> {
    const started = this.observe === undefined ? 0 : performance.now();
    let result: unknown;
    let failure: RpcError | undefined;
    try {
      if (params !== undefined && !Array.isArray(params)) {
        throw new RpcError(ErrorCode.InvalidParams, 'invalid params: params must be an array of positional arguments');
      }
      if (this.refusal !== undefined) throw new RpcError(ErrorCode.Server, this.refusal);
      const def = this.table.get(name);
      if (!def) throw new RpcError(ErrorCode.MethodNotFound, `the method ${name} does not exist/is not available`);
      this.inFlight++;
      try {
        // The changes the handler asks for are queued as its connection's (chain/core/lock.ts).
        result = await asClient(ctx.client ?? ctx, () => def.call(ctx, (params as unknown[] | undefined) ?? []));
      } finally {
        if (--this.inFlight === 0 && this.idle.length > 0) for (const done of this.idle.splice(0)) done();
      }
    } catch (err) {
      failure = toRpcError(err);
    }
    this.observe?.(name, failure, performance.now() - started);
    if (failure) throw failure;
    return result;
  }

  /**
   * Start a batch's calls so that each sees what the calls before it did (geth and the hardhat
   * node run a batch one call after another): calls that only read (onlyReads) start at once,
   * together, and any other call starts once every call before it is answered, the calls after
   * it once it is. Without this, `[eth_blockNumber, evm_mine, eth_blockNumber]` answered the same
   * number twice: a read without the node's lock is answered before a queued change runs.
   */
  private inOrder(body: readonly unknown[], ctx: CallContext): Array<Promise<Body | undefined>> {
    const started: Array<Promise<Body | undefined>> = [];
    /** The last call that may change the chain, once answered; undefined before the first. */
    let change: Promise<unknown> | undefined;
    for (const entry of body) {
      if (onlyReads(entry)) {
        started.push(change === undefined ? this.one(entry, ctx) : change.then(() => this.one(entry, ctx)));
      } else {
        const answered = Promise.all(started).then(() => this.one(entry, ctx));
        started.push(answered);
        change = answered;
      }
    }
    return started;
  }

  private async one(req: unknown, ctx: CallContext): Promise<Body | undefined> {
    if (req === null || typeof req !== 'object' || Array.isArray(req)) {
      return errorText(null, new RpcError(ErrorCode.InvalidRequest, 'Invalid request: expected a JSON-RPC request object'));
    }
    const r = req as Record<string, unknown>;
    const hasId = 'id' in r;
    const id = r.id;
    if (hasId && id !== null && typeof id !== 'string' && typeof id !== 'number') {
      return errorText(null, new RpcError(ErrorCode.InvalidRequest, 'Invalid request: id must be a string, a number or null'));
    }
    const rid = (hasId ? id : null) as Id;
    if (r.jsonrpc !== '2.0') return errorText(rid, new RpcError(ErrorCode.InvalidRequest, 'Invalid request: jsonrpc must be "2.0"'));
    if (typeof r.method !== 'string' || r.method === '') {
      return errorText(rid, new RpcError(ErrorCode.InvalidRequest, 'Invalid request: method must be a non-empty string'));
    }
    const name = r.method;
    let result: unknown;
    try {
      result = await this.request(name, r.params, ctx);
    } catch (err) {
      return hasId ? errorText(rid, err as RpcError) : undefined;
    }
    if (!hasId) return undefined; // notification
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(rid)},"result":`;
    if (result instanceof JsonParts) {
      const pieces = result.pieces;
      return (function* () {
        yield head;
        yield* pieces();
        yield '}';
      })();
    }
    return `${head}${result === undefined ? 'null' : result instanceof RawJson ? result.json : JSON.stringify(result)}}`;
  }
}

export function toRpcError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  if (err instanceof ChainError) {
    return new RpcError(err.code ?? ErrorCode.Server, err.message, err.data ? bytesToHex(err.data) : undefined, err instanceof ExecutionError ? err.sourceStack : undefined);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new RpcError(ErrorCode.Internal, `internal error: ${message}`);
}
