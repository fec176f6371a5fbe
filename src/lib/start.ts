/** Boot a dev node and serve it: used by `node-rpc dev` and by the tests. */
import { CallWorkers } from '../chain/exec/offload/pool.js';
import type { ChainConfig } from '../chain/core/config.js';
import { defaultConfig } from '../chain/core/config.js';
import { rulesOfChain } from '../chain/engine/common.js';
import { Fork, type ForkOptions } from '../chain/fork/fork.js';
import { DevNode } from '../chain/node.js';
import type { CallBounds } from '../chain/exec/bounds.js';
import { readStateFile } from '../chain/controls/stateDisk.js';
import { applyState, type LoadResult } from '../chain/controls/stateFile.js';
import type { BlockOrder } from '../chain/pool/txpool.js';
import { Dispatcher, type CallObserver } from '../rpc/dispatch.js';
import { createMethodTable } from '../rpc/methods/index.js';
import { lockDown } from '../rpc/policy.js';
import { reportMethods } from '../rpc/methods/reports.js';
import type { Reports } from '../coverage/index.js';
import type { Artifacts } from '../artifacts/artifacts.js';
import { explorerPages } from '../explorer/serve.js';
import { beaconRoutes } from '../rpc/beacon.js';
import { Metrics } from '../server/metrics.js';
import { startServer, type Page, type RpcServer } from '../server/server.js';
import { SHARED_MAX_BLOCK_RANGE, SHARED_MAX_LOGS, chainGauges, chainHealth, transportSettings, type TransportOptions } from './transport.js';
import { VERSION } from './version.js';
import { importBlocks } from '../chain/controls/importChain.js';
import { genesisSettings, readGenesisFile, readImportFile } from './genesis.js';

export interface StartOptions {
  host?: string;
  port?: number;
  chain?: Partial<ChainConfig>;
  observe?: CallObserver;
  /** Cap on the logs one eth_getLogs / eth_getFilterLogs may return (default: none). */
  maxLogs?: number;
  /** Cap on struct-log steps per trace (default 250,000; Infinity = none). */
  maxTraceSteps?: number;
  /** Gas cap and wall-clock limit of eth_call and the like (default: max(50M, block gas limit) and 5 s). */
  calls?: Partial<CallBounds>;
  /** eth_call worker threads (0 or absent: calls run on the main thread). */
  callWorkers?: number;
  /** Polling filters not polled for this long expire (default 5 minutes). */
  filterTimeoutMs?: number;
  /** Mining mode: automine (default on), interval in ms (off by default), block order. */
  mining?: { auto?: boolean; intervalMs?: number; order?: BlockOrder; throwOnFailures?: boolean };
  /** State file to load before serving (see chain/controls/stateFile.ts). */
  loadState?: string;
  /**
   * A geth genesis file (--init): block 0 is the file's, and its chain id and gas limit are the
   * chain's unless `chain` sets them (chain/core/genesisFile.ts).
   */
  init?: string;
  /** RLP-encoded blocks imported on top of genesis before serving (--import, chain/controls/importChain.ts). */
  importChain?: string;
  /**
   * Fork this upstream (src/chain/fork): state and history up to its fork block are read from
   * it. The chain id and block gas limit are the upstream's unless `chain` sets them.
   */
  fork?: ForkOptions;
  /** The whole `web3_clientVersion` answer (default: `anvil-node-rpc/v<version>/<os-arch>/<runtime>`). */
  clientVersion?: string;
  /** Told when a WebSocket client that stopped reading is cut. */
  onSlowClient?: (remote: string, buffered: number) => void;
  /** Serve the block explorer to browsers on GET / (default on). */
  explorer?: boolean;
  /** Contracts the explorer names and decodes; with source maps, failed calls carry a Solidity stack. */
  artifacts?: Artifacts;
  /** `--public`: a node several people and CI jobs share (listens on 0.0.0.0 unless `host` is given; limits on; signing and test controls locked, see rpc/policy.ts). */
  shared?: boolean;
  /** On a shared node: allow signing with the dev accounts and impersonation (--unlock). */
  unlock?: boolean;
  /** On a shared node: allow the test controls (--allow-cheats). */
  allowCheats?: boolean;
  /** On a shared node: allow JavaScript tracers in debug_trace* (--allow-js-tracers). */
  allowJsTracers?: boolean;
  /** Most blocks one eth_getLogs range may span (default: none; 10,000 on a shared node). */
  maxBlockRange?: number;
  /** The transport's limits and access rules; unset fields take the mode's defaults (src/lib/transport.ts). */
  transport?: TransportOptions;
  /** Coverage and gas reports (--coverage, --gas-report): counted by the node, read by node_* methods. */
  reports?: Reports;
}

export interface Running {
  node: DevNode;
  server: RpcServer;
  dispatcher: Dispatcher;
  /** What loading `loadState` did. */
  loaded?: LoadResult;
  close(): Promise<void>;
}

/** A node with its method table and dispatcher, not yet served (createNode's core, see src/lib). */
export interface Booted {
  node: DevNode;
  dispatcher: Dispatcher;
  metrics: Metrics;
  loaded?: LoadResult;
}

