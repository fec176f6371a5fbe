/**
 * The chain's Common: built once with a fixed hardfork, never re-resolved per block.
 *
 * ethereumjs copies the Common into every transaction and header it constructs and then calls
 * `updateParams` on the copy, which deep-clones every parameter set and rebuilds the parameter
 * cache: measured here as the largest single cost of an eth_call. The parameter sets are module
 * constants, so after one warm-up merge each later call is a no-op; we remember which sets were
 * merged and skip the rebuild.
 */
import { createHash } from 'node:crypto';
import { createBlockHeader } from '@ethereumjs/block';
import { Common, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { createTx } from '@ethereumjs/tx';
import { MAX_RLP_BLOCK_SIZE } from '@ethereumjs/util';
import { isAtLeast, type SupportedHardfork } from '../core/config.js';
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
export function makeCommon(chainId: bigint, hardfork: SupportedHardfork, codeSizeLimit?: number): Common {
  // EIP-7934 (the block size limit) is part of Osaka, but ethereumjs 10.1.3 leaves it out of
  // Osaka's EIP list and defines its parameter in no parameter set: both are given here, so that
  // the rule is active (the block builder enforces it; a block read from RLP is checked).
  const eips = isAtLeast(hardfork, 'osaka') ? [7934] : [];
  const params = { 7934: { maxRlpBlockSize: MAX_RLP_BLOCK_SIZE } };
  const common = createCustomCommon({ chainId: Number(chainId), name: 'node-rpc' }, Mainnet, { hardfork, eips, params, customCrypto: { ecrecover, ecsign, keccak256, sha256, kzg: lazyKzg } });
  if (codeSizeLimit !== undefined) limitCodeSize(common, codeSizeLimit);
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
  for (const type of [0, 1, 2]) createTx({ type, chainId: type > 0 ? chainId : undefined } as never, { common });
  return common;
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
