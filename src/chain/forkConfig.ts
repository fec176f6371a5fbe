/**
 * The chain's fork configuration as EIP-7910 (`eth_config`) describes it, as geth answers: `current`
 * is the newest timed fork (shanghai on) the head has reached, `next` the first one after it and
 * `last` the newest scheduled (null when no fork is still to come), each with its activation time (0
 * for a fork active at genesis), blob schedule, precompiles, system contracts and EIP-2124/6122 fork
 * id. A chain whose head runs a fork before shanghai describes that fork as `current`, from genesis.
 */
import { crc32 } from 'node:zlib';
import type { Common } from '@ethereumjs/common';
import { getActivePrecompiles } from '@ethereumjs/evm';
import { FIRST_TIMED_FORK, isAtLeast, type ForkSchedule, type SupportedHardfork } from './core/config.js';

export interface ForkConfig {
  activationTime: number;
  blobSchedule: { baseFeeUpdateFraction: number; max: number; target: number };
  chainId: bigint;
  /** EIP-2124/6122 fork hash: CRC32 of the genesis hash updated with each fork passed after genesis. */
  forkId: Uint8Array;
  precompiles: Record<string, string>;
  systemContracts: Record<string, string>;
}

/** EIP-7910's names of the precompiles, by address. */
const PRECOMPILE_NAMES: Record<string, string> = {
  '0000000000000000000000000000000000000001': 'ECREC',
  '0000000000000000000000000000000000000002': 'SHA256',
  '0000000000000000000000000000000000000003': 'RIPEMD160',
  '0000000000000000000000000000000000000004': 'ID',
  '0000000000000000000000000000000000000005': 'MODEXP',
  '0000000000000000000000000000000000000006': 'BN254_ADD',
  '0000000000000000000000000000000000000007': 'BN254_MUL',
  '0000000000000000000000000000000000000008': 'BN254_PAIRING',
  '0000000000000000000000000000000000000009': 'BLAKE2F',
  '000000000000000000000000000000000000000a': 'KZG_POINT_EVALUATION',
  '000000000000000000000000000000000000000b': 'BLS12_G1ADD',
  '000000000000000000000000000000000000000c': 'BLS12_G1MSM',
  '000000000000000000000000000000000000000d': 'BLS12_G2ADD',
  '000000000000000000000000000000000000000e': 'BLS12_G2MSM',
  '000000000000000000000000000000000000000f': 'BLS12_PAIRING_CHECK',
  '0000000000000000000000000000000000000010': 'BLS12_MAP_FP_TO_G1',
  '0000000000000000000000000000000000000011': 'BLS12_MAP_FP2_TO_G2',
  '0000000000000000000000000000000000000100': 'P256VERIFY',
};

/**
 * Blob targets and limits per block (EIP-4844, raised by EIP-7691 in Prague, kept by Osaka, then
 * raised by the blob-parameter-only forks BPO1 and BPO2 of EIP-7892); none before Cancun.
 */
const NO_BLOBS: ForkConfig['blobSchedule'] = { baseFeeUpdateFraction: 0, max: 0, target: 0 };
const BLOB_SCHEDULES: Partial<Record<SupportedHardfork, ForkConfig['blobSchedule']>> = {
  cancun: { baseFeeUpdateFraction: 3338477, max: 6, target: 3 },
  prague: { baseFeeUpdateFraction: 5007716, max: 9, target: 6 },
  osaka: { baseFeeUpdateFraction: 5007716, max: 9, target: 6 },
  bpo1: { baseFeeUpdateFraction: 8346193, max: 15, target: 10 },
  bpo2: { baseFeeUpdateFraction: 11684671, max: 21, target: 14 },
};

/** The deposit contract a chain without a genesis file's `depositContractAddress` names (mainnet's). */
export const MAINNET_DEPOSIT_CONTRACT = '0x00000000219ab540356cbb839cbe05303d7705fa';

/** System contracts by the fork that introduced them (EIP-4788; EIP-2935, 6110, 7002, 7251). */
const SYSTEM_CONTRACTS: Array<[SupportedHardfork, string, string]> = [
  ['cancun', 'BEACON_ROOTS_ADDRESS', '0x000f3df6d732807ef1319fb7b8bb8522d0beac02'],
  ['prague', 'CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS', '0x0000bbddc7ce488642fb579f8b00f3a590007251'],
  ['prague', 'DEPOSIT_CONTRACT_ADDRESS', MAINNET_DEPOSIT_CONTRACT],
  ['prague', 'HISTORY_STORAGE_ADDRESS', '0x0000f90827f1c53a10cb7a02335b175320002935'],
  ['prague', 'WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS', '0x00000961ef480eb55e80d19ad83579a64c007002'],
];

