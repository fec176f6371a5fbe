/**
 * The chain's rules: one Common per fork, each built once with a fixed hardfork and never
 * re-resolved per block.
 *
 * `ChainRules` (below) holds a chain's fork schedule (src/chain/core/config.ts) as one prepared
 * Common per fork it lists: `rules.at(number, timestamp)` is the Common a block with that number
 * and timestamp runs (one fork: the same Common, no search), `rules.forkAt(…)` its fork's name,
 * `rules.single` the Common when only one fork is listed. A VM runs one Common; the node keeps a VM
 * per Common over the same state and picks the block's.
 *
 *
 * ethereumjs copies the Common into every transaction and header it constructs and then calls
 * `updateParams` on the copy, which deep-clones every parameter set and rebuilds the parameter
 * cache: measured here as the largest single cost of an eth_call. The parameter sets are module
 * constants, so after one warm-up merge each later call is a no-op; we remember which sets were
 * merged and skip the rebuild.
 */
import { createHash } from 'node:crypto';
import { createBlockHeader } from '@ethereumjs/block';
import { Common, Holesky, Hoodi, Mainnet, Sepolia, createCustomCommon, type ChainConfig as ChainParams } from '@ethereumjs/common';
import { createTx } from '@ethereumjs/tx';
import { MAX_RLP_BLOCK_SIZE } from '@ethereumjs/util';
import { HARDFORKS, LATEST_HARDFORK, forkAt, isAtLeast, lastFork, type BlobParams, type ForkSchedule, type ForkStart, type SupportedHardfork } from '../core/config.js';
import { ecrecover, ecsign } from './secp256k1.js';
import { keccak256 } from '../core/keccak.js';
import { lazyKzg } from './kzg.js';

/**
 * SHA-256 from node:crypto (OpenSSL) for the SHA256 precompile, blob versioned hashes and the
 * EIP-7685 requests hash, where ethereumjs defaults to @noble/hashes' JavaScript one: 1.4 against
 * 5.0 µs for 1 KiB here, and no JavaScript to warm up. A plain Uint8Array, not a Buffer, so
 * `slice` copies as everywhere else in the engine.
 */
function sha256(bytes: Uint8Array): Uint8Array {
  // Every block without requests hashes nothing (its EIP-7685 requests hash): a copy of that
  // digest saves a hash object (~3-5 µs) per block.
  if (bytes.length === 0) return EMPTY_SHA256.slice();
  const digest = createHash('sha256').update(bytes).digest();
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.length);
}

const EMPTY_SHA256 = Uint8Array.from(createHash('sha256').digest());

/**
 * The chain's rules. With `codeSizeLimit` (bytes; Infinity: none) contracts may deploy that much
 * runtime code and twice as much init code, in place of EIP-170's and EIP-3860's limits.
 */
export function makeCommon(chainId: bigint, hardfork: SupportedHardfork, codeSizeLimit?: number, blobs?: BlobParams, blockRewards = false): Common {
  // EIP-7934 (the block size limit) is part of Osaka, but ethereumjs 10.1.3 leaves it out of
  // Osaka's EIP list and defines its parameter in no parameter set: both are given here, so that
  // the rule is active (the block builder enforces it; a block read from RLP is checked).
  const eips = isAtLeast(hardfork, 'osaka') ? [7934] : [];
  const params = { 7934: { maxRlpBlockSize: MAX_RLP_BLOCK_SIZE } };
  const common = createCustomCommon({ chainId: Number(chainId), name: 'node-rpc' }, Mainnet, { hardfork, eips, params, customCrypto: { ecrecover, ecsign, keccak256, sha256, kzg: lazyKzg } });
  if (codeSizeLimit !== undefined) limitCodeSize(common, codeSizeLimit);
  if (blobs !== undefined && isAtLeast(hardfork, 'cancun')) setBlobParams(common, blobs);
  // Blocks before the merge paid their miner a reward (5, 3, then 2 ether). A dev chain's blocks
  // pay none, as anvil's do; a chain replaying real blocks (`blockRewards`) pays them.
  if (!blockRewards && !isAtLeast(hardfork, 'paris')) overrideParams(common, { minerReward: 0n });
  const merged = new WeakSet<object>();
  const update = Common.prototype.updateParams;
  // An own property, so Common.copy() (Object.assign) carries it to every copy.
  common.updateParams = function (this: Common, params) {
    if (merged.has(params)) return this;
    merged.add(params);
    // Merge into the base too, so every later copy already carries this set.
    if (this !== common) update.call(common, params);
    return update.call(this, params);
  };
  // The EVM asks isActivatedEIP several times on every step; ethereumjs scans an array of ~80 EIPs
  // each time. The hardfork never changes here, so a table indexed by EIP number answers the same.
  const activated = (common as unknown as { _activatedEIPsCache: number[] })._activatedEIPsCache;
  const active = new Uint8Array(Math.max(0, ...activated) + 1);
  for (const eip of activated) active[eip] = 1;
  common.isActivatedEIP = (eip: number) => active[eip] === 1;
  // Merge the block and transaction parameter sets into the base Common before anything copies it.
  createBlockHeader({}, { common });
  // Only the transaction types the fork knows (EIP-2930 from berlin, EIP-1559 from london).
  for (const [type, eip] of [[0, 0], [1, 2930], [2, 1559]]) if (eip === 0 || common.isActivatedEIP(eip)) createTx({ type, chainId: type > 0 ? chainId : undefined } as never, { common });
  return common;
}

