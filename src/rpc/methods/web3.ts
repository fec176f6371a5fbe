/** web3_* methods. */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { hex } from '../../format/hex.js';
import { data } from '../codecs.js';
import { method, type MethodDef } from '../registry.js';

/**
 * The API level this node answers like. Tools gate on the start of `web3_clientVersion`
 * (hardhat-network-helpers accept `hardhatnetwork`, `zksync` or `anvil`; viem, forge and cast look for
 * `anvil` too), so the default string leads with this token, as a browser's user agent leads with
 * `Mozilla/5.0`, and then names the node itself.
 */
export const COMPATIBLE_WITH = 'anvil/v1.7.1';

/** `anvil/v1.7.1 node-rpc/v<version>/<os>-<arch>/node-v<ver>` */
export function clientVersion(version: string): string {
  return `${COMPATIBLE_WITH} node-rpc/v${version}/${process.platform}-${process.arch}/node-${process.version}`;
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