/** What `forkConfig` needs of one fork besides its rules. */
export interface ForkPoint {
  /** When the fork begins (0: at genesis). */
  activationTime: bigint;
  /** EIP-2124/6122 fork hash of the chain once the fork has begun. */
  forkId: Uint8Array;
  /** The deposit contract's address (EIP-6110), as the chain's config names it. */
  depositContract?: string;
  /** The fork's blob parameters where the schedule changes them. */
  blobSchedule?: ForkConfig['blobSchedule'];
}

export function forkConfig(common: Common, hardfork: SupportedHardfork, at: ForkPoint): ForkConfig {
  const precompiles: Record<string, string> = {};
  for (const address of [...getActivePrecompiles(common).keys()].sort()) {
    const name = PRECOMPILE_NAMES[address];
    if (name !== undefined) precompiles[name] = '0x' + address;
  }
  const systemContracts: Record<string, string> = {};
  for (const [since, name, address] of SYSTEM_CONTRACTS) {
    if (isAtLeast(hardfork, since)) systemContracts[name] = name === 'DEPOSIT_CONTRACT_ADDRESS' ? (at.depositContract ?? address) : address;
  }
  const blobSchedule = at.blobSchedule ?? BLOB_SCHEDULES[hardfork] ?? NO_BLOBS;
  return { activationTime: Number(at.activationTime), blobSchedule, chainId: common.chainId(), forkId: at.forkId, precompiles, systemContracts };
}

/**
 * EIP-2124's fork hash at time `time` (geth's forkid.NewID with every block fork passed): CRC32 of
 * the genesis hash, updated with each fork's activation block, then each activation time up to
 * `time`, as big-endian uint64s; forks at block 0 or at the genesis time count for nothing, and forks
 * sharing a block or a time count once.
 */
export function forkHash(schedule: ForkSchedule, genesisHash: Uint8Array, genesisTime: bigint, time: bigint): Uint8Array {
  const blocks = new Set<bigint>();
  const times = new Set<bigint>();
  for (const f of schedule.forks) {
    if (f.block !== undefined && f.block > 0n) blocks.add(f.block);
    if (f.time !== undefined && f.time > genesisTime && f.time <= time) times.add(f.time);
  }
  let hash = crc32(genesisHash) >>> 0;
  const word = new Uint8Array(8);
  const view = new DataView(word.buffer);
  for (const at of [...[...blocks].sort(cmp), ...[...times].sort(cmp)]) {
    view.setBigUint64(0, at);
    hash = crc32(word, hash) >>> 0;
  }
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, hash);
  return out;
}

const cmp = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

export interface EthConfig {
  current: ForkConfig;
  next: ForkConfig | null;
  last: ForkConfig | null;
}

/** The chain's facts `ethConfig` reads. */
export interface ChainFacts {
  schedule: ForkSchedule;
  /** The Common of one of the schedule's forks. */
  commonOf(fork: SupportedHardfork): Common;
  genesisHash: Uint8Array;
  genesisTime: bigint;
  /** The head block's number and timestamp. */
  headNumber: bigint;
  headTime: bigint;
  depositContract?: string;
}

/** EIP-7910's answer (`eth_config`) for a chain, as geth gives it. */
export function ethConfig(c: ChainFacts): EthConfig {
  const { schedule, genesisTime } = c;
  // The timed forks (shanghai on), with when they begin; a first fork listed at block 0 begins at genesis.
  const timed: Array<{ fork: SupportedHardfork; time: bigint }> = [];
  schedule.forks.forEach((f, i) => {
    const time = f.time ?? (i === 0 && isAtLeast(f.fork, FIRST_TIMED_FORK) ? genesisTime : undefined);
    if (time !== undefined) timed.push({ fork: f.fork, time });
  });
  const describe = (fork: SupportedHardfork, time: bigint): ForkConfig =>
    forkConfig(c.commonOf(fork), fork, {
      activationTime: time <= genesisTime ? 0n : time,
      forkId: forkHash(schedule, c.genesisHash, genesisTime, time),
      depositContract: c.depositContract,
      blobSchedule: schedule.blobSchedule?.[fork],
    });
  let i = -1;
  while (i + 1 < timed.length && timed[i + 1].time <= c.headTime) i++;
  let current: ForkConfig;
  if (i >= 0) current = describe(timed[i].fork, timed[i].time);
  else {
    // Before the first timed fork: the fork the head runs, from genesis (geth has no answer here).
    let fork = schedule.forks[0].fork;
    for (const f of schedule.forks) if (f.block !== undefined && f.block <= c.headNumber) fork = f.fork;
    current = describe(fork, genesisTime);
  }
  if (i + 1 >= timed.length) return { current, next: null, last: null };
  const next = timed[i + 1];
  const last = timed[timed.length - 1];
  return { current, next: describe(next.fork, next.time), last: describe(last.fork, last.time) };
}