/** A chain's rules under its fork schedule: one prepared Common per fork listed. */
export class ChainRules {
  /** The Common of every block when the schedule lists one fork; undefined otherwise. */
  readonly single: Common | undefined;
  /** The newest fork listed, and its Common. */
  readonly last: Common;
  private readonly byFork = new Map<SupportedHardfork, Common>();

  /**
   * `blockRewards`: blocks before paris pay their miner ethereumjs's reward (a chain replaying real
   * blocks); without it they pay none, as anvil's dev chains.
   */
  constructor(
    readonly chainId: bigint,
    readonly schedule: ForkSchedule,
    readonly codeSizeLimit?: number,
    readonly blockRewards = false,
  ) {
    for (const { fork } of schedule.forks) this.byFork.set(fork, makeCommon(chainId, fork, codeSizeLimit, schedule.blobSchedule?.[fork], blockRewards));
    this.last = this.byFork.get(lastFork(schedule))!;
    this.single = schedule.forks.length === 1 ? this.last : undefined;
  }

  /** The fork a block with this number and timestamp runs. */
  forkAt(number: bigint, timestamp: bigint): SupportedHardfork {
    return this.single !== undefined ? this.schedule.forks[0].fork : forkAt(this.schedule, number, timestamp);
  }

  /** The Common a block with this number and timestamp runs. */
  at(number: bigint, timestamp: bigint): Common {
    return this.single ?? this.byFork.get(forkAt(this.schedule, number, timestamp))!;
  }

  /** The Common of `fork` (one of the forks listed). */
  of(fork: SupportedHardfork): Common | undefined {
    return this.byFork.get(fork);
  }

  /** Every prepared Common, oldest fork first. */
  commons(): Common[] {
    return [...this.byFork.values()];
  }
}

/**
 * A fork's blob parameters from a genesis file's `blobSchedule` (EIP-7840) in place of its own:
 * ethereumjs reads target and maximum per block (cancun to osaka) or per blob (the BPO forks).
 */
function setBlobParams(common: Common, blobs: BlobParams): void {
  // EIP-4844's GAS_PER_BLOB: a parameter of the block library's set, not yet merged into the Common here.
  const perBlob = 131_072n;
  overrideParams(common, {
    target: BigInt(blobs.target),
    max: BigInt(blobs.max),
    targetBlobGasPerBlock: BigInt(blobs.target) * perBlob,
    maxBlobGasPerBlock: BigInt(blobs.max) * perBlob,
    blobGasPriceUpdateFraction: BigInt(blobs.baseFeeUpdateFraction),
  });
}

/** Parameters of `common` answered from `values` (an own property, carried to copies). */
function overrideParams(common: Common, values: Record<string, bigint>): void {
  const param = common.param;
  common.param = function (this: Common, name: string): bigint {
    const v = values[name];
    return v !== undefined ? v : param.call(this, name);
  };
}

/** Past any code a transaction or a frame could carry: no limit in effect. */
const NO_LIMIT = 1n << 64n;

