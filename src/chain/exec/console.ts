/**
 * console.log support: contracts call the console.sol address with ABI-encoded `log(...)` calldata;
 * the call has no code to run, so it costs exactly what it costs on a real chain. While a block is
 * built, a `beforeMessage` listener picks those calls out of every call frame and decodes them,
 * grouped by the transaction they belong to.
 */
import type { EVMInterface, Message } from '@ethereumjs/evm';
import { bytesToHex, hexToBytes, toChecksumAddress } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { MinedTx } from '../core/types.js';

/** The address console.sol sends to: the bytes of "console.log". */
export const CONSOLE_ADDRESS = '0x000000000000000000636f6e736f6c652e6c6f67';
const CONSOLE_BYTES = hexToBytes(CONSOLE_ADDRESS);

type AbiType = 'uint256' | 'int256' | 'string' | 'bool' | 'address' | 'bytes' | `bytes${number}`;

/** Argument types of every console.sol function, by selector; built on first use. */
let signatures: Map<number, AbiType[]> | undefined;

function selectorOf(signature: string): number {
  const h = keccak_256(new TextEncoder().encode(signature));
  return ((h[0] << 24) | (h[1] << 16) | (h[2] << 8) | h[3]) >>> 0;
}

/**
 * The signature table: `log()`, the single-argument forms (including bytes and bytes1..bytes32),
 * and every 2-4 argument combination of uint256, int256, string, bool and address. Each also under
 * the legacy spelling with `uint`/`int` (older console.sol versions hashed those), and `byte`.
 */
function table(): Map<number, AbiType[]> {
  if (signatures) return signatures;
  const map = new Map<number, AbiType[]>();
  const add = (types: AbiType[]) => {
    const sig = `log(${types.join(',')})`;
    map.set(selectorOf(sig), types);
    const legacy = sig.replace(/\buint256\b/g, 'uint').replace(/\bint256\b/g, 'int');
    if (legacy !== sig) map.set(selectorOf(legacy), types);
  };
  add([]);
  const single: AbiType[] = ['uint256', 'int256', 'string', 'bool', 'address', 'bytes'];
  for (let n = 1; n <= 32; n++) single.push(`bytes${n}`);
  for (const t of single) add([t]);
  map.set(selectorOf('log(byte)'), ['bytes1']);
  const base: AbiType[] = ['uint256', 'int256', 'string', 'bool', 'address'];
  const combos = (n: number, prefix: AbiType[]): void => {
    if (prefix.length === n) return add(prefix);
    for (const t of base) combos(n, [...prefix, t]);
  };
  for (let n = 2; n <= 4; n++) combos(n, []);
  signatures = map;
  return map;
}

type Value = { type: AbiType; text: string; num?: bigint };

function word(data: Uint8Array, at: number): bigint | undefined {
  if (at + 32 > data.length) return undefined;
  return BigInt(bytesToHex(data.subarray(at, at + 32)));
}

function decodeArgs(types: AbiType[], data: Uint8Array): Value[] | undefined {
  const args = data.subarray(4);
  const out: Value[] = [];
  for (let i = 0; i < types.length; i++) {
    const type = types[i];
    const w = word(args, i * 32);
    if (w === undefined) return undefined;
    if (type === 'string' || type === 'bytes') {
      const len = word(args, Number(w));
      if (w > BigInt(args.length) || len === undefined || Number(w) + 32 + Number(len) > args.length) return undefined;
      const body = args.subarray(Number(w) + 32, Number(w) + 32 + Number(len));
      out.push({ type, text: type === 'string' ? new TextDecoder().decode(body) : bytesToHex(body) });
    } else if (type === 'uint256') {
      out.push({ type, text: w.toString(), num: w });
    } else if (type === 'int256') {
      const v = w >= 1n << 255n ? w - (1n << 256n) : w;
      out.push({ type, text: v.toString(), num: v });
    } else if (type === 'bool') {
      out.push({ type, text: w === 0n ? 'false' : 'true', num: w === 0n ? 0n : 1n });
    } else if (type === 'address') {
      out.push({ type, text: toChecksumAddress('0x' + (w & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')) });
    } else {
      const n = Number(type.slice(5));
      out.push({ type, text: bytesToHex(args.subarray(i * 32, i * 32 + n)) });
    }
  }
  return out;
}

/**
 * Printf-style formatting as the hardhat node and anvil apply it: when the first argument is a
 * string and more follow, `%s` `%d` `%i` `%o` `%x` and `%%` in it consume the next arguments;
 * whatever is left is appended, separated by spaces.
 */
function render(values: Value[]): string {
  if (values.length < 2 || values[0].type !== 'string') return values.map((v) => v.text).join(' ');
  let next = 1;
  const head = values[0].text.replace(/%([sdiox%])/g, (all, spec: string) => {
    if (spec === '%') return '%';
    if (next >= values.length) return all;
    const v = values[next++];
    if (spec === 'd' || spec === 'i') return v.num !== undefined ? v.num.toString() : 'NaN';
    if (spec === 'x') return v.num !== undefined ? (v.num < 0n ? '-0x' + (-v.num).toString(16) : '0x' + v.num.toString(16)) : v.text;
    return v.text;
  });
  return [head, ...values.slice(next).map((v) => v.text)].join(' ');
}

/** The line a console.sol call prints, or undefined for calldata that is not a known log call. */
export function decodeConsoleLog(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const selector = ((data[0] << 24) | (data[1] << 16) | (data[2] << 8) | data[3]) >>> 0;
  const types = table().get(selector);
  if (!types) return undefined;
  const values = decodeArgs(types, data);
  return values && render(values);
}

function isConsole(to: Message['to']): boolean {
  if (!to) return false;
  const b = to.bytes;
  // The last byte rules out almost every call before the full comparison.
  if (b[19] !== 0x67) return false;
  for (let i = 0; i < 20; i++) if (b[i] !== CONSOLE_BYTES[i]) return false;
  return true;
}

interface Group {
  /** Sender of the top-level call: checked against the transaction it is paired with. */
  caller: string;
  lines: string[];
}

/**
 * Watches one EVM while a block is built. Every top-level message opens a group (one per
 * transaction run); console calls at any depth add their decoded line to the current group.
 */
export class ConsoleWatch {
  private readonly groups: Group[] = [];
  private readonly listener = (message: Message): void => {
    if (message.depth === 0) this.groups.push({ caller: message.caller.toString(), lines: [] });
    if (!isConsole(message.to)) return;
    const line = decodeConsoleLog(message.data);
    if (line !== undefined) this.groups[this.groups.length - 1]?.lines.push(line);
  };

  constructor(private readonly evm: EVMInterface) {
    evm.events?.on('beforeMessage', this.listener);
  }

  stop(): void {
    this.evm.events?.off('beforeMessage', this.listener);
  }

  /**
   * Pair the groups with the block's transactions (transactions rejected before execution opened
   * no group; system calls after the last transaction are not transactions). Only transactions
   * that logged something are returned.
   */
  byTx(txs: readonly MinedTx[]): Array<[MinedTx, string[]]> {
    const out: Array<[MinedTx, string[]]> = [];
    let g = 0;
    for (const tx of txs) {
      const from = tx.from.toString();
      while (g < this.groups.length && this.groups[g].caller !== from) g++;
      if (g >= this.groups.length) break;
      if (this.groups[g].lines.length) out.push([tx, this.groups[g].lines]);
      g++;
    }
    return out;
  }
}
