/**
 * Param codecs: each turns one JSON value into a typed value or throws -32602 naming the parameter.
 * Method files declare their params as a list of codecs; the registry runs them before the handler.
 */
import { Address } from '@ethereumjs/util';
import type { BlockRef, BlockTag } from '../chain/core/types.js';
import { ChainError } from '../chain/core/errors.js';
import { invalidParams } from './errors.js';

export type { BlockRef, BlockTag };

export interface Codec<T> {
  /** Human name of the expected type, used in error messages. */
  readonly type: string;
  /** True when the value may be missing (undefined or null). */
  readonly optional?: boolean;
  parse(value: unknown, where: string): T;
}

const fail = (where: string, message: string): never => {
  throw invalidParams(`invalid argument ${where}: ${message}`);
};

const describe = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'string' ? JSON.stringify(value.length > 70 ? value.slice(0, 67) + '...' : value) : typeof value;

const QUANTITY_RE = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
const HEX_RE = /^0x[0-9a-fA-F]*$/;

/** QUANTITY: 0x-prefixed minimal hex integer → bigint. */
export const quantity: Codec<bigint> = {
  type: 'QUANTITY',
  parse(value, where) {
    if (typeof value !== 'string') return fail(where, `expected a hex QUANTITY string, got ${describe(value)}`);
    if (!QUANTITY_RE.test(value)) {
      if (!value.startsWith('0x')) return fail(where, `hex string without 0x prefix: ${describe(value)}`);
      if (value === '0x') return fail(where, 'empty hex string');
      if (/^0x0[0-9a-fA-F]+$/.test(value)) return fail(where, `hex number with leading zero digits: ${describe(value)}`);
      return fail(where, `invalid hex QUANTITY ${describe(value)}`);
    }
    // Every QUANTITY of the protocol (balances, gas, values, slots) fits in 256 bits; geth says the same.
    if (value.length > 66) return fail(where, `hex number > 256 bits: ${describe(value)}`);
    return BigInt(value);
  },
};

/** A QUANTITY of at most 64 bits (block numbers, nonces, gas limits as geth's hexutil.Uint64). */
export const uint64: Codec<bigint> = {
  type: 'QUANTITY',
  parse(value, where) {
    const n = quantity.parse(value, where);
    if (n >= 1n << 64n) return fail(where, `hex number > 64 bits: ${describe(value)}`);
    return n;
  },
};

/** A QUANTITY that must fit in a JS safe integer (indexes, counts). */
export const uint: Codec<number> = {
  type: 'QUANTITY',
  parse(value, where) {
    const n = quantity.parse(value, where);
    if (n > BigInt(Number.MAX_SAFE_INTEGER)) return fail(where, 'number too large');
    return Number(n);
  },
};

/** A count given as a JSON integer or a QUANTITY (OpenEthereum's `after`/`count`, hardhat's numbers). */
export const count: Codec<number> = {
  type: 'number or QUANTITY',
  parse(value, where) {
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value < 0) return fail(where, `expected a non-negative integer, got ${value}`);
      return value;
    }
    return uint.parse(value, where);
  },
};

/** DATA: 0x-prefixed even-length hex → bytes. */
export const data: Codec<Uint8Array> = {
  type: 'DATA',
  parse(value, where) {
    if (typeof value !== 'string') return fail(where, `expected 0x-prefixed hex DATA, got ${describe(value)}`);
    if (!value.startsWith('0x')) return fail(where, `hex string without 0x prefix: ${describe(value)}`);
    if (!HEX_RE.test(value)) return fail(where, `invalid hex string ${describe(value)}`);
    if (value.length % 2 !== 0) return fail(where, `hex string of odd length ${describe(value)}`);
    return decodeHex(value);
  },
};