/** Build the chain, its method table and its dispatcher: everything but the server. */
export async function bootDev(options: StartOptions = {}): Promise<Booted> {
  if (options.init !== undefined && options.fork !== undefined) throw new Error('--init and --fork-url cannot be used together (a fork starts from the upstream\'s block)');
  if (options.importChain !== undefined && options.loadState !== undefined) throw new Error('--import and --load-state (or an existing --state file) cannot be used together: a state file replaces the chain');
  const genesis = options.init !== undefined ? readGenesisFile(options.init) : undefined;
  const fork = options.fork ? await Fork.open(options.fork) : undefined;
  const chain = options.chain;
  const config = defaultConfig(
    fork
      ? { ...chain, chainId: chain?.chainId ?? fork.chainId, gasLimit: chain?.gasLimit ?? fork.header.gasLimit, ...forkRules(fork, chain) }
      : genesis
        ? { ...chain, ...genesisSettings(genesis, chain) }
        : chain,
  );
  const node = await DevNode.create(config, fork).catch((err: unknown) => {
    fork?.close();
    throw err;
  });
  if (options.importChain !== undefined) {
    try {
      await importBlocks(node, readImportFile(options.importChain));
    } catch (err) {
      node.close();
      throw err;
    }
  }
  node.logs.maxResults = options.maxLogs ?? (options.shared ? SHARED_MAX_LOGS : undefined);
  node.logs.maxBlockRange = options.maxBlockRange ?? (options.shared ? SHARED_MAX_BLOCK_RANGE : undefined);
  if (options.maxTraceSteps !== undefined) node.configure({ maxTraceSteps: options.maxTraceSteps });
  if (options.filterTimeoutMs !== undefined) node.filters.timeoutMs = options.filterTimeoutMs;
  if (options.calls?.gasCap !== undefined) node.callBounds.gasCap = options.calls.gasCap;
  if (options.calls?.timeoutMs !== undefined) node.callBounds.timeoutMs = options.calls.timeoutMs;
  if (options.artifacts !== undefined && options.artifacts.sources.mapped > 0) node.configure({ sources: options.artifacts.locator() });
  // Coverage counts calls on this thread: no call workers with it.
  if (options.callWorkers && options.reports?.coverage === undefined) node.configure({ callWorkers: new CallWorkers(node.trieNodes, options.callWorkers, () => ({ chainId: node.config.chainId, hardfork: node.config.hardfork, codeSizeLimit: node.config.codeSizeLimit })) });
  let loaded: LoadResult | undefined;
  if (options.loadState !== undefined) {
    try {
      loaded = await applyState(node, await readStateFile(node, options.loadState));
    } catch (err) {
      node.close();
      throw err;
    }
  }
  if (options.mining?.order) node.mining.setOrder(options.mining.order);
  if (options.mining?.auto === false) node.mining.setAuto(false);
  if (options.mining?.throwOnFailures) node.mining.setThrowOnFailures(true);
  if (options.mining?.intervalMs) node.miner.setIntervalMining(options.mining.intervalMs);
  const metrics = new Metrics();
  const observe = options.observe;
  if (options.reports?.coverage !== undefined) node.configure({ coverage: options.reports.coverage });
  const table = createMethodTable(node, VERSION, options.clientVersion);
  if (options.reports !== undefined) for (const m of reportMethods(options.reports)) table.add(m);
  if (options.shared) lockDown(table, { unlock: options.unlock === true, allowCheats: options.allowCheats === true, allowJsTracers: options.allowJsTracers === true });
  const dispatcher = new Dispatcher(
    table,
    (method, error, ms) => {
      metrics.call(method, error?.code, ms);
      observe?.(method, error, ms);
    },
    transportSettings(options.shared === true, hostOf(options), options.transport).dispatch,
  );
  return { node, dispatcher, metrics, loaded };
}

/** The beacon routes first, then the explorer's pages. */
function withBeacon(beacon: ReturnType<typeof beaconRoutes>, pages: ((path: string, accept: string | undefined) => Page | undefined) | undefined) {
  return (path: string, accept: string | undefined, query: string): Page | undefined => beacon(path, query) ?? pages?.(path, accept);
}

const hostOf = (options: StartOptions): string => options.host ?? (options.shared ? '0.0.0.0' : '127.0.0.1');

/** Serve a booted node over HTTP and WebSocket on `options.host`/`options.port` (default 127.0.0.1:8545). */
export function serveDev(booted: Booted, options: StartOptions = {}): Promise<RpcServer> {
  const { node, dispatcher, metrics } = booted;
  const host = hostOf(options);
  const transport = transportSettings(options.shared === true, host, options.transport);
  return startServer(dispatcher, {
    host,
    port: options.port ?? 8545,
    pages: withBeacon(beaconRoutes(node), options.explorer === false ? undefined : explorerPages(options.artifacts)),
    onSlowClient: options.onSlowClient,
    ...transport.server,
    metrics,
    gauges: chainGauges(node),
    health: chainHealth(node),
  });
}

export async function startDev(options: StartOptions = {}): Promise<Running> {
  const booted = await bootDev(options);
  const { node, dispatcher, loaded } = booted;
  const server = await serveDev(booted, options).catch((err: unknown) => {
    node.close();
    throw err;
  });
  return {
    node,
    server,
    dispatcher,
    loaded,
    close: async () => {
      node.close();
      await server.close();
    },
  };
}

/**
 * Without a hardfork or schedule given, a fork of a chain whose forks ethereumjs knows (mainnet,
 * sepolia, holesky, hoodi) runs that chain's schedule: the fork block's rules at the fork block,
 * and each local block the rules of its number and time. Another chain runs the default.
 */
function forkRules(fork: Fork, chain: Partial<ChainConfig> | undefined): Partial<ChainConfig> {
  if (chain?.hardfork !== undefined || chain?.schedule !== undefined) return {};
  return { rulesOfFork: true, ...rulesOfChain(fork.chainId) };
}
