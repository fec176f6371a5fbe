/** EIP-712 typed structured data hashing (eth_signTypedData_v4). */
import { concatBytes, hexToBytes, setLengthLeft, utf8ToBytes } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ChainError } from '../core/errors.js';

export interface TypedData {
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}

const bad = (msg: string) => new ChainError(`invalid typed data: ${msg}`, undefined, -32602);

/** Validate the JSON shape of a typed-data document. */
export function parseTypedData(value: unknown): TypedData {
  const v = (typeof value === 'string' ? safeJson(value) : value) as Partial<TypedData>;
  if (!v || typeof v !== 'object') throw bad('expected an object');
  if (!v.types || typeof v.types !== 'object') throw bad('missing types');
  if (typeof v.primaryType !== 'string') throw bad('missing primaryType');
  if (!v.domain || typeof v.domain !== 'object') throw bad('missing domain');
  if (!v.message || typeof v.message !== 'object') throw bad('missing message');
  if (!v.types.EIP712Domain) {
    // Derive the domain type from the fields present, in the canonical order.
    const order: Array<[string, string]> = [['name', 'string'], ['version', 'string'], ['chainId', 'uint256'], ['verifyingContract', 'address'], ['salt', 'bytes32']];
    v.types = { ...v.types, EIP712Domain: order.filter(([n]) => n in v.domain!).map(([name, type]) => ({ name, type })) };
  }
  if (!v.types[v.primaryType]) throw bad(`primaryType ${v.primaryType} is not defined in types`);
  return v as TypedData;
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    throw bad('not valid JSON');
  }
}

/** keccak256("\x19\x01" ‖ domainSeparator ‖ hashStruct(message)) */
export function hashTypedData(d: TypedData): Uint8Array {
  return keccak_256(
    concatBytes(new Uint8Array([0x19, 0x01]), hashStruct(d, 'EIP712Domain', d.domain), hashStruct(d, d.primaryType, d.message)),
  );
}

function hashStruct(d: TypedData, type: string, value: Record<string, unknown>): Uint8Array {
  return keccak_256(encodeData(d, type, value));
}

function dependencies(d: TypedData, type: string, found = new Set<string>()): Set<string> {
  const base = type.replace(/\[\d*\]$/g, '').replace(/\[\d*\]/g, '');
  if (found.has(base) || !d.types[base]) return found;
  found.add(base);
  for (const f of d.types[base]) dependencies(d, f.type, found);
  return found;
}

function encodeType(d: TypedData, type: string): string {
  const deps = [...dependencies(d, type)].filter((t) => t !== type).sort();
  return [type, ...deps].map((t) => `${t}(${d.types[t].map((f) => `${f.type} ${f.name}`).join(',')})`).join('');
}

function encodeData(d: TypedData, type: string, value: Record<string, unknown>): Uint8Array {
  const fields = d.types[type];
  if (!fields) throw bad(`unknown type ${type}`);
  const parts: Uint8Array[] = [keccak_256(utf8ToBytes(encodeType(d, type)))];
  for (const f of fields) parts.push(encodeField(d, f.type, value[f.name], `${type}.${f.name}`));
  return concatBytes(...parts);
}

function encodeField(d: TypedData, type: string, value: unknown, where: string): Uint8Array {
  if (value === undefined) throw bad(`missing value for ${where}`);
  const array = /^(.*)\[(\d*)\]$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) throw bad(`${where} must be an array`);
    if (array[2] !== '' && value.length !== Number(array[2])) throw bad(`${where} must have ${array[2]} elements`);
    return keccak_256(concatBytes(...value.map((v, i) => encodeField(d, array[1], v, `${where}[${i}]`))));
  }
  if (d.types[type]) return hashStruct(d, type, value as Record<string, unknown>);
  if (type === 'string') return keccak_256(utf8ToBytes(String(value)));
  if (type === 'bytes') return keccak_256(toBytes(value, where));
  if (type === 'bool') return word(value === true || value === 'true' ? 1n : 0n);
  if (type === 'address') {
    const b = toBytes(value, where);
    if (b.length !== 20) throw bad(`${where} is not an address`);
    return setLengthLeft(b, 32);
  }
  const bytesN = /^bytes(\d+)$/.exec(type);
  if (bytesN) {
    const b = toBytes(value, where);
    const out = new Uint8Array(32);
    out.set(b.subarray(0, Number(bytesN[1])));
    return out;
  }
  const int = /^(u?)int(\d*)$/.exec(type);
  if (int) {
    let n: bigint;
    try {
      n = BigInt(value as string | number);
    } catch {
      throw bad(`${where} is not an integer`);
    }
    return word(n < 0n ? (1n << 256n) + n : n);
  }
  throw bad(`unknown type ${type} at ${where}`);
}

function word(n: bigint): Uint8Array {
  return hexToBytes(`0x${n.toString(16).padStart(64, '0')}`);
}

function toBytes(value: unknown, where: string): Uint8Array {
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value)) throw bad(`${where} must be 0x-prefixed hex`);
  return hexToBytes(value as `0x${string}`);
}
