/** Node configuration: every option the dev chain accepts, with anvil-compatible defaults. */
import { DEFAULT_PATH } from './wallet/defaultKeys.js';
export interface ChainConfig {
  chainId: bigint;
  accounts: number;
  /** Balance of each dev account, in wei. */
  balance: bigint;
  mnemonic: string;
  derivationPath: string;
  gasLimit: bigint;
  /** Base fee of the genesis block (wei). */
  baseFee: bigint;
  /** Floor for eth_gasPrice (wei). */
  gasPriceFloor: bigint;
  hardfork: SupportedHardfork;
  /** Genesis timestamp (seconds); defaults to now. */
  timestamp?: bigint;
  /** Accounts the live state's account and storage caches each hold (default 100,000). */
  stateCacheSize?: number;
  /**
   * Most bytes of runtime code a contract may deploy (EIP-170, anvil's --code-size-limit); init
   * code may be twice as long (EIP-3860), as in anvil. Undefined: the hardfork's limits (24,576
   * and 49,152 bytes); Infinity: no limit (--disable-code-size-limit).
   */
  codeSizeLimit?: number;
}

export const HARDFORKS = ['shanghai', 'cancun', 'prague'] as const;
export type SupportedHardfork = (typeof HARDFORKS)[number];

export const GWEI = 1_000_000_000n;
/** Priority fee the node suggests (eth_maxPriorityFeePerGas) and fills in for eth_sendTransaction. */
export const DEFAULT_TIP = GWEI;
export const ETHER = 10n ** 18n;

export const DEFAULT_MNEMONIC = 'test test test test test test test test test test test junk';

export function defaultConfig(overrides: Partial<ChainConfig> = {}): ChainConfig {
  return {
    chainId: 984n,
    accounts: 10,
    balance: 10_000n * ETHER,
    mnemonic: DEFAULT_MNEMONIC,
    derivationPath: DEFAULT_PATH,
    gasLimit: 30_000_000n,
    baseFee: GWEI,
    gasPriceFloor: 7n * GWEI,
    hardfork: 'prague',
    ...overrides,
  };
}