/** Each hex digit's value by its character code (the string was validated before). */
const NIBBLE = (() => {
  const t = new Uint8Array(128);
  for (let i = 0; i < 16; i++) {
    t['0123456789abcdef'.charCodeAt(i)] = i;
    t['0123456789ABCDEF'.charCodeAt(i)] = i;
  }
  return t;
})();

/** Short values are decoded in a loop; longer ones natively, into memory of their own. */
const NATIVE_FROM = 256;

/**
 * Bytes of validated 0x-hex. Addresses, hashes and most calldata are decoded in a plain loop:
 * a small typed array lives on the JS heap, and handing its buffer to Buffer for a native decode
 * first moves it off the heap, which cost more than the decoding (~1 µs each). Calldata and init
 * code run to kilobytes and are decoded natively.
 */
function decodeHex(value: string): Uint8Array {
  const n = (value.length - 2) >> 1;
  if (n >= NATIVE_FROM) {
    const buf = Buffer.allocUnsafeSlow(n);
    buf.write(value.slice(2), 'hex');
    return new Uint8Array(buf.buffer, 0, n);
  }
  const out = new Uint8Array(n);
  for (let i = 0, c = 2; i < n; i++, c += 2) out[i] = (NIBBLE[value.charCodeAt(c)]! << 4) | NIBBLE[value.charCodeAt(c + 1)]!;
  return out;
}

/** An id the node handed out (filter, subscription): 0x-hex of up to 32 bytes, compared lowercase. */
export function hexId(kind: string): Codec<string> {
  return {
    type: `${kind} id`,
    parse(value, where) {
      if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) return fail(where, `expected a 0x-hex ${kind} id, got ${JSON.stringify(value)}`);
      return value.toLowerCase();
    },
  };
}

/** DATA of a fixed byte length. */
export function bytesN(n: number, name = `${n}-byte DATA`): Codec<Uint8Array> {
  return {
    type: name,
    parse(value, where) {
      const bytes = data.parse(value, where);
      if (bytes.length !== n) return fail(where, `expected ${name} (${n} bytes), got ${bytes.length} bytes`);
      return bytes;
    },
  };
}

export const hash32 = bytesN(32, 'hash');

/** 20-byte address → Address. */
const address20 = bytesN(20, 'address');

export const address: Codec<Address> = {
  type: 'address',
  parse(value, where) {
    return new Address(address20.parse(value, where));
  },
};

export const bool: Codec<boolean> = {
  type: 'boolean',
  parse(value, where) {
    if (typeof value !== 'boolean') return fail(where, `expected boolean, got ${describe(value)}`);
    return value;
  },
};

export const string: Codec<string> = {
  type: 'string',
  parse(value, where) {
    if (typeof value !== 'string') return fail(where, `expected string, got ${describe(value)}`);
    return value;
  },
};

/** Any JSON value, passed through (for methods that validate deeper themselves). */
export const json: Codec<unknown> = { type: 'JSON', parse: (value) => value };

/**
 * Run a parser that lives below the rpc layer (typed data, trace configs) as a param's parser: the
 * -32602 it raises names the argument, as every codec's does.
 */
export function namingArgument<T>(where: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ChainError && err.code === -32602) return fail(where, err.message);
    throw err;
  }
}

const TAGS = new Set<string>(['latest', 'earliest', 'pending', 'safe', 'finalized']);

/**
 * QUANTITY|TAG only (no hash object): eth_getBlockByNumber and friends. A block number may also
 * be a plain JSON integer (`1`), as anvil and the hardhat network take it.
 */
export const blockNumberOrTag: Codec<BlockRef> = {
  type: 'block number or tag',
  parse(value, where) {
    if (typeof value === 'string' && TAGS.has(value)) return { kind: 'tag', tag: value as BlockTag };
    if (typeof value === 'string' && value.startsWith('0x')) return { kind: 'number', number: uint64.parse(value, where) };
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value < 0) return fail(where, `a block number must be a non-negative integer below 2^53 (or a hex QUANTITY), got ${value}`);
      return { kind: 'number', number: BigInt(value) };
    }
    return fail(where, `expected a block number or one of latest, earliest, pending, safe, finalized; got ${describe(value)}`);
  },
};

