/** The state file's JSON shapes, what a parsed document gives, and the checked readers its loaders use for each field. */
import { Address, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { ChainError } from '../core/errors.js';
import type { PendingTx } from '../pool/txpool.js';
import type { PoolTxJson } from '../pool/poolFile.js';
import type { StoredBlock } from '../core/types.js';
import type { Common } from '@ethereumjs/common';
import type { ForkSchedule, ScheduleJson } from '../core/config.js';

/** What reading a state document checks it against: the chain it is loaded into. */
export interface StateTarget {
  readonly common: Common;
  readonly config: { readonly chainId: bigint; readonly hardfork: string; readonly schedule?: ForkSchedule };
  /** The chain's rules: `at(number, timestamp)` is the Common that block runs. */
  readonly rules: { at(number: bigint, timestamp: bigint): Common };
}

/** Version of the `nodeRpc` field this node writes in anvil's format (1 was this node's own format). */
export const NODE_RPC_FORMAT = 2;

/** What both of this node's formats say of the chain they hold. */
interface ChainFacts {
  version: number;
  generator: string;
  chainId: string;
  hardfork: string;
  /** When each fork begins, for a chain whose rules change (a genesis file's schedule, a known chain's); absent: `hardfork` from genesis on. */
  schedule?: ScheduleJson;
  /** Root of the dumped state (edits after the head block included). */
  stateRoot: string;
  /** Seconds the node's clock ran ahead of the wall clock. */
  timeOffset: string;
  head: { number: string; hash: string };
}

/** What only this node keeps, in the `nodeRpc` field of a document in anvil's format (anvil ignores it). */
export interface NodeRpcExtension extends ChainFacts {
  /** Runs of empty blocks: first block, count, seconds between blocks (only a run's last block is in `blocks`). */
  emptyRuns: Array<{ number: string; count: number; interval: string }>;
  /** State root a block was built on, by block number, when state was edited after its parent. */
  preStateRoots: Record<string, string>;
  /** EVM error of each failed transaction, by hash. */
  errors: Record<string, string>;
  /** The state root a pre-byzantium receipt carries in place of its status, by transaction hash. */
  roots?: Record<string, string>;
  /** Transactions acknowledged but not mined yet, in arrival order. */
  pool: PoolTxJson[];
}

export interface ParsedAccount {
  address: Address;
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  storage: Array<[Uint8Array, Uint8Array]>;
}

export type ParsedChainEntry = { kind: 'block'; stored: StoredBlock } | { kind: 'run'; count: number; interval: bigint };

export interface ParsedState {
  accounts: ParsedAccount[];
  /** The history, when the document has one that starts at genesis. */
  chain?: { entries: ParsedChainEntry[]; head: bigint; timeOffset: bigint; stateRoot: Uint8Array; chainId: bigint; hardfork: string };
  /** The pool the document was written with (it replaces the node's pool with the chain). */
  pool?: PendingTx[];
}

/** A state document that cannot be used; `source` names where it came from. */
export class StateError extends ChainError {
  constructor(source: string, message: string) {
    super(`${source}: ${message}`, undefined, -32602);
  }
}

/** anvil's name (revm's instruction result) for how a transaction's run ended. */
export function exitOf(status: 0 | 1, error: string | undefined, returned: boolean): string {
  if (status === 1) return returned ? 'Return' : 'Stop';
  return EXITS.find(([, e]) => e === error)?.[0] ?? 'Revert';
}

/** The EVM error of a failed transaction from anvil's exit name. */
export function errorOfExit(exit: unknown): string {
  if (typeof exit !== 'string') return 'revert';
  if (exit.endsWith('OOG')) return 'out of gas';
  return EXITS.find(([x]) => x === exit)?.[1] ?? exit;
}

const EXITS: Array<[string, string]> = [
  ['Revert', 'revert'],
  ['OutOfGas', 'out of gas'],
  ['OutOfGas', 'code store out of gas'],
  ['StackUnderflow', 'stack underflow'],
  ['StackOverflow', 'stack overflow'],
  ['InvalidJump', 'invalid JUMP'],
  ['OpcodeNotFound', 'invalid opcode'],
  ['InvalidFEOpcode', 'invalid opcode'],
  ['StateChangeDuringStaticCall', 'static state change'],
  ['CreateCollision', 'create collision'],
  ['CreateContractSizeLimit', 'code size to deposit exceeds maximum code size'],
  ['CreateContractStartingWithEF', 'invalid bytecode deployed'],
  ['CreateInitCodeSizeLimit', 'initcode exceeds max initcode size'],
];

/** The `accounts` object of either format: nonce, balance, code and storage of each address. */
export function parseAccounts(v: unknown, fail: (m: string) => never): ParsedAccount[] {
  const accounts = objectAt(v, 'accounts', fail);
  return Object.entries(accounts).map(([addr, a]) => {
    const where = `accounts.${addr}`;
    const address = new Address(bytesAt(addr, `${where} (address)`, fail, 20));
    const o = objectAt(a, where, fail);
    const nonce = typeof o.nonce === 'number' && Number.isSafeInteger(o.nonce) && o.nonce >= 0 ? BigInt(o.nonce) : quantityAt(o.nonce ?? '0x0', `${where}.nonce`, fail);
    const storage = Object.entries(objectAt(o.storage ?? {}, `${where}.storage`, fail)).map(([k, val]): [Uint8Array, Uint8Array] => [
      setLengthLeft(wordAt(k, `${where}.storage key ${k}`, fail), 32),
      setLengthLeft(wordAt(val, `${where}.storage.${k}`, fail), 32),
    ]);
    return {
      address,
      nonce,
      balance: quantityAt(o.balance ?? '0x0', `${where}.balance`, fail),
      code: bytesAt(o.code ?? '0x', `${where}.code`, fail),
      storage,
    };
  });
}

export interface AccountJson {
  nonce: number;
  balance: string;
  code: string;
  storage: Record<string, string>;
}

export interface BlockJson {
  number: string;
  hash: string;
  rlp: string;
  /** State root the block was built on, when state was edited after its parent. */
  preStateRoot?: string;
}

export interface EmptyRunJson {
  number: string;
  emptyRun: { count: number; interval: string };
}

export interface TransactionJson {
  hash: string;
  blockNumber: string;
  transactionIndex: number;
  from: string;
  /** Sent without a signature (impersonated sender). */
  unsigned?: boolean;
}

export interface ReceiptJson {
  transactionHash: string;
  status: number;
  gasUsed: string;
  cumulativeGasUsed: string;
  effectiveGasPrice: string;
  contractAddress: string | null;
  logs: Array<{ address: string; topics: string[]; data: string }>;
  logsBloom: string;
  returnData: string;
  error?: string;
  blobGasUsed?: string;
  blobGasPrice?: string;
}

/** This node's first format (version 1), still read. */
export interface StateJson extends ChainFacts {
  accounts: Record<string, AccountJson>;
  blocks: Array<BlockJson | EmptyRunJson>;
  transactions: TransactionJson[];
  /** Transactions acknowledged but not mined yet, in arrival order. */
  pool?: PoolTxJson[];
  receipts: ReceiptJson[];
}

export function objectAt(v: unknown, where: string, fail: (m: string) => never): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return fail(`${where} must be an object`);
  return v as Record<string, unknown>;
}

export function quantityAt(v: unknown, where: string, fail: (m: string) => never): bigint {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) return fail(`${where} must be a 0x-hex quantity`);
  return BigInt(v);
}

/** A u64 as anvil writes it: a JSON number, or a 0x-hex or decimal string. */
export function u64At(v: unknown, where: string, fail: (m: string) => never): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(v)) return BigInt(v);
  return fail(`${where} must be a number`);
}

export function bytesAt(v: unknown, where: string, fail: (m: string) => never, length?: number): Uint8Array {
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) return fail(`${where} must be 0x-hex bytes`);
  const b = hexToBytes(v as `0x${string}`);
  if (length !== undefined && b.length !== length) fail(`${where} must be ${length} bytes`);
  return b;
}

/** A storage key or value: hex of at most 32 bytes (odd lengths allowed, as anvil writes "0x1"). */
export function wordAt(v: unknown, where: string, fail: (m: string) => never): Uint8Array {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{0,64}$/.test(v)) return fail(`${where} must be 0x-hex of at most 32 bytes`);
  const digits = v.slice(2);
  return hexToBytes(('0x' + (digits.length % 2 ? '0' : '') + digits) as `0x${string}`);
}
