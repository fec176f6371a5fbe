/**
 * Dependency patches: unified diffs against the exact published versions of the pinned
 * @ethereumjs packages, applied to node_modules by `npm run build` (after tsc, before the bundle
 * is made), so the tests, the benchmarks and the shipped bundle all run the same code.
 *
 * - Each patch is `src/chain/engine/patches/<scope>+<name>+<version>.patch`: a reviewable diff whose
 *   preamble says why each change is there and what it cost.
 * - Versions are pinned: every @ethereumjs dependency in package.json names one exact version, and
 *   the build refuses an installed package of any other version, in one line naming it.
 * - Patches apply to pristine files: the first build keeps a copy of each file it touches under
 *   `node_modules/.node-rpc-pristine/`, and every build rebuilds the file from that copy and the
 *   diff. Editing a patch and running `npm run build` therefore applies the edit; a file a patch
 *   no longer touches goes back to the published text.
 * - A hunk whose context is not found, exactly, fails the build naming the patch and the hunk.
 *
 * Usage: node dist/src/build/patchDeps.js [node_modules dir] [patches dir] [package.json]
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder under node_modules that keeps the published text of every patched file. */
export const PRISTINE = '.node-rpc-pristine';
/** The comment every patched change carries; a file holding it without a pristine copy is stale. */
export const MARKER = '/* node-rpc patch: ';

export interface Hunk {
  /** Line number (1-based) the hunk starts at in the original file. */
  start: number;
  /** The original lines (context and removed), and the new ones (context and added). */
  before: string[];
  after: string[];
}

export interface FileDiff {
  /** Path inside the package. */
  path: string;
  hunks: Hunk[];
}

export interface PackagePatch {
  /** The patch file's name. */
  name: string;
  /** The package, e.g. `@ethereumjs/evm`, and the one version the diff is for. */
  pkg: string;
  version: string;
  files: FileDiff[];
}

export class PatchError extends Error {}

/** `@ethereumjs+evm+10.1.3.patch` → package and version. */
export function parsePatchName(name: string): { pkg: string; version: string } {
  const m = /^(?:(@[^+]+)\+)?([^+]+)\+(\d+\.\d+\.\d+[^+]*)\.patch$/.exec(name);
  if (!m) throw new PatchError(`patch file name '${name}' is not <scope>+<package>+<version>.patch`);
  return { pkg: m[1] ? `${m[1]}/${m[2]}` : m[2]!, version: m[3]! };
}

