/**
 * createNode: a dev chain in this process. Its provider answers through the node's dispatcher (no
 * HTTP); `listen` serves the same node over HTTP and WebSocket; `close` leaves nothing running.
 * Every node has its own chain, pool, filters, timers and workers: many can live in one process.
 * `node-rpc dev` is openNode plus listen (src/cli/dev.ts).
 */
import { existsSync } from 'node:fs';
import { bytesToHex, createAddressFromString } from '@ethereumjs/util';
import { checksummed } from './checksum.js';
import { loadArtifacts } from '../artifacts/load.js';
import type { Artifacts } from '../artifacts/artifacts.js';
import { prepareStatePath, writeStateFile } from '../chain/controls/stateDisk.js';
import { dumpStateChunks } from '../chain/controls/stateFile.js';
import { minedFailureStack } from '../chain/exec/minedStack.js';
import type { DevNode } from '../chain/node.js';
import { LATEST } from '../chain/core/types.js';
import { RequestLog } from './log.js';
import { bootDev, serveDev, type Booted, type StartOptions } from './start.js';
import { VERSION } from './version.js';
import type { Dispatcher } from '../rpc/dispatch.js';
import { Provider } from '../rpc/provider.js';
import type { RpcServer } from '../server/server.js';
import { batchedLines } from './lines.js';
import { gasTx, openReports, writeReports } from './reports.js';
import { checkOptions, OptionError, toStart } from './options.js';
import type { EIP1193Provider, ListenOptions, Node, NodeAccount, NodeOptions } from './types.js';

/** What the CLI adds to the options: its transport settings (shared mode) and its warnings. */
export interface OpenExtras {
  /** Start options of the transport and the shared mode (host, limits, keys, slow clients). */
  start?: Partial<StartOptions>;
  /** Where warnings go (unusable artifacts); default stderr. */
  warn?: (line: string) => void;
}

/** The node and what the CLI needs beside it (its banner, its signals). */
export interface Opened {
  node: Node;
  chain: DevNode;
  dispatcher: Dispatcher;
  artifacts: Artifacts | undefined;
  /** What loading the state file did. */
  loaded: Booted['loaded'];
  loadPath: string | undefined;
  /** The server once `listen` ran. */
  server(): RpcServer | undefined;
}

/** Create a node: `await createNode({ chainId: 31337 })`. A bad option throws an Error naming it. */
export async function createNode(options: NodeOptions = {}): Promise<Node> {
  return (await openNode(options)).node;
}