/**
 * Replace the code size limits `common` reports. The EVM (CREATE, CREATE2, creation transactions)
 * and transaction construction (EIP-3860's check of a creation transaction's data) read both
 * limits from the Common's parameters, so every path that executes or builds a transaction under
 * these rules (mined blocks, calls, estimates, traces, call workers, forks) gets them. An own
 * property, so Common.copy() (Object.assign) carries it, as `updateParams` above.
 */
function limitCodeSize(common: Common, limit: number): void {
  const code = Number.isFinite(limit) ? BigInt(limit) : NO_LIMIT;
  const initCode = Number.isFinite(limit) ? 2n * code : NO_LIMIT;
  const param = Common.prototype.param;
  common.param = function (this: Common, name: string): bigint {
    if (name === 'maxCodeSize') return code;
    if (name === 'maxInitCodeSize') return initCode;
    return param.call(this, name);
  };
}

/** EIP-7825's cap on a transaction's gas limit (2^24), from the rules of `common`; undefined before Osaka. */
export function txGasCap(common: Common): bigint | undefined {
  return common.isActivatedEIP(7825) ? common.param('maxTransactionGasLimit') : undefined;
}

const uncapped = new WeakMap<Common, Common>();

/**
 * The chain's rules for building a transaction object: the same Common but for EIP-7825, which
 * ethereumjs checks when it constructs a transaction (throwing its own message). The node checks
 * the cap itself where geth does (admission to the pool, every transaction run into a block, a
 * simulated block with validation) and names it as geth does; calls, estimates and traces of calls
 * run past it, as in geth, up to the RPC gas cap. Nothing else reads EIP-7825 from a transaction's
 * Common.
 */
export function txCommon(common: Common): Common {
  if (!common.isActivatedEIP(7825)) return common;
  let copy = uncapped.get(common);
  if (copy === undefined) {
    copy = common.copy();
    const isActivated = common.isActivatedEIP;
    copy.isActivatedEIP = (eip: number) => eip !== 7825 && isActivated.call(common, eip);
    uncapped.set(common, copy);
  }
  return copy;
}

/** The public chains whose forks ethereumjs 10 knows, by chain id. */
const KNOWN_CHAINS = new Map<bigint, ChainParams>([Mainnet, Sepolia, Holesky, Hoodi].map((c) => [BigInt(c.chainId), c]));

/** The name of a chain whose fork schedule this node knows (mainnet, sepolia, holesky, hoodi), else undefined. */
export function knownChainName(chainId: bigint): string | undefined {
  return KNOWN_CHAINS.get(chainId)?.name;
}

/** The rules a fork of chain `chainId` runs without `--hardfork`: a known chain's schedule, else (or not forking) the default fork from genesis on. */
export function rulesOfChain(chainId: bigint | undefined): { hardfork: SupportedHardfork; schedule: ForkSchedule | undefined } {
  const schedule = chainId === undefined ? undefined : knownSchedule(chainId);
  return { hardfork: schedule === undefined ? LATEST_HARDFORK : lastFork(schedule), schedule };
}

/**
 * The fork schedule of a public chain ethereumjs knows (`--fork-url` of mainnet, sepolia, holesky
 * or hoodi), from ethereumjs's own record of it; undefined for another chain. Forks that begin
 * together are one entry (the later one), so a chain whose forks up to london began at genesis
 * prepares one Common for them. The DAO fork is left out (see HARDFORKS).
 */
export function knownSchedule(chainId: bigint): ForkSchedule | undefined {
  const chain = KNOWN_CHAINS.get(chainId);
  if (chain === undefined) return undefined;
  const forks: ForkStart[] = [];
  for (const h of chain.hardforks) {
    if (!(HARDFORKS as readonly string[]).includes(h.name)) continue;
    const fork = h.name as SupportedHardfork;
    const timed = isAtLeast(fork, 'shanghai');
    const at = timed ? h.timestamp : h.block;
    if (at === null || at === undefined) continue;
    const start: ForkStart = timed ? { fork, time: BigInt(at) } : { fork, block: BigInt(at) };
    const prev = forks[forks.length - 1];
    const atGenesis = BigInt(at) === 0n;
    if (atGenesis) forks.length = 0;
    else if (prev !== undefined && (timed ? prev.time === start.time : prev.block === start.block)) forks.pop();
    forks.push(atGenesis && !timed ? start : atGenesis ? { fork, block: 0n } : start);
  }
  return { forks };
}
