/**
 * createNode's options: the `node-rpc dev` flags in camelCase, checked by the same value parsers
 * as the flags (src/lib/flags.ts), so a bad value gets the same reason either way. `node-rpc dev`
 * parses its flags into this object and hands it to createNode.
 *
 * Each option is one row of OPTIONS: its flag and its parser. A new flag `--foo-bar` is:
 *  - a field `fooBar` of NodeOptions (src/lib/types.ts, the published declarations),
 *  - a row `fooBar: row('--foo-bar', parser)` here (the type checker wants one for every field),
 *  - a line in `toStart` below, where the value reaches the node's start options,
 *  - a line `fooBar: flags.fooBar` in `nodeOptions` of src/cli/dev.ts, beside the commander option.
 */
import { InvalidArgumentError } from 'commander';
import type { ChainConfig } from '../chain/core/config.js';
import type { BlockOrder } from '../chain/pool/txpool.js';
import { bigUint, blockOrder, clientVersion, derivationPath, ether, forkHeader, forkUrl, hardfork, intIn, mnemonic, seconds } from './flags.js';
import type { StartOptions } from './start.js';
import type { ForkOptions, NodeOptions } from './types.js';

const MAX = Number.MAX_SAFE_INTEGER;

/** A bad option (or a state file path that cannot be used): what the CLI prints as `error: <message>`. */
export class OptionError extends Error {
  override readonly name = 'OptionError';
}

/** A row: the flag an option mirrors and the parser of its value (the flag's text, or a JS value). */
interface Row<T> {
  readonly flag: string;
  readonly parse: (value: unknown, name: string) => T;
}

/** A parser of flag text applied to a JS value: numbers and bigints as their decimal text. */
function fromText<T>(parse: (text: string) => T, what = 'a number or a string'): (value: unknown) => T {
  return (value) => {
    if (typeof value === 'number' && Number.isFinite(value)) return parse(String(value));
    if (typeof value === 'bigint' || typeof value === 'string') return parse(String(value));
    throw new InvalidArgumentError(`must be ${what}`);
  };
}

const int = (min: number, max: number, what: string) => fromText(intIn(min, max, what));
const big = (what: string, min?: bigint) => fromText(bigUint(what, min));
const text = <T>(parse: (text: string) => T) => fromText(parse, 'a string');
const bool = (value: unknown): boolean => {
  if (typeof value !== 'boolean') throw new InvalidArgumentError('must be true or false');
  return value;
};
const path = text((p: string) => {
  if (p === '') throw new InvalidArgumentError('must be a file path');
  return p;
});
const pathOrTrue = (value: unknown): string | boolean => {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string' || value === '') throw new InvalidArgumentError('must be a path or true');
  return value;
};
const paths = (value: unknown): string[] => {
  if (!Array.isArray(value) || !value.every((p) => typeof p === 'string' && p !== '')) throw new InvalidArgumentError('must be an array of directory paths');
  return value as string[];
};
const logging = (value: unknown): boolean | ((line: string) => void) => {
  if (typeof value !== 'boolean' && typeof value !== 'function') throw new InvalidArgumentError('must be true, false or a function taking each line');
  return value as boolean | ((line: string) => void);
};
const headers = (value: unknown): Record<string, string> => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new InvalidArgumentError('must be an object of header names to values');
  let out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new InvalidArgumentError(`header ${k} must be a string`);
    out = forkHeader(`${k}: ${v}`, out);
  }
  return out;
};

const row = <T>(flag: string, parse: (value: unknown) => T): Row<T> => ({ flag, parse });

/** The top-level options, each with the flag it mirrors. */
export const OPTIONS = {
  chainId: row('--chain-id', int(1, MAX, 'chain id')),
  accounts: row('--accounts', int(0, 10_000, 'accounts')),
  balance: row('--balance', fromText(ether)),
  mnemonic: row('--mnemonic', text(mnemonic)),
  derivationPath: row('--derivation-path', text(derivationPath)),
  hardfork: row('--hardfork', text(hardfork)),
  codeSizeLimit: row('--code-size-limit', int(0, MAX, 'code size limit')),
  disableCodeSizeLimit: row('--disable-code-size-limit', bool),
  disableDefaultCreate2Deployer: row('--disable-default-create2-deployer', bool),
  gasLimit: row('--gas-limit', big('gas limit', 21_000n)),
  baseFee: row('--base-fee', big('base fee')),
  gasPrice: row('--gas-price', big('gas price')),
  maxLogs: row('--max-logs', int(1, MAX, 'max logs')),
  maxTraceSteps: row('--max-trace-steps', int(0, MAX, 'max trace steps')),
  rpcGasCap: row('--rpc-gas-cap', big('rpc gas cap', 21_000n)),
  callWorkers: row('--call-workers', int(0, 64, 'call workers')),
  callTimeout: row('--call-timeout', int(0, 3_600_000, 'call timeout')),
  filterTimeout: row('--filter-timeout', int(1, 86_400 * 365, 'filter timeout')),
  blockTime: row('--block-time', fromText(seconds)),
  mining: row('--mining / --no-mining', bool),
  order: row('--order', text(blockOrder)),
  throwOnTransactionFailures: row('--throw-on-transaction-failures', bool),
  fork: row('--fork-url', (v) => v as ForkOptions),
  loadState: row('--load-state', path),
  init: row('--init', path),
  import: row('--import', path),
  dumpState: row('--dump-state', path),
  state: row('--state', path),
  stateInterval: row('--state-interval', fromText(seconds)),
  artifacts: row('--artifacts', paths),
  coverage: row('--coverage', pathOrTrue),
  gasReport: row('--gas-report', pathOrTrue),
  explorer: row('--explorer / --no-explorer', bool),
  clientVersion: row('--client-version', text(clientVersion)),
  logging: row('(request log)', logging),
  silent: row('--silent', bool),
} satisfies Record<keyof NodeOptions, Row<unknown>>;

