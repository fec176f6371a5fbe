/** Reading the files of --init (a geth genesis file) and --import (RLP-encoded blocks). */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { lastFork, type ChainConfig } from '../chain/core/config.js';
import { GenesisFileError, parseGenesisFile, type GenesisFile } from '../chain/core/genesisFile.js';
import { scheduleOfGenesis } from '../chain/core/genesisSchedule.js';

/** The genesis file at `path`; an Error naming the file and the field for anything wrong. */
export function readGenesisFile(path: string): GenesisFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`--init ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    return parseGenesisFile(text);
  } catch (err) {
    if (err instanceof GenesisFileError) throw new Error(`--init ${path}: ${err.message}`);
    throw err;
  }
}

/** The blocks file at `path` (gzip-compressed when its name ends in .gz, as geth's import reads it). */
export function readImportFile(path: string): Uint8Array {
  try {
    const bytes = readFileSync(path);
    return new Uint8Array(path.endsWith('.gz') ? gunzipSync(bytes) : bytes);
  } catch (err) {
    throw new Error(`--import ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/**
 * The chain's settings from a genesis file: its chain id and gas limit unless `chain` sets them
 * (--chain-id, --gas-limit, as anvil gives --chain-id precedence), its timestamp, and its rules
 * unless --hardfork names one.
 */
export function genesisSettings(file: GenesisFile, chain: Partial<ChainConfig> | undefined): Partial<ChainConfig> {
  const settings: Partial<ChainConfig> = {
    genesis: file,
    chainId: chain?.chainId ?? file.chainId,
    gasLimit: chain?.gasLimit ?? file.header.gasLimit,
    timestamp: file.header.timestamp,
    // A genesis file describes a real chain: its blocks before the merge pay their miner, as
    // geth's ethash engine does (a clique chain pays none).
    blockRewards: file.config.clique === undefined,
  };
  if (chain?.hardfork === undefined) {
    let schedule;
    try {
      schedule = scheduleOfGenesis(file.config);
    } catch (err) {
      if (err instanceof GenesisFileError) throw new Error(`--init: ${err.message}`);
      throw err;
    }
    if (typeof schedule === 'string') throw new Error(`--init: ${schedule}`);
    settings.schedule = schedule;
    settings.hardfork = lastFork(schedule);
  }
  return settings;
}
