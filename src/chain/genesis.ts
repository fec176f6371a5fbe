/** The first block of a chain: a fresh genesis funding the dev accounts, or a fork point. */
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, bytesToHex } from '@ethereumjs/util';
import type { GenesisFile } from './core/genesisFile.js';
import type { ChainConfig } from './core/config.js';
import { CREATE2_DEPLOYER, CREATE2_DEPLOYER_CODE } from './create2Deployer.js';
import type { Fork } from './fork/fork.js';
import { forkPoint } from './fork/genesis.js';
import type { BlockStore } from './head/store.js';
import type { DevAccount } from './wallet/accounts.js';

export interface GenesisTarget {
  readonly state: MerkleStateManager;
  readonly store: BlockStore;
  /** The chain's rules: `at(number, timestamp)` is the Common that block runs. */
  readonly rules: { at(number: bigint, timestamp: bigint): Common };
  readonly config: ChainConfig;
  readonly accounts: readonly DevAccount[];
}

/** Block 0 with every dev account funded (and the CREATE2 deployer unless turned off), at `timestamp`; with a genesis file, that file's block. */
export async function writeGenesis(n: GenesisTarget, timestamp: bigint): Promise<void> {
  if (n.config.genesis !== undefined) return writeFileGenesis(n, n.config.genesis);
  await n.state.checkpoint();
  for (const a of n.accounts) await n.state.putAccount(a.address, new Account(0n, n.config.balance));
  if (n.config.create2Deployer !== false) await n.state.putCode(CREATE2_DEPLOYER, CREATE2_DEPLOYER_CODE);
  await n.state.commit();
  const stateRoot = await n.state.getStateRoot();
  const time = n.config.timestamp ?? timestamp;
  const common = n.rules.at(0n, time);
  const block = createBlock(
    {
      header: {
        number: 0n,
        gasLimit: n.config.gasLimit,
        timestamp: time,
        baseFeePerGas: common.isActivatedEIP(1559) ? n.config.baseFee : undefined,
        stateRoot,
        difficulty: 0n,
        excessBlobGas: common.isActivatedEIP(4844) ? 0n : undefined,
        blobGasUsed: common.isActivatedEIP(4844) ? 0n : undefined,
      },
      withdrawals: common.isActivatedEIP(4895) ? [] : undefined,
    },
    { common },
  );
  const hash = block.hash();
  n.store.add({ block, number: 0n, hash, hashHex: bytesToHex(hash), txs: [] });
}

/**
 * A forked chain starts at the fork block: the upstream's state, with the dev accounts funded
 * (their nonce and code stay the upstream's), under a copy of the fork block's header.
 */
export async function writeForkGenesis(n: GenesisTarget, fork: Fork): Promise<void> {
  await fork.state.prefetch(n.accounts.map((a) => a.address), []);
  await n.state.checkpoint();
  for (const a of n.accounts) await n.state.modifyAccountFields(a.address, { balance: n.config.balance });
  await n.state.commit();
  n.store.rebase(fork.number);
  n.store.add(forkPoint(fork, await n.state.getStateRoot(), n.rules.at(fork.number, fork.header.timestamp), n.config.baseFee));
}

/**
 * The genesis block of a geth genesis file, as geth builds it: the file's accounts and nothing
 * else in the state (no dev accounts, no CREATE2 deployer), so its hash is geth's for the file.
 */
async function writeFileGenesis(n: GenesisTarget, file: GenesisFile): Promise<void> {
  await n.state.checkpoint();
  for (const a of file.alloc) {
    await n.state.putAccount(a.address, new Account(a.nonce, a.balance));
    if (a.code !== undefined) await n.state.putCode(a.address, a.code);
    for (const [slot, value] of a.storage) await n.state.putStorage(a.address, slot, value);
  }
  await n.state.commit();
  const block = fileGenesisBlock(file, await n.state.getStateRoot(), n.rules.at(file.header.number, file.header.timestamp));
  const hash = block.hash();
  n.store.add({ block, number: block.header.number, hash, hashHex: bytesToHex(hash), txs: [] });
}

/** geth's base fee of a genesis at London or later that names none (params.InitialBaseFee). */
const INITIAL_BASE_FEE = 1_000_000_000n;
/** geth's difficulty of a proof-of-work genesis that names none (params.GenesisDifficulty). */
const GENESIS_DIFFICULTY = 131_072n;

/** The genesis block of `file` over the state root `stateRoot`, with the header fields of its rules `common` (geth's Genesis.ToBlock). */
export function fileGenesisBlock(file: GenesisFile, stateRoot: Uint8Array, common: Common): Block {
  const h = file.header;
  const zeroMix = h.mixHash.every((b) => b === 0);
  const difficulty = h.difficulty ?? (file.config.ethash === undefined ? 0n : zeroMix ? GENESIS_DIFFICULTY : 0n);
  const blobs = common.isActivatedEIP(4844);
  return createBlock(
    {
      header: {
        number: h.number,
        parentHash: h.parentHash,
        timestamp: h.timestamp,
        gasLimit: h.gasLimit,
        gasUsed: h.gasUsed,
        difficulty,
        extraData: h.extraData,
        mixHash: h.mixHash,
        nonce: h.nonce,
        coinbase: h.coinbase,
        stateRoot,
        baseFeePerGas: common.isActivatedEIP(1559) ? (h.baseFeePerGas ?? INITIAL_BASE_FEE) : undefined,
        excessBlobGas: blobs ? (h.excessBlobGas ?? 0n) : undefined,
        blobGasUsed: blobs ? (h.blobGasUsed ?? 0n) : undefined,
      },
      withdrawals: common.isActivatedEIP(4895) ? [] : undefined,
    },
    { common, skipConsensusFormatValidation: true },
  );
}
