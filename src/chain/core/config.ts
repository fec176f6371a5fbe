/** Node configuration: every option the dev chain accepts, with anvil-compatible defaults. */
import { DEFAULT_PATH } from './defaultKeys.js';
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
  /** Predeploy the deterministic CREATE2 deployer in a fresh genesis, as anvil does (default on). */
  create2Deployer?: boolean;
  /**
   * Most bytes of runtime code a contract may deploy (EIP-170, anvil's --code-size-limit); init
   * code may be twice as long (EIP-3860), as in anvil. Undefined: the hardfork's limits (24,576
   * and 49,152 bytes); Infinity: no limit (--disable-code-size-limit).
   */
  codeSizeLimit?: number;
}

/**
 * The hardforks the node runs, oldest first. bpo1 and bpo2 are the blob-parameter-only forks
 * (EIP-7892) that followed Osaka on mainnet: Osaka's rules with a higher blob target and maximum.
 */
export const HARDFORKS = ['shanghai', 'cancun', 'prague', 'osaka', 'bpo1', 'bpo2'] as const;
export type SupportedHardfork = (typeof HARDFORKS)[number];

/** Mainnet's current fork (BPO2 since 7 January 2026): the default, and what `latest` names. */
export const LATEST_HARDFORK: SupportedHardfork = 'bpo2';

/** Each fork as anvil spells it (`anvil_nodeInfo`'s `hardFork`). */
export const ANVIL_NAMES: Record<SupportedHardfork, string> = {
  shanghai: 'Shanghai',
  cancun: 'Cancun',
  prague: 'Prague',
  osaka: 'Osaka',
  bpo1: 'Bpo1',
  bpo2: 'Bpo2',
};

/** Whether `hardfork` includes the rules of `since`. */
export function isAtLeast(hardfork: SupportedHardfork, since: SupportedHardfork): boolean {
  return HARDFORKS.indexOf(hardfork) >= HARDFORKS.indexOf(since);
}

/** A hardfork by name, as anvil and Hardhat spell them (any case; `latest` is the default); undefined if unknown. */
export function parseHardfork(name: string): SupportedHardfork | undefined {
  const h = name.trim().toLowerCase();
  if (h === 'latest') return LATEST_HARDFORK;
  return (HARDFORKS as readonly string[]).includes(h) ? (h as SupportedHardfork) : undefined;
}

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
    hardfork: LATEST_HARDFORK,
    ...overrides,
  };
}