export async function openNode(options: NodeOptions, extras: OpenExtras = {}): Promise<Opened> {
  const o = checkOptions(options);
  const warn = extras.warn ?? ((line: string) => process.stderr.write(`warning: ${line}\n`));
  const dumpPath = o.dumpState ?? o.state;
  const loadPath = o.loadState ?? (o.state !== undefined && existsSync(o.state) ? o.state : undefined);
  if (dumpPath !== undefined) {
    try {
      await prepareStatePath(dumpPath);
    } catch (err) {
      throw new OptionError(`cannot use --${o.state !== undefined ? 'state' : 'dump-state'}: ${(err as Error).message}`);
    }
  }
  const terminal = o.logging === true ? batchedLines((text) => process.stdout.write(text)) : undefined;
  const out = terminal !== undefined ? terminal.line : typeof o.logging === 'function' ? o.logging : undefined;
  const artifacts = o.artifacts !== undefined ? loadArtifacts(o.artifacts, warn) : undefined;
  const log = out === undefined ? undefined : new RequestLog(out, o.silent === true, artifacts);
  let chain: DevNode | undefined;
  const reports = openReports(o, artifacts, () => chain, warn);
  const start: StartOptions = {
    ...toStart(o),
    loadState: loadPath,
    artifacts,
    reports,
    // anvil_setLoggingEnabled(false) silences the request log (errors of the node itself excepted).
    observe: log === undefined ? undefined : (method, error) => (chain?.loggingEnabled === false && error?.code !== -32603 ? undefined : log.observe(method, error)),
    ...extras.start,
  };
  const booted = await bootDev(start);
  const node = booted.node;
  chain = node;
  if (log !== undefined) {
    log.codeAt = (address) => node.getCode(createAddressFromString(address), LATEST);
    if (node.sources) log.stackOf = (tx) => minedFailureStack(node, tx);
    node.events.on('block', (b) => {
      if (node.loggingEnabled) log.block(b);
    });
    node.events.on('emptyBlocks', (first, last) => {
      if (node.loggingEnabled && o.silent !== true) out!(`    blocks #${first}..#${last}  empty, mined at once`);
    });
    if (o.silent !== true) node.events.on('console', (tx, lines) => log.console(tx, lines));
  }
  if (reports?.gas !== undefined) {
    const gas = reports.gas;
    node.events.on('block', (b) => gas.add(b.txs.map(gasTx)));
  }
  const provider = new Provider(booted.dispatcher, () => node.config.chainId);
  // Dumps never overlap: a periodic one in progress is awaited by the next and by close.
  let dumping: Promise<void> = Promise.resolve();
  // Written again and again: the dumps keep what they rendered for the next one.
  const repeated = dumpPath !== undefined && o.stateInterval !== undefined;
  const dump = (path: string): Promise<void> => (dumping = dumping.then(async () => writeStateFile(path, await dumpStateChunks(node, `node-rpc/${VERSION}`, repeated))));
  let periodic: NodeJS.Timeout | undefined;
  if (dumpPath !== undefined && o.stateInterval !== undefined) {
    periodic = setInterval(() => {
      dump(dumpPath).catch((err: Error) => warn(`cannot write state to ${dumpPath}: ${err.message}`));
    }, Math.max(1, Math.round(o.stateInterval * 1000)));
    periodic.unref();
  }
  let server: RpcServer | undefined;
  let listening: Promise<{ url: string; ws: string }> | undefined;
  let closing: Promise<void> | undefined;
  const accounts: NodeAccount[] = node.accounts.map((a) => Object.freeze({ address: checksummed(a.address.toString()), privateKey: bytesToHex(a.privateKey) as `0x${string}` }));

  const api: Node = {
    provider: provider as unknown as EIP1193Provider,
    accounts: Object.freeze(accounts),
    listen(where: ListenOptions = {}) {
      if (closing) return Promise.reject(new Error('the node is closed'));
      if (listening) return Promise.reject(new Error('the node is already listening'));
      listening = serveDev(booted, { ...start, host: where.host ?? start.host, port: where.port ?? start.port }).then(
        (s) => {
          server = s;
          return { url: s.url, ws: s.wsUrl };
        },
        (err: unknown) => {
          listening = undefined;
          throw err;
        },
      );
      return listening;
    },
    close() {
      // Orderly: refuse new requests (-32000 "node is shutting down") and stop listening, let the
      // ones under way finish, stop interval mining, write the state file, then free everything.
      closing ??= (async () => {
        if (periodic) clearInterval(periodic);
        await listening?.catch(() => undefined);
        const drained = booted.dispatcher.drain();
        server?.stopListening();
        await drained;
        node.miner.setIntervalMining(0);
        log?.flush();
        await log?.idle();
        let failure: Error | undefined;
        try {
          await writeReports(o, reports, out);
        } catch (err) {
          failure = err as Error;
        }
        if (dumpPath !== undefined) {
          try {
            await dump(dumpPath);
            if (o.silent !== true) out?.(`State written to ${dumpPath}`);
          } catch (err) {
            failure = new Error(`cannot write state to ${dumpPath}: ${(err as Error).message}`);
          }
        }
        terminal?.flush();
        provider.disconnect();
        node.close();
        await server?.close();
        if (failure) throw failure;
      })();
      return closing;
    },
  };
  return { node: api, chain: node, dispatcher: booted.dispatcher, artifacts, loaded: booted.loaded, loadPath, server: () => server };
}
