/** The state file's JSON shapes, and the checked readers its loader uses for each field. */
import { hexToBytes } from '@ethereumjs/util';
import type { PoolTxJson } from '../pool/poolFile.js';

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

export interface StateJson {
  version: number;
  generator: string;
  chainId: string;
  hardfork: string;
  /** Root of the dumped state (edits after the head block included). */
  stateRoot: string;
  /** Seconds the node's clock ran ahead of the wall clock. */
  timeOffset: string;
  head: { number: string; hash: string };
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
