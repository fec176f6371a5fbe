/**
 * Reading compiler output from disk: Hardhat (`artifacts/**\/<Name>.json`, immutables from the
 * build-info its `.dbg.json` names) and Foundry (`out/<File>.sol/<Name>.json`, immutables and
 * library links in `deployedBytecode`). Anything else with an `abi` array counts as an ABI without
 * code. A file that cannot be read or parsed is skipped with one warning.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Abi } from 'viem';
import { Artifacts, maskCode } from './artifacts.js';
import { SourceLoader } from './loadSources.js';
import { deploymentMasks } from './sources.js';

/** Folders a project keeps its build output in, looked for in the working directory. */
export const DEFAULT_ARTIFACT_DIRS = ['artifacts', 'out'];
/** Stop after this many files, so pointing at a huge folder cannot stall start-up. */
const MAX_FILES = 20_000;

type Ranges = Array<[number, number]>;
interface LinkRefs {
  [source: string]: { [lib: string]: Array<{ start: number; length: number }> };
}
interface ImmutableRefs {
  [id: string]: Array<{ start: number; length: number }>;
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The default folders that exist under `cwd`. */
export function detectArtifactDirs(cwd = process.cwd()): string[] {
  return DEFAULT_ARTIFACT_DIRS.map((d) => join(cwd, d)).filter(isDir);
}

function ranges(refs: LinkRefs | ImmutableRefs | undefined): Ranges {
  const out: Ranges = [];
  if (!refs || typeof refs !== 'object') return out;
  const add = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const r of list) if (r && Number.isInteger(r.start) && Number.isInteger(r.length)) out.push([r.start, r.length]);
  };
  for (const value of Object.values(refs)) {
    if (Array.isArray(value)) add(value);
    else if (value && typeof value === 'object') for (const list of Object.values(value)) add(list);
  }
  return out;
}

/** Runtime code as lowercase hex; library placeholders (`__$…$__`) become zeros. */
function codeHex(text: unknown): string {
  if (typeof text !== 'string') return '';
  const hex = (text.startsWith('0x') ? text.slice(2) : text).toLowerCase();
  // Placeholders are 40 characters: `__$<34 hex>$__` (solc ≥ 0.5) or `__Name____…`.
  return hex.replace(/__.{36}__/g, (m) => '0'.repeat(m.length));
}

export class ArtifactLoader {
  readonly artifacts = new Artifacts();
  private readonly buildInfos = new Map<string, Record<string, unknown> | null>();
  private readonly sources: SourceLoader;
  private files = 0;

  constructor(private readonly warn: (message: string) => void) {
    this.sources = new SourceLoader(this.artifacts.sources, warn);
  }

  /** Load every artifact below `path` (a file or a folder). */
  load(path: string): void {
    if (this.files >= MAX_FILES) return;
    let names: string[];
    if (!isDir(path)) {
      if (path.endsWith('.json')) this.file(path);
      return;
    }
    try {
      names = readdirSync(path).sort();
    } catch (err) {
      this.warn(`artifacts: cannot read ${path}: ${(err as Error).message}`);
      return;
    }
    for (const name of names) {
      const full = join(path, name);
      if (name === 'build-info' || name === 'cache' || name === 'node_modules') continue;
      if (name.endsWith('.dbg.json') || name.endsWith('.metadata.json')) continue;
      if (name.endsWith('.json')) this.file(full);
      else if (isDir(full)) this.load(full);
    }
  }

  private file(path: string): void {
    if (++this.files > MAX_FILES) return;
    let json: Record<string, unknown>;
    try {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return;
      json = parsed as Record<string, unknown>;
    } catch (err) {
      this.warn(`artifacts: skipped ${path}: ${(err as Error).message}`);
      return;
    }
    if (!('abi' in json)) return;
    if (!Array.isArray(json.abi) || json.abi.some((e) => e === null || typeof e !== 'object')) {
      this.warn(`artifacts: skipped ${path}: "abi" is not a list of ABI entries`);
      return;
    }
    const name = typeof json.contractName === 'string' ? json.contractName : basename(path, '.json');
    const deployed = json.deployedBytecode;
    let code: string;
    let masks: Ranges;
    if (typeof deployed === 'string') {
      // Hardhat: link references beside, immutables in the build info.
      code = codeHex(deployed);
      const build = this.hardhatBuild(path, json);
      masks = [...ranges(json.deployedLinkReferences as LinkRefs), ...ranges(build?.immutables)];
      if (build) this.guard(path, () => this.sources.hardhat(build.path, build.info, json, maskCode(code, masks), masks));
    } else if (deployed && typeof deployed === 'object') {
      const d = deployed as { object?: unknown; linkReferences?: LinkRefs; immutableReferences?: ImmutableRefs };
      code = codeHex(d.object);
      masks = [...ranges(d.linkReferences), ...ranges(d.immutableReferences)];
      const m = masks;
      this.guard(path, () => this.sources.foundry(path, json, name, m));
    } else {
      code = '';
      masks = [];
    }
    // The metadata hash differs between builds of the same code (paths, comments): never compared.
    masks = [...masks, ...deploymentMasks(code)];
    try {
      this.artifacts.add({ name, abi: json.abi as Abi, code: maskCode(code, masks), masks });
    } catch (err) {
      this.warn(`artifacts: skipped ${path}: ${(err as Error).message}`);
    }
  }

  /** A malformed artifact costs its source locations, never the node. */
  private guard(path: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.warn(`artifacts: no source locations from ${path}: ${(err as Error).message}`);
    }
  }

  /** The build info a Hardhat artifact's `.dbg.json` names, and the artifact's immutables in it. */
  private hardhatBuild(path: string, json: Record<string, unknown>): { path: string; info: Record<string, unknown>; immutables: ImmutableRefs | undefined } | undefined {
    const dbgPath = path.replace(/\.json$/, '.dbg.json');
    try {
      const dbg = JSON.parse(readFileSync(dbgPath, 'utf8')) as { buildInfo?: string };
      if (typeof dbg.buildInfo !== 'string') return undefined;
      const infoPath = resolve(dirname(dbgPath), dbg.buildInfo);
      let info = this.buildInfos.get(infoPath);
      if (info === undefined) {
        const parsed = JSON.parse(readFileSync(infoPath, 'utf8')) as unknown;
        info = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
        this.buildInfos.set(infoPath, info);
      }
      if (info === null) return undefined;
      const contracts = (info as { output?: { contracts?: Record<string, Record<string, { evm?: { deployedBytecode?: { immutableReferences?: ImmutableRefs } } }>> } }).output?.contracts;
      const entry = contracts?.[json.sourceName as string]?.[json.contractName as string];
      return { path: infoPath, info, immutables: entry?.evm?.deployedBytecode?.immutableReferences };
    } catch {
      // No build info (copied artifacts): the code is matched without masks.
      return undefined;
    }
  }
}

/** Load artifacts from `paths`, warning once per file that cannot be used. */
export function loadArtifacts(paths: readonly string[], warn: (message: string) => void): Artifacts {
  const loader = new ArtifactLoader(warn);
  for (const p of paths) {
    if (!isDir(p) && !p.endsWith('.json')) {
      warn(`artifacts: ${p} is not a folder or a .json file`);
      continue;
    }
    loader.load(p);
  }
  return loader.artifacts;
}
