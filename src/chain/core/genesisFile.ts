/**
 * A genesis file in geth's format (`geth init`, anvil's `--init`): the chain's config (chain id,
 * fork schedule, blob schedule), the genesis header's fields and the allocated accounts. Read as
 * geth reads it: quantities as hex strings, decimal strings or JSON numbers; storage keys and
 * values as up to 32 bytes of hex, left-padded; addresses with or without 0x.
 */
import { Address, hexToBytes, setLengthLeft } from '@ethereumjs/util';

export interface GenesisAccount {
  address: Address;
  balance: bigint;
  nonce: bigint;
  code?: Uint8Array;
  /** Slots and values (32 bytes each), zero values left out (they are absent from the trie). */
  storage: Array<[Uint8Array, Uint8Array]>;
}

/** The genesis header's fields the file gives (undefined: geth's default for the forks active at genesis). */
export interface GenesisHeaderFields {
  number: bigint;
  timestamp: bigint;
  gasLimit: bigint;
  difficulty?: bigint;
  extraData: Uint8Array;
  mixHash: Uint8Array;
  /** The 8-byte proof-of-work nonce. */
  nonce: Uint8Array;
  coinbase: Address;
  parentHash: Uint8Array;
  gasUsed: bigint;
  baseFeePerGas?: bigint;
  excessBlobGas?: bigint;
  blobGasUsed?: bigint;
}

export interface GenesisFile {
  chainId: bigint;
  /**
   * geth's `config` object as the file gives it (fork blocks `homesteadBlock` … `mergeNetsplitBlock`,
   * `terminalTotalDifficulty`, fork times `shanghaiTime` … `bpo2Time`, `blobSchedule`): the schedule.
   */
  config: Record<string, unknown>;
  header: GenesisHeaderFields;
  alloc: GenesisAccount[];
}

/** A genesis file that cannot be read: the message names the field. */
export class GenesisFileError extends Error {}

/** geth's default gas limit of a genesis that gives none (params.GenesisGasLimit). */
const GENESIS_GAS_LIMIT = 5000n;

/** Parse the text of a geth genesis file. */
export function parseGenesisFile(text: string): GenesisFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new GenesisFileError(`not JSON: ${(err as Error).message}`);
  }
  if (!isObject(json)) throw new GenesisFileError('must be a JSON object with config and alloc');
  const config = json.config;
  if (!isObject(config)) throw new GenesisFileError('config: missing (an object with chainId and the fork schedule)');
  const chainId = quantity(config.chainId, 'config.chainId');
  if (chainId === undefined || chainId === 0n) throw new GenesisFileError('config.chainId: missing or zero');
  for (const [key, value] of Object.entries(config)) {
    if (/(Block|Time)$/.test(key) && value !== null && value !== undefined) quantity(value, `config.${key}`);
  }
  const alloc = json.alloc ?? {};
  if (!isObject(alloc)) throw new GenesisFileError('alloc: must be an object of addresses to accounts');
  const gasLimit = quantity(json.gasLimit, 'gasLimit');
  return {
    chainId,
    config,
    header: {
      number: quantity(json.number, 'number') ?? 0n,
      timestamp: quantity(json.timestamp, 'timestamp') ?? 0n,
      gasLimit: gasLimit === undefined || gasLimit === 0n ? GENESIS_GAS_LIMIT : gasLimit,
      difficulty: quantity(json.difficulty, 'difficulty'),
      extraData: bytes(json.extraData, 'extraData') ?? new Uint8Array(),
      mixHash: fixed(json.mixHash, 'mixHash', 32) ?? new Uint8Array(32),
      nonce: setLengthLeft(bigBytes(quantity(json.nonce, 'nonce') ?? 0n, 'nonce', 8), 8),
      coinbase: address(json.coinbase ?? '0x0000000000000000000000000000000000000000', 'coinbase'),
      parentHash: fixed(json.parentHash, 'parentHash', 32) ?? new Uint8Array(32),
      gasUsed: quantity(json.gasUsed, 'gasUsed') ?? 0n,
      baseFeePerGas: quantity(json.baseFeePerGas, 'baseFeePerGas'),
      excessBlobGas: quantity(json.excessBlobGas, 'excessBlobGas'),
      blobGasUsed: quantity(json.blobGasUsed, 'blobGasUsed'),
    },
    alloc: Object.entries(alloc).map(([key, value]) => account(key, value)),
  };
}

