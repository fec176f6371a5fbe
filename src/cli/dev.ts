/** `node-rpc dev`: boot the chain, serve it, log requests and blocks, shut down cleanly. */
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import chalk from 'chalk';
import { InvalidArgumentError, type Command } from 'commander';
import { defaultConfig, type ChainConfig, type SupportedHardfork } from '../chain/config.js';
import { createAddressFromString } from '@ethereumjs/util';
import { prepareStatePath, writeStateFile } from '../chain/controls/stateDisk.js';
import { dumpState } from '../chain/controls/stateFile.js';
import { DEFAULT_MAX_TRACE_STEPS } from '../chain/node.js';
import { LATEST } from '../chain/types.js';
import type { BlockOrder } from '../chain/pool/txpool.js';
import { detectArtifactDirs, loadArtifacts } from '../artifacts/load.js';
import { banner } from './banner.js';
import { bigUint, derivationPath, ether, forkHeader, forkUrl, hardfork, intIn, mnemonic } from './flags.js';
import { RequestLog } from './log.js';
import { addSharedFlags, reloadKeysOnHangup, sharedStart, type SharedFlags } from './sharedFlags.js';
import { startDev } from './start.js';
import { VERSION } from './version.js';

interface DevFlags {
  port: number;
  host: string;
  chainId: number;
  accounts: number;
  balance?: bigint;
  mnemonic: string;
  derivationPath: string;
  gasLimit?: bigint;
  baseFee?: bigint;
  gasPrice?: bigint;
  hardfork: SupportedHardfork;
  codeSizeLimit?: number;
  disableCodeSizeLimit?: boolean;
  silent?: boolean;
  maxLogs: number;
  maxTraceSteps: number;
  filterTimeout: number;
  blockTime?: number;
  mining: boolean;
  order: BlockOrder;
  throwOnTransactionFailures?: boolean;
  dumpState?: string;
  loadState?: string;
  state?: string;
  stateInterval?: number;
  forkUrl?: string;
  forkBlockNumber?: bigint;
  forkHeader?: Record<string, string>;
  forkRetries: number;
  forkTimeout: number;
  forkChainId?: number;
  forkCache?: string;
  artifacts?: string[];
  explorer: boolean;
  clientVersion?: string;
  rpcGasCap?: bigint;
  callTimeout: number;
  callWorkers: number;
}

/** Seconds, fractions allowed (--block-time 0.5). */
function seconds(text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0)) throw new InvalidArgumentError('must be a positive number of seconds, e.g. 2 or 0.5');
  return n;
}

/** Default --max-logs: geth-style, a query past it is told to narrow its block range. */
const DEFAULT_MAX_LOGS = 10_000;

function clientVersionFlag(text: string): string {
  if (text.trim() === '' || text.length > 256 || /[\x00-\x1f\x7f]/.test(text)) throw new InvalidArgumentError('must be 1 to 256 printable characters');
  return text;
}

function blockOrder(text: string): BlockOrder {
  if (text !== 'fees' && text !== 'fifo') throw new InvalidArgumentError('must be fees or fifo');
  return text;
}

