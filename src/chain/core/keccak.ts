/**
 * The node's Keccak-256: the Common's `customCrypto.keccak256` (so headers, transactions, blooms,
 * tries and the EVM's KECCAK256 all use it), the tries' key and node hashing (engine/preimages.ts)
 * and long chains of block headers (runs of mass-mined empty blocks).
 *
 * hash-wasm's WebAssembly keccak: 0.54 µs for 32 bytes and 1.6 µs for a 532-byte header here,
 * against 3.8 and 13.8 µs for the pure-JS one. It loads asynchronously, so the engine awaits
 * `readyKeccak()` before it builds anything; until then (and if it cannot load) the JS
 * implementation answers, with the same results.
 *
 * hash-wasm's hasher object costs about a third of a short hash beside the permutation itself:
 * three calls into WebAssembly, a subarray of the input and a copy of the digest. Its module also
 * exports a one-call entry (`Hash_Calculate(length, bits, padding)`, what its own one-shot
 * `keccak()` uses) over a buffer in its memory, but hash-wasm does not hand out the instance. So
 * `readyKeccak` watches `WebAssembly.instantiate` while hash-wasm creates its hasher, keeps the
 * instance that exports that entry, and uses it only after it has hashed test inputs of every
 * length class exactly as @noble/hashes does; otherwise (another hash-wasm, another loader) the
 * hasher object answers as before. 64 bytes (an EVM `keccak256(a, b)`): ~0.86 µs against ~1.15.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { IHasher } from 'hash-wasm';
import keccakOnly from 'hash-wasm/dist/keccak.umd.min.js';

let hasher: IHasher | undefined;
let loading: Promise<void> | undefined;

/** hash-wasm's module entry and its input/output buffer (the digest is written at its start). */
interface Direct {
  calculate(length: number, bits: number, padding: number): void;
  init(bits: number): void;
  update(length: number): void;
  final(padding: number): void;
  memory: WebAssembly.Memory;
  offset: number;
  buffer: Uint8Array;
  view: DataView;
}
let direct: Direct | undefined;

/** The buffer's size in hash-wasm (its MAX_HEAP): longer inputs go through in chunks. */
const CHUNK = 16 * 1024;
/** Inputs up to this length are copied into the buffer byte by byte (no subarray object). */
const BYTEWISE = 128;
/** Keccak's padding byte, as hash-wasm's keccak passes it. */
const KECCAK_PADDING = 1;

interface KeccakExports {
  memory?: WebAssembly.Memory;
  Hash_GetBuffer?: () => number;
  Hash_Calculate?: (length: number, bits: number, padding: number) => void;
  Hash_Init?: (bits: number) => void;
  Hash_Update?: (length: number) => void;
  Hash_Final?: (padding: number) => void;
}

/** New views of the buffer after the module's memory grew (hash-wasm's Keccak never grows it; a grown memory detaches the old views). */
function renew(d: Direct): void {
  d.buffer = new Uint8Array(d.memory.buffer, d.offset, CHUNK);
  d.view = new DataView(d.buffer.buffer, d.buffer.byteOffset, 32);
}

/** The instance's entries, if it is hash-wasm's Keccak module and hashes as @noble/hashes does. */
function directOf(instance: WebAssembly.Instance): Direct | undefined {
  const x = instance.exports as KeccakExports;
  if (!(x.memory instanceof WebAssembly.Memory) || typeof x.Hash_GetBuffer !== 'function' || typeof x.Hash_Calculate !== 'function') return undefined;
  if (typeof x.Hash_Init !== 'function' || typeof x.Hash_Update !== 'function' || typeof x.Hash_Final !== 'function') return undefined;
  const offset = x.Hash_GetBuffer();
  const buffer = new Uint8Array(x.memory.buffer, offset, CHUNK);
  const d: Direct = {
    memory: x.memory,
    offset,
    calculate: x.Hash_Calculate,
    init: x.Hash_Init,
    update: x.Hash_Update,
    final: x.Hash_Final,
    buffer,
    view: new DataView(buffer.buffer, buffer.byteOffset, 32),
  };
  const input = new Uint8Array(CHUNK * 2 + 305);
  for (let i = 0; i < input.length; i++) input[i] = (i * 131 + 7) & 0xff;
  for (const n of [0, 1, 31, 32, 64, 135, 136, 137, 300, CHUNK, CHUNK * 2 + 300]) {
    hashInto(d, input, 5, n);
    const want = keccak_256(input.subarray(5, 5 + n));
    for (let i = 0; i < 32; i++) if (buffer[i] !== want[i]) return undefined;
  }
  return d;
}

