/**
 * Node configuration: every option the dev chain accepts, with anvil-compatible defaults; the
 * hardforks and fork schedules (`ForkSchedule`, `fixedSchedule`, `forkAt`: see "Fork schedules"
 * below; the engine's `ChainRules` in src/chain/engine/common.ts turns one into per-block rules).
 */
import { DEFAULT_PATH } from './defaultKeys.js';
import type { GenesisFile } from './genesisFile.js';
export interface ChainConfig {
  chainId: bigint;
  accounts: number;
  /** Balance of each dev account, in wei. */
  balance: bigint;
  mnemonic: string;
  derivationPath: string;
  gasLimit: bigint;
  /** Base fee of the genesis block (wei). */
  baseFee: bigint;
  /** Floor for eth_gasPrice (wei). */
  gasPriceFloor: bigint;
  /** The fork every block runs; with `schedule`, the last fork it lists. */
  hardfork: SupportedHardfork;
  /** When each fork begins (a genesis file's config, a known chain's forks); undefined: `hardfork` from genesis on. */
  schedule?: ForkSchedule;
  /** A fork started without `hardfork` or `schedule`: the rules come from the upstream's chain, and a reset to another upstream picks them again. */
  rulesOfFork?: boolean;
  /** Blocks before paris pay their miner the fork's reward (a chain of real blocks); default none, as anvil's. */
  blockRewards?: boolean;
  /** Genesis timestamp (seconds); defaults to now. */
  timestamp?: bigint;
  /** Accounts the live state's account and storage caches each hold (default 100,000). */
  stateCacheSize?: number;
  /** Predeploy the deterministic CREATE2 deployer in a fresh genesis, as anvil does (default on). */
  create2Deployer?: boolean;
  /**
   * Most bytes of runtime code a contract may deploy (EIP-170, anvil's --code-size-limit); init
   * code may be twice as long (EIP-3860), as in anvil. Undefined: the hardfork's limits (24,576
   * and 49,152 bytes); Infinity: no limit (--disable-code-size-limit).
   */
  codeSizeLimit?: number;
  /**
   * A geth genesis file (--init): block 0 is the file's (its accounts only, its header fields),
   * with geth's hash for the file.
   */
  genesis?: GenesisFile;
}

/**
 * The hardforks the node runs, oldest first, in ethereumjs's names (`chainstart` is frontier):
 * every mainnet fork ethereumjs 10 knows but the DAO fork (an irregular state change of mainnet
 * alone, which anvil's dev chains skip too). bpo1 and bpo2 are the blob-parameter-only forks
 * (EIP-7892) that followed Osaka on mainnet: Osaka's rules with a higher blob target and maximum.
 */
export const HARDFORKS = [
  'chainstart', 'homestead', 'tangerineWhistle', 'spuriousDragon', 'byzantium', 'constantinople', 'petersburg',
  'istanbul', 'muirGlacier', 'berlin', 'london', 'arrowGlacier', 'grayGlacier', 'paris',
  'shanghai', 'cancun', 'prague', 'osaka', 'bpo1', 'bpo2',
] as const;
export type SupportedHardfork = (typeof HARDFORKS)[number];

/** Mainnet's current fork (BPO2 since 7 January 2026): the default, and what `latest` names. */
export const LATEST_HARDFORK: SupportedHardfork = 'bpo2';

/** Each fork as anvil spells it (`anvil_nodeInfo`'s `hardFork`). */
export const ANVIL_NAMES: Record<SupportedHardfork, string> = {
  chainstart: 'Frontier',
  homestead: 'Homestead',
  tangerineWhistle: 'Tangerine',
  spuriousDragon: 'SpuriousDragon',
  byzantium: 'Byzantium',
  constantinople: 'Constantinople',
  petersburg: 'Petersburg',
  istanbul: 'Istanbul',
  muirGlacier: 'MuirGlacier',
  berlin: 'Berlin',
  london: 'London',
  arrowGlacier: 'ArrowGlacier',
  grayGlacier: 'GrayGlacier',
  paris: 'Paris',
  shanghai: 'Shanghai',
  cancun: 'Cancun',
  prague: 'Prague',
  osaka: 'Osaka',
  bpo1: 'Bpo1',
  bpo2: 'Bpo2',
};

/** Whether `hardfork` includes the rules of `since`. */
export function isAtLeast(hardfork: SupportedHardfork, since: SupportedHardfork): boolean {
  return HARDFORKS.indexOf(hardfork) >= HARDFORKS.indexOf(since);
}

/**
 * Other spellings of the forks, as anvil, Hardhat and geth write them (compared in lower case,
 * without `-`, `_` or spaces): geth's and anvil's `frontier`, Hardhat's `merge`, anvil's
 * `tangerine`, geth's config keys (`eip150`, `eip158`, `constantinoplefix`).
 */
