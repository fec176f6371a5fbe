/**
 * The chain's fork configuration as EIP-7910 (`eth_config`) describes it: the one fork this node
 * runs, active from genesis, with its blob schedule, precompiles and system contracts. A dev chain
 * schedules no later fork, so `next` and `last` are null.
 */
import { crc32 } from 'node:zlib';
import type { Common } from '@ethereumjs/common';
import { getActivePrecompiles } from '@ethereumjs/evm';
import { isAtLeast, type SupportedHardfork } from './core/config.js';

export interface ForkConfig {
  activationTime: number;
  blobSchedule: { baseFeeUpdateFraction: number; max: number; target: number };
  chainId: bigint;
  /** EIP-2124/6122 fork hash: CRC32 of the genesis hash (every fork is active at genesis). */
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

/** System contracts by the fork that introduced them (EIP-4788; EIP-2935, 6110, 7002, 7251). */
const SYSTEM_CONTRACTS: Array<[SupportedHardfork, string, string]> = [
  ['cancun', 'BEACON_ROOTS_ADDRESS', '0x000f3df6d732807ef1319fb7b8bb8522d0beac02'],
  ['prague', 'CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS', '0x0000bbddc7ce488642fb579f8b00f3a590007251'],
  ['prague', 'DEPOSIT_CONTRACT_ADDRESS', '0x00000000219ab540356cbb839cbe05303d7705fa'],
  ['prague', 'HISTORY_STORAGE_ADDRESS', '0x0000f90827f1c53a10cb7a02335b175320002935'],
  ['prague', 'WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS', '0x00000961ef480eb55e80d19ad83579a64c007002'],
];

export function forkConfig(common: Common, hardfork: SupportedHardfork, genesisHash: Uint8Array, genesisTime: bigint): ForkConfig {
  const precompiles: Record<string, string> = {};
  for (const address of [...getActivePrecompiles(common).keys()].sort()) {
    const name = PRECOMPILE_NAMES[address];
    if (name !== undefined) precompiles[name] = '0x' + address;
  }
  const systemContracts: Record<string, string> = {};
  for (const [since, name, address] of SYSTEM_CONTRACTS) if (isAtLeast(hardfork, since)) systemContracts[name] = address;
  const forkId = new Uint8Array(4);
  new DataView(forkId.buffer).setUint32(0, crc32(genesisHash) >>> 0);
  return { activationTime: Number(genesisTime), blobSchedule: BLOB_SCHEDULES[hardfork] ?? NO_BLOBS, chainId: common.chainId(), forkId, precompiles, systemContracts };
}
