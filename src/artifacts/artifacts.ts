/**
 * Compiled contracts the user has built (Hardhat `artifacts/`, Foundry `out/`, or any `--artifacts`
 * folder): contract names for deployed code, and function, event and error decoding from their ABIs.
 *
 * This module is platform-neutral: the node's terminal log, `node-rpc trace` and the browser
 * explorer all use it. Reading artifact files from disk is in `load.ts`.
 */
import type { SourceLocator } from '../chain/core/sources.js';
import { SourceIndex } from './sources.js';
import { decodeErrorResult, decodeEventLog, decodeFunctionData, toEventSelector, toFunctionSelector, type Abi, type AbiParameter } from 'viem';

/** One contract as the explorer receives it: runtime code with its masked byte ranges zeroed. */
export interface ContractArtifact {
  readonly name: string;
  readonly abi: Abi;
  /** Runtime bytecode, lowercase hex without 0x; masked ranges (immutables, library links) are zeros. */
  readonly code: string;
  /** Byte ranges `[start, length]` of the runtime code that differ per deployment. */
  readonly masks: ReadonlyArray<readonly [number, number]>;
}

export interface DecodedArg {
  readonly name: string;
  readonly type: string;
  readonly value: unknown;
}

export interface Decoded {
  /** `transfer`, `Transfer`, `InsufficientBalance`, `Error`, `Panic`. */
  readonly name: string;
  readonly args: readonly DecodedArg[];
  /** The contract whose ABI decoded it, when known. */
  readonly contract?: string;
}

type Item = { abi: Abi; contract: string };

const PANIC_REASONS: Record<number, string> = {
  0x01: 'assertion failed',
  0x11: 'arithmetic overflow or underflow',
  0x12: 'division or modulo by zero',
  0x21: 'invalid enum value',
  0x22: 'invalid storage byte array',
  0x31: 'pop on empty array',
  0x32: 'array index out of bounds',
  0x41: 'out of memory',
  0x51: 'call to an uninitialised function',
};

function strip0x(hex: string): string {
  return (hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex).toLowerCase();
}

/** Zero the masked byte ranges of a hex string (no 0x). */
export function maskCode(code: string, masks: ReadonlyArray<readonly [number, number]>): string {
  if (masks.length === 0) return code;
  let out = code;
  for (const [start, len] of masks) {
    if ((start + len) * 2 > out.length) continue;
    out = out.slice(0, start * 2) + '0'.repeat(len * 2) + out.slice((start + len) * 2);
  }
  return out;
}

export class Artifacts {
  readonly contracts: ContractArtifact[] = [];
  /** Source maps and sources of the contracts whose build output has them. */
  readonly sources = new SourceIndex();
  private readonly byLength = new Map<number, ContractArtifact[]>();
  private readonly functions = new Map<string, Item[]>();
  private readonly events = new Map<string, Item[]>();
  private readonly errors = new Map<string, Item[]>();

  get size(): number {
    return this.contracts.length;
  }

  add(contract: ContractArtifact): void {
    this.contracts.push(contract);
    if (contract.code.length > 0) {
      const list = this.byLength.get(contract.code.length) ?? [];
      list.push(contract);
      this.byLength.set(contract.code.length, list);
    }
    for (const entry of contract.abi) {
      const item: Item = { abi: [entry], contract: contract.name };
      let key: string | undefined;
      let map: Map<string, Item[]> | undefined;
      if (entry.type === 'function') [key, map] = [toFunctionSelector(entry), this.functions];
      else if (entry.type === 'error') [key, map] = [toFunctionSelector({ ...entry, type: 'function', outputs: [], stateMutability: 'view' }), this.errors];
      else if (entry.type === 'event') [key, map] = [toEventSelector(entry), this.events];
      if (key === undefined || map === undefined) continue;
      const list = map.get(key) ?? [];
      if (!list.some((i) => i.contract === item.contract)) list.push(item);
      map.set(key, list);
    }
  }

  /** The contract whose runtime code this is (immutables and library links ignored). */
  match(code: string): ContractArtifact | undefined {
    const hex = strip0x(code);
    const candidates = this.byLength.get(hex.length);
    if (!candidates) return undefined;
    for (const c of candidates) if (maskCode(hex, c.masks) === c.code) return c;
    return undefined;
  }

  /** What the node asks when a call fails: the code's source, and custom errors by name. */
  locator(): SourceLocator {
    const sources = this.sources;
    return {
      get mapped() {
        return sources.mapped;
      },
      code: (code, create) => sources.code(code, create),
      snippet: (file, line, radius) => sources.snippet(file, line, radius),
      describeError: (data, contract) => {
        let hex = '0x';
        for (const b of data) hex += b.toString(16).padStart(2, '0');
        const d = this.decodeError(hex, contract);
        return d === undefined ? undefined : formatDecoded(d, false);
      },
    };
  }