const ALIASES: Record<string, SupportedHardfork> = {
  frontier: 'chainstart',
  tangerine: 'tangerineWhistle',
  eip150: 'tangerineWhistle',
  spurious: 'spuriousDragon',
  eip155: 'spuriousDragon',
  eip158: 'spuriousDragon',
  constantinoplefix: 'petersburg',
  merge: 'paris',
};

const BY_LOWER = new Map<string, SupportedHardfork>(HARDFORKS.map((h) => [h.toLowerCase(), h]));

/** A hardfork by name, as anvil, Hardhat and geth spell them (any case; `latest` is the default); undefined if unknown. */
export function parseHardfork(name: string): SupportedHardfork | undefined {
  const h = name.trim().toLowerCase().replace(/[-_ ]/g, '');
  if (h === 'latest') return LATEST_HARDFORK;
  return BY_LOWER.get(h) ?? ALIASES[h];
}

/** The first fork whose activation geth counts in seconds (EIP-6122): forks before it begin at a block. */
export const FIRST_TIMED_FORK: SupportedHardfork = 'shanghai';

/* ------------------------------------------------------------------------------------------------
 * Fork schedules: which rules each block runs.
 *
 * A `ForkSchedule` says when each fork of a chain begins, as geth's genesis `config` does:
 * `forks` lists the forks the chain reaches, oldest first, each with the block it begins at
 * (chainstart … paris: `block`) or the time (shanghai on: `time`, seconds); a fork not listed is
 * skipped (its rules come with the next one listed) or never reached (after the last). The first
 * entry begins at block 0. `blobSchedule` gives a fork's blob target, maximum and update fraction
 * where they differ from the fork's own (geth's `blobSchedule`); `terminalTotalDifficulty` is
 * geth's, kept to be shown and written back (paris begins at the block listed for it).
 *
 * - `fixedSchedule(fork)`: one fork from genesis (what `--hardfork` gives): the fast case.
 * - `forkAt(schedule, number, time)`: the fork a block with that number and timestamp runs.
 * - `lastFork(schedule)`: the newest fork listed (what the banner and anvil_nodeInfo name).
 * - `checkSchedule(schedule)`: why a schedule is malformed, or undefined.
 * - `scheduleToJson` / `scheduleFromJson`: the form state files record.
 *
 * The engine turns a schedule into rules: `ChainRules` (src/chain/engine/common.ts) prepares one
 * Common per fork listed, and `rules.at(number, timestamp)` picks a block's (no search when one
 * fork is listed). `ChainConfig.schedule`, when given, replaces `hardfork`; `hardfork` then names
 * the last fork listed.
 * --------------------------------------------------------------------------------------------- */

/** Blob parameters of one fork (geth's `blobSchedule` entry; EIP-7840). */
export interface BlobParams {
  target: number;
  max: number;
  baseFeeUpdateFraction: number;
}

/** Where one fork begins: at a block number (up to paris) or at a timestamp (shanghai on). */
export type ForkStart = { readonly fork: SupportedHardfork; readonly block: bigint; readonly time?: undefined } | { readonly fork: SupportedHardfork; readonly time: bigint; readonly block?: undefined };

export interface ForkSchedule {
  /** The forks the chain reaches, oldest first; the first begins at block 0. */
  readonly forks: readonly ForkStart[];
  /** geth's terminalTotalDifficulty, when a genesis file gave one. */
  readonly terminalTotalDifficulty?: bigint;
  /** Blob parameters by fork where they differ from the fork's own. */
  readonly blobSchedule?: Readonly<Partial<Record<SupportedHardfork, BlobParams>>>;
}

/** One fork from genesis on. */
export function fixedSchedule(fork: SupportedHardfork): ForkSchedule {
  return { forks: [{ fork, block: 0n }] };
}

/** The fork whose rules a block with this number and timestamp runs under `schedule`. */
export function forkAt(schedule: ForkSchedule, number: bigint, time: bigint): SupportedHardfork {
  const forks = schedule.forks;
  let fork = forks[0].fork;
  for (let i = 1; i < forks.length; i++) {
    const f = forks[i];
    if (f.block !== undefined ? f.block > number : f.time > time) break;
    fork = f.fork;
  }
  return fork;
}

/** The newest fork `schedule` lists. */
export function lastFork(schedule: ForkSchedule): SupportedHardfork {
  return schedule.forks[schedule.forks.length - 1].fork;
}