/** A block hash given bare where a block number, tag or hash may stand: exactly 32 bytes of hex, as geth reads it. */
const BARE_HASH_RE = /^0x[0-9a-fA-F]{64}$/;

/** QUANTITY|TAG|hash|EIP-1898 object: every state-reading method. */
export const blockId: Codec<BlockRef> = {
  type: 'block id',
  parse(value, where) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const o = value as Record<string, unknown>;
      if (o.blockHash !== undefined && o.blockNumber !== undefined) return fail(where, 'cannot specify both blockHash and blockNumber, choose one or the other');
      if (o.blockHash !== undefined) {
        const requireCanonical = o.requireCanonical === undefined ? false : bool.parse(o.requireCanonical, `${where}.requireCanonical`);
        return { kind: 'hash', hash: hash32.parse(o.blockHash, `${where}.blockHash`), requireCanonical };
      }
      if (o.blockNumber !== undefined) return blockNumberOrTag.parse(o.blockNumber, `${where}.blockNumber`);
      return fail(where, 'block object needs blockHash or blockNumber');
    }
    // BlockNumberOrTagOrHash: a 66-character string is a block hash (geth and anvil read it so).
    if (typeof value === 'string' && BARE_HASH_RE.test(value)) return { kind: 'hash', hash: decodeHex(value), requireCanonical: false };
    return blockNumberOrTag.parse(value, where);
  },
};

/** Make a codec optional; missing or null gives `fallback`. */
export function optional<T>(codec: Codec<T>): Codec<T | undefined>;
export function optional<T>(codec: Codec<T>, fallback: T): Codec<T>;
export function optional<T>(codec: Codec<T>, fallback?: T): Codec<T | undefined> {
  return {
    type: codec.type,
    optional: true,
    parse: (value, where) => (value === undefined || value === null ? fallback : codec.parse(value, where)),
  };
}

/** Array of one codec. */
export function arrayOf<T>(codec: Codec<T>): Codec<T[]> {
  return {
    type: `${codec.type}[]`,
    parse(value, where) {
      if (!Array.isArray(value)) return fail(where, `expected array, got ${describe(value)}`);
      return value.map((v, i) => codec.parse(v, `${where}[${i}]`));
    },
  };
}

type Shape = Record<string, Codec<unknown>>;
type Parsed<S extends Shape> = { [K in keyof S]: ReturnType<S[K]['parse']> };

/**
 * Object with declared fields. Unknown fields are ignored (clients add their own), each known field
 * is validated with its codec; a missing required field is an error naming it.
 */
export function struct<S extends Shape>(shape: S, typeName = 'object'): Codec<Parsed<S>> {
  const keys = Object.keys(shape);
  return {
    type: typeName,
    parse(value, where) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail(where, `expected ${typeName}, got ${describe(value)}`);
      const src = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const key of keys) {
        const codec = shape[key];
        const v = src[key];
        if (v === undefined || v === null) {
          if (!codec.optional) return fail(`${where}.${key}`, 'missing value');
          // An absent optional field takes its default without a path to name.
          out[key] = codec.parse(v, where);
        } else out[key] = codec.parse(v, `${where}.${key}`);
      }
      return out as Parsed<S>;
    },
  };
}

/** Map of keys parsed by one codec to values parsed by another. */
export function record<K, V>(key: Codec<K>, val: Codec<V>): Codec<Array<[K, V]>> {
  return {
    type: 'object',
    parse(value, where) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail(where, `expected object, got ${describe(value)}`);
      return Object.entries(value as Record<string, unknown>).map(([k, v]) => [key.parse(k, `${where} key`), val.parse(v, `${where}.${k}`)]);
    },
  };
}
