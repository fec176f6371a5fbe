/**
 * Speed patches to dependencies, applied to node_modules by `npm run build` (after tsc, before
 * the bundle is made), so the tests, the benchmarks and the shipped bundle all run the same code.
 *
 * Each patch (src/build/patches/, one file per package) replaces exact pieces of a dependency's
 * published JavaScript with code that does the same thing faster, all of its edits or none, and
 * leaves a marker so that running this again changes nothing. If a
 * dependency update changes the text a patch expects, the build fails and names the patch: it
 * must then be checked against the new version (and dropped if upstream fixed the slowness),
 * never silently skipped. Behaviour never depends on a patch: without one the node is slower.
 *
 * Usage: node dist/src/build/patchDeps.js [node_modules dir]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVM_PATCHES } from './patches/evm.js';
import { STATEMANAGER_PATCHES } from './patches/statemanager.js';
import { TX_PATCHES } from './patches/tx.js';
import { UTIL_PATCHES } from './patches/util.js';

/** One replacement: `find` is exact text that must occur once in the file. */
export interface Edit {
  find: string;
  replace: string;
}

export interface Patch {
  /** Short name, also the marker left in the patched file. */
  id: string;
  /** The file, relative to node_modules. */
  file: string;
  /** Why: what was slow, and what it cost. */
  why: string;
  /** Applied together or not at all. */
  edits: Edit[];
}

/** Every patch, in the order applied. */
export const PATCHES: Patch[] = [...UTIL_PATCHES, ...STATEMANAGER_PATCHES, ...EVM_PATCHES, ...TX_PATCHES];

export type Outcome = 'applied' | 'already';

/** The comment a patch leaves in its file: its presence means the patch is applied. */
export const markerOf = (patch: Patch): string => `/* node-rpc patch: ${patch.id} */`;

/** Apply one patch to the text of its file; throws when an expected text is not there exactly once. */
export function patchText(text: string, patch: Patch): { text: string; outcome: Outcome } {
  const marker = markerOf(patch);
  if (text.includes(marker)) return { text, outcome: 'already' };
  for (const { find, replace } of patch.edits) {
    const at = text.indexOf(find);
    if (at < 0 || text.indexOf(find, at + 1) >= 0) {
      throw new Error(
        `dependency patch '${patch.id}' no longer applies to ${patch.file}: the code it replaces changed ` +
          `(a dependency update?). Check the new version and update or drop the patch in src/build/patches/.`,
      );
    }
    text = text.slice(0, at) + `${marker}\n${replace}` + text.slice(at + find.length);
  }
  return { text, outcome: 'applied' };
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