  /** Calldata of a call into `contract` (or any known contract when not given). */
  decodeCall(data: string, contract?: string): Decoded | undefined {
    if (data.length < 10) return undefined;
    return this.tryItems(this.functions.get(data.slice(0, 10).toLowerCase()), contract, (abi) => {
      const d = decodeFunctionData({ abi, data: data as `0x${string}` });
      return { name: d.functionName, args: namedArgs(abi[0], d.args ?? []) };
    });
  }

  /** A log emitted by `contract` (or any known contract). */
  decodeLog(topics: readonly string[], data: string, contract?: string): Decoded | undefined {
    if (topics.length === 0) return undefined;
    return this.tryItems(this.events.get(topics[0].toLowerCase()), contract, (abi) => {
      const d = decodeEventLog({ abi, topics: topics as [`0x${string}`], data: data as `0x${string}`, strict: true });
      return { name: d.eventName ?? '?', args: namedArgs(abi[0], d.args as unknown) };
    });
  }

  /** Revert data: `Error(string)`, `Panic(uint256)` or a custom error from the ABIs. */
  decodeError(data: string, contract?: string): Decoded | undefined {
    if (data.length < 10) return undefined;
    const selector = data.slice(0, 10).toLowerCase();
    if (selector === '0x08c379a0' || selector === '0x4e487b71') {
      try {
        const d = decodeErrorResult({ data: data as `0x${string}` });
        if (d.errorName === 'Panic') {
          const code = Number(d.args[0] as bigint);
          return { name: 'Panic', args: [{ name: 'code', type: 'uint256', value: PANIC_REASONS[code] ?? `0x${code.toString(16)}` }] };
        }
        return { name: 'Error', args: [{ name: 'reason', type: 'string', value: d.args[0] }] };
      } catch {
        return undefined;
      }
    }
    return this.tryItems(this.errors.get(selector), contract, (abi) => {
      const d = decodeErrorResult({ abi, data: data as `0x${string}` });
      return { name: d.errorName, args: namedArgs(abi[0], d.args ?? []) };
    });
  }

  private tryItems(items: Item[] | undefined, contract: string | undefined, decode: (abi: Abi) => Omit<Decoded, 'contract'>): Decoded | undefined {
    if (!items) return undefined;
    // The named contract's own ABI first, then any other with the same selector.
    const ordered = contract === undefined ? items : [...items.filter((i) => i.contract === contract), ...items.filter((i) => i.contract !== contract)];
    for (const item of ordered) {
      try {
        return { ...decode(item.abi), contract: item.contract };
      } catch {
        // Same selector, other parameter layout: try the next ABI.
      }
    }
    return undefined;
  }
}

function namedArgs(entry: Abi[number], values: unknown): DecodedArg[] {
  const inputs: readonly AbiParameter[] = 'inputs' in entry ? entry.inputs : [];
  const list = Array.isArray(values) ? values : inputs.map((p, i) => (values as Record<string, unknown>)[p.name ?? String(i)]);
  return inputs.map((p, i) => ({ name: p.name ?? '', type: p.type, value: list[i] }));
}

/** `0x7099…79c8` */
export function shortHex(hex: string, keep = 4): string {
  return hex.length <= 2 + keep * 2 + 1 ? hex : `${hex.slice(0, 2 + keep)}…${hex.slice(-keep)}`;
}

/** A large round amount as `1e18` or `2.5e18`; other numbers in decimal. */
export function formatNumber(n: bigint): string {
  const abs = n < 0n ? -n : n;
  if (abs < 1_000_000n) return n.toString();
  const digits = abs.toString();
  const trimmed = digits.replace(/0+$/, '');
  const exp = digits.length - 1;
  if (digits.length - trimmed.length < 6 || trimmed.length > 4) return n.toString();
  const mantissa = trimmed.length === 1 ? trimmed : `${trimmed[0]}.${trimmed.slice(1)}`;
  return `${n < 0n ? '-' : ''}${mantissa}e${exp}`;
}

/** One decoded value, short enough for a log line. */
export function formatValue(value: unknown, short = true): string {
  if (typeof value === 'bigint') return formatNumber(value);
  if (typeof value === 'string') {
    if (/^0x[0-9a-fA-F]*$/.test(value)) return short ? shortHex(value) : value;
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => formatValue(v, short)).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `(${Object.values(value).map((v) => formatValue(v, short)).join(', ')})`;
  return String(value);
}

/** `transfer(0x7099…79c8, 1e18)` */
export function formatDecoded(d: Decoded, short = true): string {
  return `${d.name}(${d.args.map((a) => formatValue(a.value, short)).join(', ')})`;
}
