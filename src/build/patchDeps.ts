/**
 * Speed patches to dependencies, applied to node_modules by `npm run build` (after tsc, before
 * the bundle is made), so the tests, the benchmarks and the shipped bundle all run the same code.
 *
 * Each patch replaces one exact piece of a dependency's published JavaScript with code that does
 * the same thing faster, and leaves a marker so that running this again changes nothing. If a
 * dependency update changes the text a patch expects, the build fails and names the patch: it
 * must then be checked against the new version (and dropped if upstream fixed the slowness),
 * never silently skipped. Behaviour never depends on a patch: without one the node is slower.
 *
 * Usage: node dist/src/build/patchDeps.js [node_modules dir]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Patch {
  /** Short name, also the marker left in the patched file. */
  id: string;
  /** The file, relative to node_modules. */
  file: string;
  /** Why: what was slow, and what it cost. */
  why: string;
  /** The exact text replaced (must occur once). */
  find: string;
  replace: string;
}

export const PATCHES: Patch[] = [
  {
    id: 'util-setLength-no-spread',
    file: '@ethereumjs/util/dist/esm/bytes.js',
    why:
      'setLengthLeft/Right padded through array spreads ([...zeros, ...msg]): ~2.5 µs per call, and ' +
      'the EVM calls it for every SLOAD/SSTORE key, MSTORE word and address taken from the stack ' +
      '(a third of a 200-read eth_call). One allocation and a copy do the same.',
    find: `        return right
            ? new Uint8Array([...msg, ...new Uint8Array(length - msg.length)])
            : new Uint8Array([...new Uint8Array(length - msg.length), ...msg]);`,
    replace: `        const padded = new Uint8Array(length);
        padded.set(msg, right ? 0 : length - msg.length);
        return padded;`,
  },
  {
    id: 'util-hex-native',
    file: '@ethereumjs/util/dist/esm/bytes.js',
    why:
      'bytesToUnprefixedHex (the key of every journal, state-cache and address look-up: about eight per ' +
      'SLOAD) built its string a byte at a time, a rope that every Map look-up then flattens: ~0.7 µs ' +
      "per 32-byte key. Node's native hex encoder (what Buffer#toString('hex') calls) gives a flat " +
      'string in ~0.2 µs. Anything that is not a Uint8Array still goes to the original, which rejects it.',
    find: `export const bytesToUnprefixedHex = bytesToUnprefixedHexNoble;`,
    replace: `const nativeHexSlice = typeof Buffer === 'function' && typeof Buffer.prototype.hexSlice === 'function' ? Buffer.prototype.hexSlice : undefined;
export const bytesToUnprefixedHex = nativeHexSlice === undefined
    ? bytesToUnprefixedHexNoble
    : (bytes) => (bytes instanceof Uint8Array ? nativeHexSlice.call(bytes, 0, bytes.length) : bytesToUnprefixedHexNoble(bytes));`,
  },
  {
    id: 'util-bigIntToBytes-direct',
    file: '@ethereumjs/util/dist/esm/bytes.js',
    why:
      'bigIntToBytes prefixed its own toString(16) output with 0x only for hexToBytes to check it with a ' +
      'regular expression and strip the prefix again: every SLOAD/SSTORE key and stack address pays it. ' +
      'The digits go straight to the decoder, which still rejects anything that is not hex.',
    find: 'const bytes = hexToBytes(`0x${padToEven(num.toString(16))}`);',
    replace: 'const bytes = hexToBytesNoble(padToEven(num.toString(16)));',
  },
];

export type Outcome = 'applied' | 'already';

/** The comment a patch leaves in its file: its presence means the patch is applied. */
export const markerOf = (patch: Patch): string => `/* node-rpc patch: ${patch.id} */`;

/** Apply one patch to the text of its file; throws when the expected text is not there exactly once. */
export function patchText(text: string, patch: Patch): { text: string; outcome: Outcome } {
  const marker = markerOf(patch);
  if (text.includes(marker)) return { text, outcome: 'already' };
  const at = text.indexOf(patch.find);
  if (at < 0 || text.indexOf(patch.find, at + 1) >= 0) {
    throw new Error(
      `dependency patch '${patch.id}' no longer applies to ${patch.file}: the code it replaces changed ` +
        `(a dependency update?). Check the new version and update or drop the patch in src/build/patchDeps.ts.`,
    );
  }
  return { text: text.slice(0, at) + `${marker}\n${patch.replace}` + text.slice(at + patch.find.length), outcome: 'applied' };
}

/** Apply every patch under `nodeModules`; returns what each did. */
export function applyPatches(nodeModules: string, patches: Patch[] = PATCHES): Array<{ id: string; outcome: Outcome }> {
  return patches.map((patch) => {
    const path = join(nodeModules, patch.file);
    const { text, outcome } = patchText(readFileSync(path, 'utf8'), patch);
    if (outcome === 'applied') writeFileSync(path, text);
    return { id: patch.id, outcome };
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? 'node_modules');
  try {
    for (const { id, outcome } of applyPatches(dir)) if (outcome === 'applied') console.log(`patched ${id}`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}