/** Parse a unified diff (text before the first `--- ` line is commentary). */
export function parseDiff(text: string, name = 'patch'): FileDiff[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const files: FileDiff[] = [];
  let i = 0;
  const strip = (p: string) => p.replace(/\t.*$/, '').replace(/^[ab]\//, '');
  while (i < lines.length) {
    if (!lines[i]!.startsWith('--- ') || !lines[i + 1]?.startsWith('+++ ')) {
      i++;
      continue;
    }
    const file: FileDiff = { path: strip(lines[i + 1]!.slice(4)), hunks: [] };
    files.push(file);
    i += 2;
    while (i < lines.length && lines[i]!.startsWith('@@ ')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(lines[i]!);
      if (!m) throw new PatchError(`${name}: bad hunk header '${lines[i]}'`);
      let oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      let newLeft = m[4] === undefined ? 1 : Number(m[4]);
      const hunk: Hunk = { start: Number(m[1]), before: [], after: [] };
      i++;
      while (oldLeft > 0 || newLeft > 0) {
        const line = lines[i++];
        if (line === undefined) throw new PatchError(`${name}: hunk at line ${hunk.start} of ${file.path} is cut short`);
        if (line.startsWith('\\')) continue; // "\ No newline at end of file"
        const body = line.slice(1);
        if (line[0] === ' ' || line === '') {
          hunk.before.push(body);
          hunk.after.push(body);
          oldLeft--;
          newLeft--;
        } else if (line[0] === '-') {
          hunk.before.push(body);
          oldLeft--;
        } else if (line[0] === '+') {
          hunk.after.push(body);
          newLeft--;
        } else throw new PatchError(`${name}: unexpected line in hunk at line ${hunk.start} of ${file.path}: '${line}'`);
      }
      file.hunks.push(hunk);
    }
  }
  return files;
}

/** Apply hunks to a file's text; each hunk's original lines must sit exactly where it says. */
export function applyHunks(text: string, file: FileDiff, name: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let at = 0; // next original line (0-based) not yet copied
  for (const hunk of file.hunks) {
    const start = hunk.before.length === 0 ? hunk.start : hunk.start - 1;
    const matches = start >= at && hunk.before.every((l, k) => lines[start + k] === l);
    if (!matches) {
      throw new PatchError(
        `dependency patch ${name} no longer applies to ${file.path}: the code at line ${hunk.start} changed. ` +
          `Check the new version and update or drop the patch in src/chain/engine/patches/.`,
      );
    }
    out.push(...lines.slice(at, start), ...hunk.after);
    at = start + hunk.before.length;
  }
  out.push(...lines.slice(at));
  return out.join('\n');
}

export function readPatch(path: string): PackagePatch {
  const name = path.split('/').at(-1)!;
  return { name, ...parsePatchName(name), files: parseDiff(readFileSync(path, 'utf8'), name) };
}

/** Every patch in a folder, by file name. */
export function readPatches(dir: string): PackagePatch[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.patch'))
    .sort()
    .map((f) => readPatch(join(dir, f)));
}

function installedVersion(nodeModules: string, pkg: string): string {
  const file = join(nodeModules, pkg, 'package.json');
  if (!existsSync(file)) throw new PatchError(`${pkg} is not installed under ${nodeModules}: run npm ci`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/**
 * The pinned packages: every @ethereumjs dependency, and every patched one, must name one exact
 * version in package.json and be installed at that version.
 */
export function checkPins(nodeModules: string, manifest: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> }, patches: PackagePatch[] = []): void {
  const patched = new Set(patches.map((p) => p.pkg));
  // The engine is bundled (dist/*.js), so it is a devDependency of the package; pinned all the same.
  for (const [pkg, range] of Object.entries({ ...manifest.devDependencies, ...manifest.dependencies })) {
    if (!pkg.startsWith('@ethereumjs/') && !patched.has(pkg)) continue;
    if (!/^\d+\.\d+\.\d+$/.test(range)) throw new PatchError(`${pkg} must be pinned to one exact version in package.json, not '${range}'`);
    const installed = installedVersion(nodeModules, pkg);
    if (installed !== range) throw new PatchError(`${pkg} ${installed} is installed, but node-rpc is pinned to and checked against ${range}: run npm ci`);
  }
}

export type Outcome = 'applied' | 'unchanged' | 'restored';

/** Apply every patch to the packages under `nodeModules`, from their pristine text. */
export function applyPatches(nodeModules: string, patches: PackagePatch[]): Array<{ file: string; outcome: Outcome }> {
  const store = join(nodeModules, PRISTINE);
  // Work out every file's new text first, so a failing patch leaves node_modules as it was.
  const planned = new Map<string, { kept: string; pristine: string; text: string }>();
  for (const patch of patches) {
    const installed = installedVersion(nodeModules, patch.pkg);
    if (installed !== patch.version) throw new PatchError(`${patch.pkg} ${installed} is installed, but ${patch.name} is for ${patch.version}: run npm ci`);
    for (const file of patch.files) {
      const rel = join(patch.pkg, file.path);
      const kept = join(store, `${patch.pkg}@${patch.version}`, file.path);
      let pristine: string;
      if (existsSync(kept)) pristine = readFileSync(kept, 'utf8');
      else {
        pristine = readFileSync(join(nodeModules, rel), 'utf8');
        if (pristine.includes(MARKER)) throw new PatchError(`${rel} holds patches but no pristine copy: reinstall it with npm ci`);
      }
      planned.set(rel, { kept, pristine, text: applyHunks(pristine, file, patch.name) });
    }
  }
  const results: Array<{ file: string; outcome: Outcome }> = [];
  for (const [rel, { kept, pristine, text }] of planned) {
    if (!existsSync(kept)) {
      mkdirSync(dirname(kept), { recursive: true });
      writeFileSync(kept, pristine);
    }
    const live = join(nodeModules, rel);
    const same = readFileSync(live, 'utf8') === text;
    if (!same) writeFileSync(live, text);
    results.push({ file: rel, outcome: same ? 'unchanged' : 'applied' });
  }
  // Files kept from earlier builds that no patch touches now go back to their published text.
  const wanted = new Set([...planned.values()].map((p) => p.kept));
  for (const kept of existsSync(store) ? listFiles(store) : []) {
    if (wanted.has(kept)) continue;
    const parts = relative(store, kept).split('/');
    const scoped = parts[0]!.startsWith('@');
    const nameAt = parts[scoped ? 1 : 0]!;
    const at = nameAt.lastIndexOf('@');
    const pkg = (scoped ? `${parts[0]}/` : '') + nameAt.slice(0, at);
    const rel = join(pkg, ...parts.slice(scoped ? 2 : 1));
    const live = join(nodeModules, rel);
    if (existsSync(live) && installedVersion(nodeModules, pkg) === nameAt.slice(at + 1)) copyFileSync(kept, live);
    rmSync(kept);
    results.push({ file: rel, outcome: 'restored' });
  }
  return results;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const nodeModules = resolve(process.argv[2] ?? join(root, 'node_modules'));
  const patchDir = resolve(process.argv[3] ?? join(root, 'src', 'chain', 'engine', 'patches'));
  const manifest = resolve(process.argv[4] ?? join(root, 'package.json'));
  try {
    const patches = readPatches(patchDir);
    checkPins(nodeModules, JSON.parse(readFileSync(manifest, 'utf8')), patches);
    for (const { file, outcome } of applyPatches(nodeModules, patches)) if (outcome !== 'unchanged') console.log(`${outcome === 'applied' ? 'patched' : 'restored'} ${file}`);
  } catch (err) {
    console.error(err instanceof PatchError ? err.message : String(err));
    process.exit(1);
  }
}
