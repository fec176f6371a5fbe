/** web3_* methods. */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { hex } from '../../format/hex.js';
import { data } from '../codecs.js';
import { method, type MethodDef } from '../registry.js';

/** `node-rpc/v<version>/<os>-<arch>/node-v<ver>` */
export function clientVersion(version: string): string {
  return `node-rpc/v${version}/${process.platform}-${process.arch}/node-${process.version}`;
}

export function web3Methods(version: string): MethodDef[] {
  const v = clientVersion(version);
  return [
    /** The client's name, version, platform and runtime. */
    method('web3_clientVersion', [], () => v),
    /** Keccak-256 (not the final SHA3-256) of the given bytes. */
    method('web3_sha3', [data], (bytes) => hex(keccak_256(bytes))),
  ];
}
