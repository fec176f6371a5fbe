/** web3_* methods. */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { hex } from '../../format/hex.js';
import { data } from '../codecs.js';
import { method, type MethodDef } from '../registry.js';

/**
 * The client name in the default `web3_clientVersion`. The answer keeps the four fields
 * `<client>/<version>/<os-arch>/<runtime>` (one slash-separated token, no space), and its client
 * field starts with `anvil`: hardhat-network-helpers refuse a node whose lowercased version starts
 * with none of `hardhatnetwork`, `zksync`, `anvil` (a plain prefix test, so `anvil-…` passes).
 * No other tool found gates on it (forge and cast only print it; viem and ethers never ask).
 */
export const CLIENT_NAME = 'anvil-node-rpc';

/** `anvil-node-rpc/v<version>/<os>-<arch>/node-v<ver>` */
export function clientVersion(version: string): string {
  return `${CLIENT_NAME}/v${version}/${process.platform}-${process.arch}/node-${process.version}`;
}

/** `version` is the node's; `client` the whole web3_clientVersion answer (`--client-version`). */
export function web3Methods(version: string, client = clientVersion(version)): MethodDef[] {
  const v = client;
  return [
    /** The client's name, version, platform and runtime. */
    method('web3_clientVersion', [], () => v),
    /** Keccak-256 (not the final SHA3-256) of the given bytes. */
    method('web3_sha3', [data], (bytes) => hex(keccak_256(bytes))),
  ];
}
