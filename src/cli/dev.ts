/** `node-rpc dev`: boot the chain, serve it, log requests and blocks, shut down cleanly. */
import { renameSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import chalk from 'chalk';
import type { Command } from 'commander';
import { defaultConfig, type SupportedHardfork } from '../chain/core/config.js';
import { DEFAULT_MAX_TRACE_STEPS } from '../chain/node.js';
import type { BlockOrder } from '../chain/pool/txpool.js';
import { detectArtifactDirs } from '../artifacts/load.js';
import { openNode, type Opened } from '../lib/node.js';
import { DEFAULT_MAX_LOGS, OptionError } from '../lib/options.js';
import type { NodeOptions } from '../lib/types.js';
import { banner } from './banner.js';
import { nodeJson } from './nodeJson.js';
import { HARDFORK_NAMES, bigUint, blockOrder, clientVersion as clientVersionFlag, derivationPath, ether, forkHeader, forkUrl, hardfork, intIn, mnemonic, seconds } from '../lib/flags.js';
import { addSharedFlags, reloadKeysOnHangup, sharedStart, type SharedFlags } from './sharedFlags.js';
import { formatEther } from '../lib/units.js';
import { VERSION } from '../lib/version.js';

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
  init?: string;
  import?: string;
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
  coverage?: string;
  gasReport?: string | boolean;
  explorer: boolean;
  clientVersion?: string;
  rpcGasCap?: bigint;
  callTimeout: number;
  callWorkers: number;
  create2: boolean;
  disableDefaultCreate2Deployer?: boolean;
  configOut?: string;
  json?: boolean;
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
    .option('--hardfork <name>', `hardfork rules: ${HARDFORK_NAMES} or latest (any case; anvil's and geth's spellings too)`, hardfork, d.hardfork)
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
    .option('--init <genesis.json>', "start from a genesis file in geth's format: its accounts, header fields, chain id, gas limit and fork schedule (geth's genesis hash)")
    .option('--import <chain.rlp>', "execute and check the RLP-encoded blocks of <file> (geth's export format) on top of genesis, then serve them")
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
    .option('--coverage <dir>', 'record Solidity coverage (statements, branches, functions, lines) of mined transactions, eth_calls and debug traces from the artifacts\' source maps and ASTs; on exit write <dir>/lcov.info and <dir>/coverage-final.json and print a summary (read and reset while running: node_coverage, node_resetCoverage)')
    .option('--gas-report [file]', 'gas of mined transactions per contract and function (calls, min, max, average, median) and each deployment\'s gas and code size; on exit print the table and write the JSON to [file] (read and reset while running: node_gasReport, node_resetGasReport)')
    .option('--no-explorer', 'do not serve the block explorer on GET / (browsers get the JSON health answer)')
    .option('--client-version <string>', 'the web3_clientVersion answer (default: "anvil-node-rpc/v<version>/<os>-<arch>/<node>", so tools that gate on anvil or Hardhat accept the node)', clientVersionFlag)
    .option('--disable-default-create2-deployer', 'do not predeploy the deterministic CREATE2 deployer at 0x4e59b44847b379578588920ca78fbf26c0b4956c (a fork never gets it: it is the upstream\'s)')
    .option('--no-create2', 'alias of --disable-default-create2-deployer')
    .option('--config-out <file>', "once listening, write anvil's start-up JSON to <file> (accounts, keys, wallet, fees, gas limit, genesis timestamp or fork, URLs)")
    .option('--json', 'print that JSON as the first and only stdout line once listening, instead of the banner; the request log goes to stderr')
    .option('--silent', 'print only errors')
    .action(async (flags: DevFlags & SharedFlags & { blockBaseFeePerGas?: bigint }, cmd: Command) => {
      const forkOnly = (['forkBlockNumber', 'forkHeader', 'forkChainId', 'forkCache'] as const).find((k) => flags[k] !== undefined);
      if (flags.forkUrl === undefined && forkOnly !== undefined) {
        process.stderr.write(`error: --${forkOnly.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} needs --fork-url\n`);
        process.exit(1);
      }
      // With --json stdout carries the one JSON line; everything for people goes to stderr.
      const out = flags.json ? (line: string) => process.stderr.write(line + '\n') : (line: string) => process.stdout.write(line + '\n');
      const warn = (line: string) => process.stderr.write(`warning: ${line}\n`);
      if (flags.stateInterval !== undefined && flags.dumpState === undefined && flags.state === undefined) {
        process.stderr.write('error: --state-interval needs --dump-state or --state\n');
        process.exit(1);
      }
      let shared: ReturnType<typeof sharedStart>;
      let opened: Opened;
      try {
        shared = sharedStart(flags, cmd, out, flags.silent === true);
        opened = await openNode(nodeOptions(flags, cmd, out), {
          start: { ...shared, onSlowClient: (remote, buffered) => process.stderr.write(`WebSocket client ${remote} cut (close 1008): ${buffered} bytes queued that it did not read\n`) },
          warn,
        });
      } catch (err) {
        process.stderr.write(err instanceof OptionError ? `error: ${err.message}\n` : `error: cannot start: ${(err as Error).message}\n`);
        process.exit(1);
      }
      const host = shared.host ?? flags.host;
      try {
        await opened.node.listen({ host, port: flags.port });
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        const why = e.code === 'EADDRINUSE' ? `port ${flags.port} on ${host} is already in use (try --port 0 or another port)` : e.message;
        process.stderr.write(`error: cannot start: ${why}\n`);
        process.exit(1);
      }
      const node = opened.chain;
      const server = opened.server()!;
      // For the launcher (bin/node-rpc.js): it writes its code cache once this node has answered.
      const launcher: NodeJS.EventEmitter = process;
      launcher.emit('node-rpc:serving');
      server.metrics.onFirstAnswer = () => launcher.emit('node-rpc:answered');
      reloadKeysOnHangup(flags, server, (line) => process.stderr.write(line + '\n'));
      if (opened.loaded && !flags.silent) {
        out(`Loaded state from ${opened.loadPath}: ${opened.loaded.accounts} accounts${opened.loaded.replacedChain ? `, chain up to block #${node.store.headNumber}` : ''}`);
      }
      const sharedView = flags.public === true ? { unlock: flags.unlock === true, allowCheats: flags.allowCheats === true } : undefined;
      if (flags.configOut !== undefined || flags.json) {
        const facts = JSON.stringify(nodeJson(node, server, sharedView));
        if (flags.configOut !== undefined) {
          try {
            // Replaced by a rename: a launcher polling for the file never reads half of it.
            writeFileSync(`${flags.configOut}.tmp`, facts + '\n');
            renameSync(`${flags.configOut}.tmp`, flags.configOut);
          } catch (err) {
            process.stderr.write(`error: cannot write --config-out ${flags.configOut}: ${(err as Error).message}\n`);
            await opened.node.close();
            process.exit(1);
          }
        }
        if (flags.json) process.stdout.write(facts + '\n');
      }
      if (!flags.silent && !flags.json) {
        out(banner(node, server, VERSION, sharedView));
        const artifacts = opened.artifacts;
        if (flags.explorer) out(`Explorer: open ${chalk.green(server.url + '/')} in a browser${artifacts?.size ? ` (${artifacts.size} contract${artifacts.size === 1 ? '' : 's'} from artifacts)` : ''}\n`);
      }
      // Orderly shutdown (node.close): refuse new requests and stop listening, let the ones under
      // way finish, write the state file, exit 0. A second signal exits at once: the file is only
      // ever replaced by a rename, so it stays whole.
      let stopping = false;
      const stop = async (signal: NodeJS.Signals) => {
        if (stopping) {
          process.stderr.write(`${signal} again: exiting without waiting\n`);
          process.exit(130);
        }
        stopping = true;
        let code = 0;
        try {
          await opened.node.close();
        } catch (err) {
          process.stderr.write(`error: ${(err as Error).message}\n`);
          code = 1;
        }
        process.exit(code);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
  addSharedFlags(dev);
}

/**
 * createNode's options from the flags: one line per option (src/lib/options.ts checks them). A
 * fork takes the upstream's chain id and block gas limit unless they are given on the command line.
 */
function nodeOptions(flags: DevFlags & { blockBaseFeePerGas?: bigint }, cmd: Command, out: (line: string) => void): NodeOptions {
  const forked = flags.forkUrl !== undefined;
  return {
    chainId: (forked || flags.init !== undefined) && cmd.getOptionValueSource('chainId') !== 'cli' ? undefined : flags.chainId,
    accounts: flags.accounts,
    balance: flags.balance === undefined ? undefined : formatEther(flags.balance),
    mnemonic: flags.mnemonic,
    derivationPath: flags.derivationPath,
    gasLimit: (forked || flags.init !== undefined) && cmd.getOptionValueSource('gasLimit') !== 'cli' ? undefined : flags.gasLimit,
    baseFee: flags.baseFee ?? flags.blockBaseFeePerGas,
    gasPrice: flags.gasPrice,
    // A fork of a chain whose forks are known runs that chain's schedule, a genesis file its own, unless --hardfork says otherwise.
    hardfork: (forked || flags.init !== undefined) && cmd.getOptionValueSource('hardfork') !== 'cli' ? undefined : flags.hardfork,
    codeSizeLimit: flags.codeSizeLimit,
    disableCodeSizeLimit: flags.disableCodeSizeLimit,
    disableDefaultCreate2Deployer: flags.create2 === false || flags.disableDefaultCreate2Deployer === true ? true : undefined,
    maxLogs: flags.maxLogs,
    maxTraceSteps: flags.maxTraceSteps,
    rpcGasCap: flags.rpcGasCap,
    callWorkers: flags.callWorkers,
    callTimeout: flags.callTimeout,
    filterTimeout: flags.filterTimeout,
    blockTime: flags.blockTime,
    mining: flags.mining,
    order: flags.order,
    throwOnTransactionFailures: flags.throwOnTransactionFailures,
    loadState: flags.loadState,
    init: flags.init,
    import: flags.import,
    dumpState: flags.dumpState,
    state: flags.state,
    stateInterval: flags.stateInterval,
    artifacts: flags.artifacts ?? detectArtifactDirs(),
    coverage: flags.coverage,
    gasReport: flags.gasReport,
    explorer: flags.explorer,
    clientVersion: flags.clientVersion,
    logging: out,
    silent: flags.silent === true,
    fork: forked
      ? {
          url: flags.forkUrl!,
          blockNumber: flags.forkBlockNumber,
          headers: flags.forkHeader,
          retries: flags.forkRetries,
          timeout: flags.forkTimeout,
          chainId: flags.forkChainId,
          cache: flags.forkCache,
        }
      : undefined,
  };
}

/** Call workers by default: one per core beside the main thread's, at most 4. */
const DEFAULT_CALL_WORKERS = Math.min(4, Math.max(0, availableParallelism() - 1));