function account(key: string, value: unknown): GenesisAccount {
  const where = `alloc.${key}`;
  const a = address(key, where);
  if (!isObject(value)) throw new GenesisFileError(`${where}: must be an object (balance, nonce, code, storage)`);
  const storage: Array<[Uint8Array, Uint8Array]> = [];
  if (value.storage !== undefined && value.storage !== null) {
    if (!isObject(value.storage)) throw new GenesisFileError(`${where}.storage: must be an object of slots to values`);
    for (const [slot, v] of Object.entries(value.storage)) {
      const k = word(slot, `${where}.storage key ${slot}`);
      const val = word(v, `${where}.storage.${slot}`);
      if (val.some((b) => b !== 0)) storage.push([k, val]);
    }
  }
  const code = bytes(value.code, `${where}.code`);
  return {
    address: a,
    balance: quantity(value.balance, `${where}.balance`) ?? 0n,
    nonce: quantity(value.nonce, `${where}.nonce`) ?? 0n,
    code: code !== undefined && code.length > 0 ? code : undefined,
    storage,
  };
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A quantity: a hex or decimal string, or a JSON number within 2^53; undefined when absent. */
export function quantity(v: unknown, field: string): bigint | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) throw new GenesisFileError(`${field}: ${v} is not a whole number below 2^53 (give larger ones as a string)`);
    return BigInt(v);
  }
  if (typeof v !== 'string') throw new GenesisFileError(`${field}: must be a number or a hex or decimal string`);
  const s = v.trim();
  if (/^0x[0-9a-f]*$/i.test(s)) return s.length === 2 ? 0n : BigInt(s);
  if (/^[0-9]+$/.test(s)) return BigInt(s);
  throw new GenesisFileError(`${field}: "${v}" is not a number (hex with 0x, or decimal)`);
}

function bigBytes(n: bigint, field: string, max: number): Uint8Array {
  const h = n.toString(16);
  if (h.length > max * 2) throw new GenesisFileError(`${field}: more than ${max} bytes`);
  return hexToBytes(`0x${h.length % 2 ? '0' + h : h}`);
}

/** Hex bytes (the 0x optional); undefined when absent. */
function bytes(v: unknown, field: string): Uint8Array | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !/^(0x)?([0-9a-f]{2})*$/i.test(v)) throw new GenesisFileError(`${field}: must be hex bytes`);
  return hexToBytes(`0x${v.replace(/^0x/i, '')}`);
}

function fixed(v: unknown, field: string, length: number): Uint8Array | undefined {
  const b = bytes(v, field);
  if (b !== undefined && b.length !== length) throw new GenesisFileError(`${field}: must be ${length} bytes, got ${b.length}`);
  return b;
}

/** A storage key or value: up to 32 bytes of hex, left-padded (geth's storageJSON). */
function word(v: unknown, field: string): Uint8Array {
  if (typeof v !== 'string' || !/^(0x)?[0-9a-f]{0,64}$/i.test(v)) throw new GenesisFileError(`${field}: must be at most 32 bytes of hex`);
  const digits = v.replace(/^0x/i, '');
  return setLengthLeft(hexToBytes(`0x${digits.length % 2 ? '0' + digits : digits}`), 32);
}

function address(v: unknown, field: string): Address {
  if (typeof v !== 'string' || !/^(0x)?[0-9a-f]{40}$/i.test(v)) throw new GenesisFileError(`${field}: not an address (20 bytes of hex)`);
  return new Address(hexToBytes(`0x${v.replace(/^0x/i, '')}`));
}