/** Why `schedule` cannot be run (forks out of order, a timed fork by block or the reverse), or undefined. */
export function checkSchedule(schedule: ForkSchedule): string | undefined {
  const { forks } = schedule;
  if (forks.length === 0) return 'the fork schedule lists no fork';
  if (forks[0].block !== 0n && forks[0].time !== 0n) return `the first fork (${forks[0].fork}) must begin at genesis`;
  for (let i = 0; i < forks.length; i++) {
    const f = forks[i];
    const timed = isAtLeast(f.fork, FIRST_TIMED_FORK);
    if (i > 0 && f.block === undefined && !timed) return `${f.fork} begins at a block, not a time`;
    if (i > 0 && f.time === undefined && timed) return `${f.fork} begins at a time, not a block`;
    if (i === 0) continue;
    const p = forks[i - 1];
    if (!isAtLeast(f.fork, p.fork) || f.fork === p.fork) return `${f.fork} is listed after ${p.fork}`;
    if (f.block !== undefined && p.block !== undefined && f.block < p.block) return `${f.fork} begins at block ${f.block}, before ${p.fork} (block ${p.block})`;
    if (f.time !== undefined && p.time !== undefined && f.time < p.time) return `${f.fork} begins at time ${f.time}, before ${p.fork} (time ${p.time})`;
  }
  return undefined;
}

/** A schedule as state files record it: `[fork, "block:N" | "time:T"]` pairs and the rest as decimal text. */
export interface ScheduleJson {
  forks: Array<[string, string]>;
  terminalTotalDifficulty?: string;
  blobSchedule?: Record<string, BlobParams>;
}

export function scheduleToJson(s: ForkSchedule): ScheduleJson {
  const out: ScheduleJson = { forks: s.forks.map((f) => [f.fork, f.block !== undefined ? `block:${f.block}` : `time:${f.time}`]) };
  if (s.terminalTotalDifficulty !== undefined) out.terminalTotalDifficulty = s.terminalTotalDifficulty.toString();
  if (s.blobSchedule !== undefined) out.blobSchedule = { ...s.blobSchedule } as Record<string, BlobParams>;
  return out;
}

/** A schedule from its recorded form; a string naming the problem when it is not one. */
export function scheduleFromJson(j: unknown): ForkSchedule | string {
  const o = j as Partial<ScheduleJson> | null;
  if (typeof o !== 'object' || o === null || !Array.isArray(o.forks)) return 'the schedule must be an object with a "forks" list';
  const forks: ForkStart[] = [];
  for (const e of o.forks as unknown[]) {
    const [name, at] = Array.isArray(e) ? e : [];
    const fork = typeof name === 'string' ? parseHardfork(name) : undefined;
    const m = typeof at === 'string' ? /^(block|time):(\d+)$/.exec(at) : null;
    if (fork === undefined || m === null) return `schedule entry ${JSON.stringify(e)} is not [fork, "block:N" | "time:T"]`;
    forks.push(m[1] === 'block' ? { fork, block: BigInt(m[2]) } : { fork, time: BigInt(m[2]) });
  }
  const blobSchedule: Partial<Record<SupportedHardfork, BlobParams>> = {};
  for (const [name, p] of Object.entries(o.blobSchedule ?? {})) {
    const fork = parseHardfork(name);
    if (fork === undefined || typeof p !== 'object' || p === null || ![p.target, p.max, p.baseFeeUpdateFraction].every(Number.isSafeInteger)) return `blobSchedule.${name} is not a fork's {target, max, baseFeeUpdateFraction}`;
    blobSchedule[fork] = { target: p.target, max: p.max, baseFeeUpdateFraction: p.baseFeeUpdateFraction };
  }
  const ttd = o.terminalTotalDifficulty;
  if (ttd !== undefined && (typeof ttd !== 'string' || !/^\d+$/.test(ttd))) return 'terminalTotalDifficulty must be decimal text';
  const s: ForkSchedule = { forks, ...(ttd !== undefined ? { terminalTotalDifficulty: BigInt(ttd) } : {}), ...(o.blobSchedule !== undefined ? { blobSchedule } : {}) };
  return checkSchedule(s) ?? s;
}

export const GWEI = 1_000_000_000n;
/** Priority fee the node suggests (eth_maxPriorityFeePerGas) and fills in for eth_sendTransaction. */
export const DEFAULT_TIP = GWEI;
export const ETHER = 10n ** 18n;

export const DEFAULT_MNEMONIC = 'test test test test test test test test test test test junk';

export function defaultConfig(overrides: Partial<ChainConfig> = {}): ChainConfig {
  return {
    chainId: 984n,
    accounts: 10,
    balance: 10_000n * ETHER,
    mnemonic: DEFAULT_MNEMONIC,
    derivationPath: DEFAULT_PATH,
    gasLimit: 30_000_000n,
    baseFee: GWEI,
    gasPriceFloor: 7n * GWEI,
    hardfork: LATEST_HARDFORK,
    ...overrides,
  };
}
