/** Speed patches to @ethereumjs/util: byte helpers every EVM step and state look-up goes through. */
import type { Patch } from '../patchDeps.js';

const BYTES = '@ethereumjs/util/dist/esm/bytes.js';

export const UTIL_PATCHES: Patch[] = [
  {
    id: 'util-setLength-no-spread',
    file: BYTES,
    why:
      'setLengthLeft/Right padded through array spreads ([...zeros, ...msg]): ~2.5 µs per call, and ' +
      'the EVM calls it for every SLOAD/SSTORE key, MSTORE word and address taken from the stack ' +
      '(a third of a 200-read eth_call). One allocation and a copy do the same.',
    edits: [
      {
        find: `        return right
            ? new Uint8Array([...msg, ...new Uint8Array(length - msg.length)])
            : new Uint8Array([...new Uint8Array(length - msg.length), ...msg]);`,
        replace: `        const padded = new Uint8Array(length);
        padded.set(msg, right ? 0 : length - msg.length);
        return padded;`,
      },
    ],
  },
  {
    id: 'util-hex-native',
    file: BYTES,
    why:
      'bytesToUnprefixedHex (the key of every journal, state-cache and address look-up: about eight per ' +
      'SLOAD) built its string a byte at a time, a rope that every Map look-up then flattens: ~0.7 µs ' +
      "per 32-byte key. Node's native hex encoder (what Buffer#toString('hex') calls) gives a flat " +
      'string in ~0.2 µs. Anything that is not a Uint8Array still goes to the original, which rejects it.',
    edits: [
      {
        find: `export const bytesToUnprefixedHex = bytesToUnprefixedHexNoble;`,
        replace: `const nativeHexSlice = typeof Buffer === 'function' && typeof Buffer.prototype.hexSlice === 'function' ? Buffer.prototype.hexSlice : undefined;
export const bytesToUnprefixedHex = nativeHexSlice === undefined
    ? bytesToUnprefixedHexNoble
    : (bytes) => (bytes instanceof Uint8Array ? nativeHexSlice.call(bytes, 0, bytes.length) : bytesToUnprefixedHexNoble(bytes));`,
      },
    ],
  },
  {
    id: 'util-bigIntToBytes-direct',
    file: BYTES,
    why:
      'bigIntToBytes prefixed its own toString(16) output with 0x only for hexToBytes to check it with a ' +
      'regular expression and strip the prefix again: every SLOAD/SSTORE key and stack address pays it. ' +
      'The digits go straight to the decoder, which still rejects anything that is not hex.',
    edits: [
      {
        find: 'const bytes = hexToBytes(`0x${padToEven(num.toString(16))}`);',
        replace: 'const bytes = hexToBytesNoble(padToEven(num.toString(16)));',
      },
    ],
  },
  {
    id: 'util-bytesToBigInt-words',
    file: BYTES,
    why:
      'bytesToBigInt went through a hex string (encode, then parse) for every word the EVM reads: ' +
      'CALLDATALOAD and MLOAD (32 bytes), SLOAD (a stored value in its shortest form, often a byte ' +
      'or two), account fields. A 32-byte word is read as four 64-bit halves shifted together (~200 ' +
      'against ~330 ns), up to 6 bytes as a number (exact below 2^53); other lengths keep the hex path.',
    edits: [
      {
        find: `    if (littleEndian) {
        bytes = bytes.slice().reverse();
    }
    const hex = bytesToHex(bytes);`,
        replace: `    if (littleEndian) {
        bytes = bytes.slice().reverse();
    }
    if (bytes.length === 32) {
        const view = new DataView(bytes.buffer, bytes.byteOffset, 32);
        return ((view.getBigUint64(0) << 192n) |
            (view.getBigUint64(8) << 128n) |
            (view.getBigUint64(16) << 64n) |
            view.getBigUint64(24));
    }
    if (bytes.length <= 6) {
        let n = 0;
        for (let i = 0; i < bytes.length; i++)
            n = n * 256 + bytes[i];
        return n < BIGINT_CACHE.length ? BIGINT_CACHE[n] : BigInt(n);
    }
    const hex = bytesToHex(bytes);`,
      },
    ],
  },
  {
    id: 'util-key-hex-memo',
    file: BYTES,
    why:
      'Addresses and storage keys are turned into the same hex keys over and over: every SLOAD looks ' +
      'its address and slot up in the storage cache, the account cache and the warm-slot journal, ' +
      'each converting the same byte arrays (the frame\'s address; the key its gas handler made, see ' +
      'evm-stack-words-once). addressBytesToHex and slotBytesToHex each remember the last array they ' +
      'converted and its key (these arrays are never modified), so a loop of reads converts the ' +
      'callee once and each slot once. One entry each, compared by identity: a weak map cost more in ' +
      'look-ups and GC than it saved. Only address and slot call sites use them (see the statemanager ' +
      'and evm patches).',
    edits: [
      {
        find: `/**
 * Convert a \`0x\`-prefixed hex string to bytes.`,
        replace: `/** bytesToUnprefixedHex that remembers the last array it converted (for arrays never modified). */
const lastHexMemo = () => {
    let lastBytes;
    let lastHex = '';
    return (bytes) => {
        if (bytes !== lastBytes) {
            lastHex = bytesToUnprefixedHex(bytes);
            lastBytes = bytes;
        }
        return lastHex;
    };
};
/** An address's hex key (Address objects never modify their bytes). */
export const addressBytesToHex = lastHexMemo();
/** A storage key's hex key (the EVM only reads key arrays). */
export const slotBytesToHex = lastHexMemo();
/**
 * Convert a \`0x\`-prefixed hex string to bytes.`,
      },
    ],
  },
];