/** The fields of `fork`, each with the flag it mirrors. */
export const FORK_OPTIONS = {
  url: row('--fork-url', text(forkUrl)),
  blockNumber: row('--fork-block-number', big('fork block number')),
  headers: row('--fork-header', headers),
  retries: row('--fork-retries', int(0, 100, 'fork retries')),
  timeout: row('--fork-timeout', int(1, 3_600_000, 'fork timeout')),
  chainId: row('--fork-chain-id', int(1, MAX, 'fork chain id')),
  cache: row('--fork-cache', path),
} satisfies Record<keyof ForkOptions, Row<unknown>>;

type Parsed<R> = { -readonly [K in keyof R]?: R[K] extends Row<infer T> ? T : never };
export type CheckedOptions = Omit<Parsed<typeof OPTIONS>, 'fork'> & { fork?: Parsed<typeof FORK_OPTIONS> & { url: string } };

/** The options checked, each value parsed; an Error naming the option and its flag for anything wrong. */
export function checkOptions(options: NodeOptions): CheckedOptions {
  if (options === null || typeof options !== 'object') throw new OptionError('createNode: options must be an object');
  const out = checkRows(options as Record<string, unknown>, OPTIONS, '') as CheckedOptions;
  if (options.fork !== undefined) {
    if (options.fork === null || typeof options.fork !== 'object') throw new OptionError('createNode: option fork (--fork-url) must be an object such as { url }');
    const fork = checkRows(options.fork as unknown as Record<string, unknown>, FORK_OPTIONS, 'fork.');
    if (fork.url === undefined) throw new OptionError('createNode: option fork.url (--fork-url) is required with fork');
    out.fork = fork as unknown as CheckedOptions['fork'];
  }
  if (out.codeSizeLimit !== undefined && out.disableCodeSizeLimit === true) {
    throw new OptionError('createNode: --code-size-limit and --disable-code-size-limit cannot be used together (options codeSizeLimit and disableCodeSizeLimit)');
  }
  if (out.stateInterval !== undefined && out.dumpState === undefined && out.state === undefined) {
    throw new OptionError('createNode: option stateInterval (--state-interval) needs dumpState or state');
  }
  return out;
}

function checkRows(given: Record<string, unknown>, rows: Record<string, Row<unknown>>, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given)) {
    const r = rows[name];
    if (r === undefined) throw new OptionError(`createNode: unknown option ${prefix}${name} (known: ${Object.keys(rows).join(', ')})`);
    if (value === undefined) continue;
    try {
      out[name] = r.parse(value, name);
    } catch (err) {
      throw new OptionError(`createNode: invalid option ${prefix}${name} (${r.flag}): ${(err as Error).message}`);
    }
  }
  return out;
}

/** Options of the node's start (src/lib/start.ts) from checked options; the transport's stay with listen. */
export function toStart(o: CheckedOptions): StartOptions {
  const chain: Partial<ChainConfig> = {};
  if (o.chainId !== undefined) chain.chainId = BigInt(o.chainId);
  if (o.accounts !== undefined) chain.accounts = o.accounts;
  if (o.balance !== undefined) chain.balance = o.balance;
  if (o.mnemonic !== undefined) chain.mnemonic = o.mnemonic;
  if (o.derivationPath !== undefined) chain.derivationPath = o.derivationPath;
  if (o.gasLimit !== undefined) chain.gasLimit = o.gasLimit;
  if (o.baseFee !== undefined) chain.baseFee = o.baseFee;
  if (o.gasPrice !== undefined) chain.gasPriceFloor = o.gasPrice;
  if (o.hardfork !== undefined) chain.hardfork = o.hardfork;
  if (o.disableCodeSizeLimit === true) chain.codeSizeLimit = Number.POSITIVE_INFINITY;
  else if (o.codeSizeLimit !== undefined) chain.codeSizeLimit = o.codeSizeLimit;
  if (o.disableDefaultCreate2Deployer === true) chain.create2Deployer = false;
  const mining = o.mining !== false;
  const f = o.fork;
  return {
    chain,
    maxLogs: o.maxLogs ?? DEFAULT_MAX_LOGS,
    maxTraceSteps: o.maxTraceSteps === 0 ? Number.POSITIVE_INFINITY : o.maxTraceSteps,
    filterTimeoutMs: o.filterTimeout === undefined ? undefined : o.filterTimeout * 1000,
    calls: { gasCap: o.rpcGasCap, timeoutMs: o.callTimeout },
    callWorkers: o.callWorkers ?? 0,
    mining: {
      auto: mining && o.blockTime === undefined,
      intervalMs: mining && o.blockTime !== undefined ? Math.max(1, Math.round(o.blockTime * 1000)) : undefined,
      order: o.order as BlockOrder | undefined,
      throwOnFailures: o.throwOnTransactionFailures === true,
    },
    explorer: o.explorer,
    clientVersion: o.clientVersion,
    init: o.init,
    importChain: o.import,
    fork:
      f === undefined
        ? undefined
        : {
            url: f.url,
            blockNumber: f.blockNumber,
            headers: f.headers,
            retries: f.retries ?? 5,
            timeoutMs: f.timeout ?? 45_000,
            chainId: f.chainId === undefined ? undefined : BigInt(f.chainId),
            cacheDir: f.cache,
          },
  };
}

/** Default maxLogs (--max-logs): geth-style, a query past it is told to narrow its block range. */
export const DEFAULT_MAX_LOGS = 10_000;
