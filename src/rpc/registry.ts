/**
 * The method table: every JSON-RPC method is declared once with its param codecs, its handler and
 * its aliases. "Method not found", alias resolution and rpc_modules all come from this table.
 */
import type { Codec } from './codecs.js';
import { invalidParams } from './errors.js';
import type { CallContext } from '../server/context.js';

type Parsed<C> = C extends Codec<infer T> ? T : never;
type ParsedList<C extends readonly Codec<unknown>[]> = { [K in keyof C]: Parsed<C[K]> };

export interface MethodDef {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly params: readonly Codec<unknown>[];
  readonly call: (ctx: CallContext, params: unknown[]) => unknown;
}

/**
 * Declare a method: `method('eth_getBalance', [address, optional(blockId, latest)], (ctx, addr, block) => ...)`.
 * The handler receives typed, validated params.
 */
export function method<const C extends readonly Codec<any>[]>(
  name: string,
  params: C,
  handler: (...args: ParsedList<C>) => unknown,
  options: { aliases?: readonly string[]; context?: false } = {},
): MethodDef {
  return {
    name,
    aliases: options.aliases ?? [],
    params,
    call: (_ctx, raw) => handler(...(parseParams(params, raw) as ParsedList<C>)),
  };
}

/** Like `method`, but the handler also gets the connection context first. */
export function methodWithContext<const C extends readonly Codec<any>[]>(
  name: string,
  params: C,
  handler: (ctx: CallContext, ...args: ParsedList<C>) => unknown,
  options: { aliases?: readonly string[] } = {},
): MethodDef {
  return {
    name,
    aliases: options.aliases ?? [],
    params,
    call: (ctx, raw) => handler(ctx, ...(parseParams(params, raw) as ParsedList<C>)),
  };
}

/** Validate `raw` against `codecs` as a method call does; -32602 naming the bad param. */
export function parseParams(codecs: readonly Codec<unknown>[], raw: unknown[]): unknown[] {
  if (raw.length > codecs.length) {
    throw invalidParams(`too many arguments, want at most ${codecs.length}`);
  }
  const out = new Array(codecs.length);
  for (let i = 0; i < codecs.length; i++) out[i] = parseParam(codecs, raw, i);
  return out;
}

/** Argument `i` of `raw` alone, validated as parseParams does it. */
export function parseParam(codecs: readonly Codec<unknown>[], raw: unknown[], i: number): unknown {
  const codec = codecs[i];
  const value = raw[i];
  if ((value === undefined || value === null) && !codec.optional) {
    throw invalidParams(`missing value for required argument ${i}`);
  }
  return codec.parse(value, `${i}`);
}

/** Lookup table over all declared methods, aliases included. */
export class MethodTable {
  private readonly byName = new Map<string, MethodDef>();

  constructor(defs: Iterable<MethodDef>) {
    for (const def of defs) this.add(def);
  }

  add(def: MethodDef): void {
    for (const name of [def.name, ...def.aliases]) {
      if (this.byName.has(name)) throw new Error(`method ${name} declared twice`);
      this.byName.set(name, def);
    }
  }

  /** Replace the definition each name answers with (aliases too, each by its own name); `undefined` keeps it. */
  override(fn: (name: string, def: MethodDef) => MethodDef | undefined): void {
    for (const [name, def] of this.byName) {
      const next = fn(name, def);
      if (next !== undefined) this.byName.set(name, next);
    }
  }

  get(name: string): MethodDef | undefined {
    return this.byName.get(name);
  }

  /** Every callable name, aliases included, sorted. */
  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  /** Namespaces with a version, as geth's rpc_modules answers. */
  modules(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of this.byName.keys()) out[name.slice(0, name.indexOf('_'))] = '1.0';
    return out;
  }
}
