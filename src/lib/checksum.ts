/** EIP-55 addresses for the banner, the start-up JSON and `node.accounts`. */
import { toChecksumAddress } from '@ethereumjs/util';
import { defaultChecksum } from '../chain/core/defaultKeys.js';

/** The checksummed form of a lowercase hex address: the default accounts' from their table, any other hashed. */
export function checksummed(address: string): `0x${string}` {
  return (defaultChecksum(address) ?? toChecksumAddress(address)) as `0x${string}`;
}