/** Hash `length` bytes of `bytes` from `start` with `d`; the digest is then at the start of `d.buffer`. */
function hashInto(d: Direct, bytes: Uint8Array, start: number, length: number): void {
  if (d.buffer.byteLength === 0) renew(d);
  const buffer = d.buffer;
  if (length <= BYTEWISE) {
    for (let i = 0; i < length; i++) buffer[i] = bytes[start + i];
    d.calculate(length, 256, KECCAK_PADDING);
    return;
  }
  if (length <= CHUNK) {
    buffer.set(bytes.subarray(start, start + length));
    d.calculate(length, 256, KECCAK_PADDING);
    return;
  }
  d.init(256);
  for (let at = start, end = start + length; at < end; at += CHUNK) {
    const n = Math.min(CHUNK, end - at);
    buffer.set(bytes.subarray(at, at + n));
    d.update(n);
  }
  d.final(KECCAK_PADDING);
}

/** Load the WebAssembly keccak (once; later calls return at once). */
export function readyKeccak(): Promise<void> {
  loading ??= (async () => {
    const instantiate = WebAssembly.instantiate;
    const seen: WebAssembly.Instance[] = [];
    const watch = async function (this: unknown, ...args: Parameters<typeof WebAssembly.instantiate>) {
      const made = (await (instantiate as (...a: unknown[]) => Promise<unknown>).apply(this, args)) as WebAssembly.Instance | WebAssembly.WebAssemblyInstantiatedSource;
      seen.push(made instanceof WebAssembly.Instance ? made : made.instance);
      return made;
    };
    WebAssembly.instantiate = watch as typeof WebAssembly.instantiate;
    try {
      hasher = await keccakOnly.createKeccak(256);
    } catch {
      // Without WebAssembly the JS keccak keeps working, only slower.
      return;
    } finally {
      if (WebAssembly.instantiate === (watch as unknown)) WebAssembly.instantiate = instantiate;
    }
    for (const instance of seen) {
      direct = directOf(instance);
      if (direct !== undefined) break;
    }
  })();
  return loading;
}

/** Which implementation answers: hash-wasm's module entry, its hasher object, or the JS one. */
export function keccakBackend(): 'wasm-direct' | 'wasm-hasher' | 'js' {
  return direct !== undefined ? 'wasm-direct' : hasher !== undefined ? 'wasm-hasher' : 'js';
}

/** keccak256(bytes); the caller may reuse `bytes` afterwards. */
export function keccak256(bytes: Uint8Array): Uint8Array {
  const d = direct;
  if (d !== undefined) {
    hashInto(d, bytes, 0, bytes.length);
    return d.buffer.slice(0, 32);
  }
  const h = hasher;
  if (h === undefined) return keccak_256(bytes);
  h.init();
  h.update(bytes);
  return h.digest('binary');
}

/** A 32-byte view for digests when the module entry is not used. */
const spare = new DataView(new ArrayBuffer(32));

/**
 * keccak256 of `length` bytes of `bytes` from `start`, as a view whose first 32 bytes are the
 * digest: valid until the next hash of this module, and to be read, not kept (the EVM's KECCAK256
 * reads it into a stack word). No object is made when the module entry answers.
 */
export function keccakView(bytes: Uint8Array, start: number, length: number): DataView {
  const d = direct;
  if (d !== undefined) {
    hashInto(d, bytes, start, length);
    return d.view;
  }
  const digest = keccak256(bytes.subarray(start, start + length));
  for (let i = 0; i < 32; i++) spare.setUint8(i, digest[i]);
  return spare;
}
