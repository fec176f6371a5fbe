/**
 * An EIP-1193 provider over the dispatcher: the node in the same process, with no HTTP and no
 * JSON where it can be avoided. Every call goes through the same method table, codecs and
 * `Dispatcher.request` as a request body does, so a result (or an error's code, message and data)
 * equals what JSON.parse of the HTTP answer gives. The provider is one connection: eth_subscribe
 * works as on a WebSocket, its notifications come as `message` events.
 */
import { EventEmitter } from 'node:events';
import { RawJson } from '../format/hex.js';
import { JsonParts } from '../format/stream.js';
import type { Dispatcher } from './dispatch.js';
import { ErrorCode, RpcError } from './errors.js';
import type { CallContext } from '../server/context.js';

export interface RequestArguments {
  readonly method: string;
  readonly params?: readonly unknown[] | object;
}

/** The error a request rejects with: EIP-1193's ProviderRpcError. */
export class ProviderRpcError extends Error {
  readonly code: number;
  readonly data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'ProviderRpcError';
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

/** EIP-1193's code for a provider that is disconnected from every chain. */
const DISCONNECTED = 4900;

export class Provider extends EventEmitter {
  private closed = false;
  private cleanups: (() => void)[] = [];
  private chainId: bigint;
  private readonly ctx: CallContext;

  constructor(
    private readonly dispatcher: Dispatcher,
    /** The node's chain id now (anvil_setChainId, a revert or a state load may change it). */
    private readonly currentChainId: () => bigint,
  ) {
    super();
    this.chainId = currentChainId();
    this.ctx = {
      transport: 'ws',
      send: (message) => this.push(message),
      onClose: (fn) => {
        this.cleanups.push(fn);
      },
    };
    // Told once, after whoever created the provider has had it handed over.
    setImmediate(() => {
      if (!this.closed) this.emit('connect', { chainId: hexChainId(this.chainId) });
    });
  }

  /** One JSON-RPC call: resolves to its result, rejects with a ProviderRpcError (code, message, data). */
  async request(args: RequestArguments): Promise<unknown> {
    if (args === null || typeof args !== 'object' || typeof args.method !== 'string' || args.method === '') {
      throw new ProviderRpcError(ErrorCode.InvalidRequest, 'Invalid request: method must be a non-empty string');
    }
    if (this.closed) throw new ProviderRpcError(DISCONNECTED, 'the node is closed');
    // Params as the JSON of a request would carry them: copied (a handler never sees the caller's
    // objects), undefined fields left out; a value JSON cannot carry (a bigint) is a bad param.
    const params = args.params === undefined ? undefined : copyJson(args.params);
    if (params === NOT_PLAIN) throw new ProviderRpcError(ErrorCode.InvalidParams, 'invalid params: params must be JSON values (strings, numbers, booleans, null, arrays, objects)');
    let result: unknown;
    try {
      result = await this.dispatcher.request(args.method, params, this.ctx);
    } catch (err) {
      const e = err as RpcError;
      throw new ProviderRpcError(e.code, e.message, e.data === undefined ? undefined : plain(e.data));
    } finally {
      this.checkChain();
    }
    return plain(result);
  }

  /** End the connection: its subscriptions and filters go, `disconnect` is told. */
  disconnect(): void {
    if (this.closed) return;
    this.closed = true;
    for (const fn of this.cleanups.splice(0)) {
      try {
        fn();
      } catch {
        // One failing cleanup must not keep the others from running.
      }
    }
    this.emit('disconnect', new ProviderRpcError(DISCONNECTED, 'the node is closed'));
  }

  private push(message: string): void {
    if (this.closed) return;
    const m = JSON.parse(message) as { method: string; params: unknown };
    this.emit('message', { type: m.method, data: m.params });
  }

  private checkChain(): void {
    const now = this.currentChainId();
    if (now === this.chainId) return;
    this.chainId = now;
    this.emit('chainChanged', hexChainId(now));
  }
}

const hexChainId = (id: bigint): string => `0x${id.toString(16)}`;

/**
 * A result as JSON.parse of its JSON text gives it: serialized results are parsed, anything else
 * is copied into fresh plain objects (a caller may change what it gets: cached block and receipt
 * objects must stay as they are), `undefined` becomes null and undefined fields are left out.
 */
export function plain(value: unknown): unknown {
  if (value instanceof RawJson) return value.value !== undefined ? plain(value.value) : JSON.parse(value.json);
  if (value instanceof JsonParts) return JSON.parse([...value.pieces()].join(''));
  const copy = copyJson(value);
  return copy === NOT_PLAIN ? JSON.parse(JSON.stringify(value) ?? 'null') : (copy ?? null);
}

const NOT_PLAIN = Symbol('not plain');

/** A copy of a tree of plain JSON values, or NOT_PLAIN where it holds anything JSON would change. */
function copyJson(v: unknown): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : NOT_PLAIN;
    case 'undefined':
      return undefined;
    case 'object': {
      if (v === null) return null;
      if (Array.isArray(v)) {
        const out = new Array(v.length);
        for (let i = 0; i < v.length; i++) {
          const c = copyJson(v[i]);
          if (c === NOT_PLAIN) return NOT_PLAIN;
          out[i] = c === undefined ? null : c;
        }
        return out;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
      if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return NOT_PLAIN;
      const out: Record<string, unknown> = {};
      for (const k in v) {
        const c = copyJson((v as Record<string, unknown>)[k]);
        if (c === NOT_PLAIN) return NOT_PLAIN;
        if (c !== undefined) out[k] = c;
      }
      return out;
    }
    default:
      return NOT_PLAIN;
  }
}