export function devCommand(program: Command): void {
  const d = defaultConfig();
  const dev = program
    .command('dev')
    .description('start an instant-mining local chain serving JSON-RPC over HTTP and WebSocket')
    .option('-p, --port <port>', 'port to listen on (0 = any free port)', intIn(0, 65535, 'port'), 8545)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--chain-id <id>', 'chain id', intIn(1, Number.MAX_SAFE_INTEGER, 'chain id'), Number(d.chainId))
    .option('-a, --accounts <n>', 'number of dev accounts', intIn(0, 10_000, 'accounts'), d.accounts)
    .option('--balance <ether>', 'balance of each dev account, in ether (default: 10000)', ether)
    .option('-m, --mnemonic <words>', 'BIP-39 mnemonic the dev accounts derive from', mnemonic, d.mnemonic)
    .option('--derivation-path <path>', 'derivation path prefix; the account index is appended', derivationPath, d.derivationPath)
    .option('--gas-limit <gas>', `block gas limit (default: ${d.gasLimit})`, bigUint('gas limit', 21_000n))
    .option('--base-fee <wei>', 'base fee of the genesis block, in wei (default 1 gwei)', bigUint('base fee'))
    .option('--block-base-fee-per-gas <wei>', 'alias of --base-fee', bigUint('base fee'))
    .option('--gas-price <wei>', 'floor for eth_gasPrice, in wei (default: 7000000000)', bigUint('gas price'))
    .option('--hardfork <name>', 'hardfork rules: shanghai, cancun or prague', hardfork, d.hardfork)
    .option('--code-size-limit <bytes>', 'most bytes of code a contract may deploy (EIP-170, default 24576); init code may be twice as long (EIP-3860)', intIn(0, Number.MAX_SAFE_INTEGER, 'code size limit'))
    .option('--disable-code-size-limit', 'no limit on the size of deployed code or of init code (hardhat\'s allowUnlimitedContractSize)')
    .option('--max-logs <n>', 'most logs one eth_getLogs / eth_getFilterLogs may return; more is error -32005 naming a narrower range that fits', intIn(1, Number.MAX_SAFE_INTEGER, 'max logs'), DEFAULT_MAX_LOGS)
    .option('--max-trace-steps <n>', 'most struct-log steps one debug_trace* may record (bounds its memory); more is error -32005 (0 = no cap)', intIn(0, Number.MAX_SAFE_INTEGER, 'max trace steps'), DEFAULT_MAX_TRACE_STEPS)
    .option('--rpc-gas-cap <gas>', 'most gas one eth_call / eth_estimateGas / eth_createAccessList / debug_traceCall may use; more is lowered to it (default: 50000000 or the block gas limit, whichever is larger)', bigUint('rpc gas cap', 21_000n))
    .option('--call-workers <n>', 'worker threads that run eth_call beside the main thread (0 = none; default: cores - 1, at most 4)', intIn(0, 64, 'call workers'), DEFAULT_CALL_WORKERS)
    .option('--call-timeout <ms>', 'wall-clock limit of one eth_call / eth_estimateGas / eth_createAccessList / eth_simulateV1, in milliseconds; past it the call fails with "execution aborted (timeout = 5s)" (0 = no limit)', intIn(0, 3_600_000, 'call timeout'), 5_000)
    .option('--filter-timeout <seconds>', 'polling filters not polled for this long expire', intIn(1, 86_400 * 365, 'filter timeout'), 300)
    .option('-b, --block-time <seconds>', 'mine a block every <seconds> (fractions allowed) instead of on every transaction', seconds)
    .option('--no-mining', 'mine only on request (evm_mine, anvil_mine); transactions wait in the pool')
    .option('--order <order>', 'order of transactions in a block: fees (highest tip first) or fifo', blockOrder, 'fees')
    .option('--throw-on-transaction-failures', "with automine, a transaction that fails is mined and its eth_send* answers an error with the revert data (the hardhat node's way)")
    .option('--dump-state <file>', 'write the chain state to <file> on exit (SIGINT/SIGTERM)')
    .option('--load-state <file>', 'load the chain state from <file> at start')
    .option('--state <file>', 'load from <file> at start when it exists, and write it on exit')
    .option('--state-interval <seconds>', 'also write the state file every <seconds>', seconds)
    .option('-f, --fork-url <url>', "fork the chain served at <url>: state and history up to the fork block are read from it on demand, never written", forkUrl)
    .option('--fork-block-number <n>', "block to fork at (default: the upstream's latest)", bigUint('fork block number'))
    .option('--fork-header <header>', 'HTTP header sent to the fork upstream, "Name: value" (repeatable)', forkHeader)
    .option('--fork-retries <n>', 'retries of a failed upstream request (timeouts, 429, 5xx, malformed answers)', intIn(0, 100, 'fork retries'), 5)
    .option('--fork-timeout <ms>', 'time limit of one upstream request, in milliseconds', intIn(1, 3_600_000, 'fork timeout'), 45_000)
    .option('--fork-chain-id <id>', "the upstream's chain id, so it need not be asked (with --fork-block-number and a warm --fork-cache nothing is read at start)", intIn(1, Number.MAX_SAFE_INTEGER, 'fork chain id'))
    .option('--fork-cache <dir>', 'keep what is read from the upstream in <dir>, per chain id and fork block (default: off)')
    .option('--artifacts <dir>', 'Hardhat or Foundry build output (or any folder of ABI JSON files) naming contracts, functions, events and errors in the log and the explorer; repeatable (default: ./artifacts and ./out when present)', (value: string, prev: string[] | undefined) => [...(prev ?? []), value])
    .option('--no-explorer', 'do not serve the block explorer on GET / (browsers get the JSON health answer)')
    .option('--client-version <string>', 'the web3_clientVersion answer (default: "anvil/v1.7.1 node-rpc/v<version>/<os>-<arch>/<node>", so tools that gate on anvil or Hardhat accept the node)', clientVersionFlag)
    .option('--silent', 'print only errors')
    .action(async (flags: DevFlags & SharedFlags & { blockBaseFeePerGas?: bigint }, cmd: Command) => {
      const forkOnly = (['forkBlockNumber', 'forkHeader', 'forkChainId', 'forkCache'] as const).find((k) => flags[k] !== undefined);
      if (flags.forkUrl === undefined && forkOnly !== undefined) {
        process.stderr.write(`error: --${forkOnly.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} needs --fork-url\n`);
        process.exit(1);
      }
      if (flags.codeSizeLimit !== undefined && flags.disableCodeSizeLimit === true) {
        process.stderr.write('error: --code-size-limit and --disable-code-size-limit cannot be used together\n');
        process.exit(1);
      }
      const chain: Partial<ChainConfig> = {
        chainId: BigInt(flags.chainId),
        accounts: flags.accounts,
        balance: flags.balance ?? d.balance,
        mnemonic: flags.mnemonic,
        derivationPath: flags.derivationPath,
        gasLimit: flags.gasLimit ?? d.gasLimit,
        baseFee: flags.baseFee ?? flags.blockBaseFeePerGas ?? d.baseFee,
        gasPriceFloor: flags.gasPrice ?? d.gasPriceFloor,
        hardfork: flags.hardfork,
        codeSizeLimit: flags.disableCodeSizeLimit === true ? Number.POSITIVE_INFINITY : flags.codeSizeLimit,
      };
      // A fork takes the upstream's chain id and block gas limit unless they are given.
      if (flags.forkUrl !== undefined) {
        if (cmd.getOptionValueSource('chainId') !== 'cli') delete chain.chainId;
        if (cmd.getOptionValueSource('gasLimit') !== 'cli') delete chain.gasLimit;
      }
      const out = (line: string) => process.stdout.write(line + '\n');
      const warn = (line: string) => process.stderr.write(`warning: ${line}\n`);
      const artifacts = loadArtifacts(flags.artifacts ?? detectArtifactDirs(), warn);
      const log = new RequestLog(out, flags.silent === true, artifacts);
      const dumpPath = flags.dumpState ?? flags.state;
      const loadPath = flags.loadState ?? (flags.state !== undefined && existsSync(flags.state) ? flags.state : undefined);
      if (flags.stateInterval !== undefined && dumpPath === undefined) {
        process.stderr.write('error: --state-interval needs --dump-state or --state\n');
        process.exit(1);
      }
      if (dumpPath !== undefined) {
        try {
          await prepareStatePath(dumpPath);
        } catch (err) {
          process.stderr.write(`error: cannot use --${flags.state !== undefined ? 'state' : 'dump-state'}: ${(err as Error).message}\n`);
          process.exit(1);
        }
      }
      let running: Awaited<ReturnType<typeof startDev>> | undefined;
      try {
        running = await startDev({
          host: flags.host,
          port: flags.port,
          chain,
          // anvil_setLoggingEnabled(false) silences the request log (errors of the node itself excepted).
          observe: (method, error) => {
            if (running?.node.loggingEnabled === false && error?.code !== -32603) return;
            log.observe(method, error);
          },
          maxLogs: flags.maxLogs,
          maxTraceSteps: flags.maxTraceSteps === 0 ? Number.POSITIVE_INFINITY : flags.maxTraceSteps,
          filterTimeoutMs: flags.filterTimeout * 1000,
          calls: { gasCap: flags.rpcGasCap, timeoutMs: flags.callTimeout },
          callWorkers: flags.callWorkers,
          mining: {
            auto: flags.mining && flags.blockTime === undefined,
            intervalMs: flags.mining && flags.blockTime !== undefined ? Math.max(1, Math.round(flags.blockTime * 1000)) : undefined,
            order: flags.order,
            throwOnFailures: flags.throwOnTransactionFailures === true,
          },
          loadState: loadPath,
          explorer: flags.explorer,
          onSlowClient: (remote, buffered) => process.stderr.write(`WebSocket client ${remote} cut (close 1008): ${buffered} bytes queued that it did not read\n`),
          clientVersion: flags.clientVersion,
          artifacts,
          fork:
            flags.forkUrl === undefined
              ? undefined
              : {
                  url: flags.forkUrl,
                  blockNumber: flags.forkBlockNumber,
                  headers: flags.forkHeader,
                  retries: flags.forkRetries,
                  timeoutMs: flags.forkTimeout,
                  chainId: flags.forkChainId === undefined ? undefined : BigInt(flags.forkChainId),
                  cacheDir: flags.forkCache,
                },
          ...sharedStart(flags, cmd, out, flags.silent === true),
        });
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        const why = e.code === 'EADDRINUSE' ? `port ${flags.port} on ${flags.host} is already in use (try --port 0 or another port)` : e.message;
        process.stderr.write(`error: cannot start: ${why}\n`);
        process.exit(1);
      }
      const node = running.node;
      reloadKeysOnHangup(flags, running.server, (line) => process.stderr.write(line + '\n'));
      log.codeAt = (address) => node.getCode(createAddressFromString(address), LATEST);
      node.events.on('block', (b) => {
        if (node.loggingEnabled) log.block(b);
      });
      node.events.on('emptyBlocks', (first, last) => {
        if (node.loggingEnabled && !flags.silent) out(`    blocks #${first}..#${last}  empty, mined at once`);
      });
      if (running.loaded && !flags.silent) {
        out(`Loaded state from ${loadPath}: ${running.loaded.accounts} accounts${running.loaded.replacedChain ? `, chain up to block #${node.store.headNumber}` : ''}`);
      }
      // Dumps never overlap: a periodic one in progress is awaited by the next and by shutdown.
      let dumping: Promise<void> = Promise.resolve();
      const dump = (path: string) => {
        dumping = dumping.then(async () => writeStateFile(path, JSON.stringify(await dumpState(node, `node-rpc/${VERSION}`))));
        return dumping;
      };
      let periodic: NodeJS.Timeout | undefined;
      if (dumpPath !== undefined && flags.stateInterval !== undefined) {
        periodic = setInterval(() => {
          dump(dumpPath).catch((err: Error) => process.stderr.write(`error: cannot write state to ${dumpPath}: ${err.message}\n`));
        }, Math.max(1, Math.round(flags.stateInterval * 1000)));
        periodic.unref();
      }
      if (!flags.silent) running.node.events.on('console', (tx, lines) => log.console(tx, lines));
      if (!flags.silent) {
        out(banner(running.node, running.server, VERSION, flags.public === true ? { unlock: flags.unlock === true, allowCheats: flags.allowCheats === true } : undefined));
        if (flags.explorer) out(`Explorer: open ${chalk.green(running.server.url + '/')} in a browser${artifacts.size ? ` (${artifacts.size} contract${artifacts.size === 1 ? '' : 's'} from artifacts)` : ''}\n`);
      }
      // Orderly shutdown: refuse new requests (-32000 "node is shutting down") and stop listening,
      // let the ones under way finish, stop interval mining (the pool is kept, in the state
      // file), write the state file, exit 0. A second signal exits at once: the file is only
      // ever replaced by a rename, so it stays whole.
      let stopping = false;
      const stop = async (signal: NodeJS.Signals) => {
        if (stopping) {
          process.stderr.write(`${signal} again: exiting without waiting\n`);
          process.exit(130);
        }
        stopping = true;
        if (periodic) clearInterval(periodic);
        const drained = running!.dispatcher.drain();
        running!.server.stopListening();
        await drained;
        node.miner.setIntervalMining(0);
        log.flush();
        await log.idle();
        let code = 0;
        if (dumpPath !== undefined) {
          try {
            await dump(dumpPath);
            if (!flags.silent) out(`State written to ${dumpPath}`);
          } catch (err) {
            process.stderr.write(`error: cannot write state to ${dumpPath}: ${(err as Error).message}\n`);
            code = 1;
          }
        }
        await running!.close();
        process.exit(code);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
  addSharedFlags(dev);
}

/** Call workers by default: one per core beside the main thread's, at most 4. */
const DEFAULT_CALL_WORKERS = Math.min(4, Math.max(0, availableParallelism() - 1));
