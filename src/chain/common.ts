/** The chain's Common: built once with a fixed hardfork, never re-resolved per block. */
import { Common, Mainnet, createCustomCommon } from '@ethereumjs/common';
import type { SupportedHardfork } from './config.js';

export function makeCommon(chainId: bigint, hardfork: SupportedHardfork): Common {
  return createCustomCommon({ chainId: Number(chainId), name: 'node-rpc' }, Mainnet, { hardfork });
}
