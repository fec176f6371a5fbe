/**
 * The flags of the shared mode (`--public`, rate limits, API keys, proxies, CORS, hosts, caps,
 * access log) and what they make of the start options. Kept apart from dev.ts, which only adds
 * them to its command and spreads `sharedStart` into its start options.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { InvalidArgumentError, type Command } from 'commander';
import { isValidKey } from '../server/keys.js';
import type { RpcServer } from '../server/server.js';
import { formatAccess, type LogFormat } from './accessLog.js';
import { intIn } from '../lib/flags.js';
import { SHARED_MAX_BATCH_RESPONSE_BYTES, SHARED_MAX_BLOCK_RANGE, SHARED_MAX_CONNS_PER_IP, SPEC_RATE_LIMITS, type TransportOptions } from '../lib/transport.js';

export interface SharedFlags {
  public?: boolean;
  rateLimit?: boolean;
  rateLimitIp?: number;
  rateLimitWs?: number;
  rateLimitKey?: number;
  apiKey?: string[];
  apiKeys?: string;
  trustProxy?: string[];
  cors?: string[] | '*';
  allowedHosts?: string[] | '*';
  maxConnsPerIp?: number;
  maxBatch?: number;
  maxBatchResponse?: number;
  logFormat: LogFormat;
  allowCheats?: boolean;
  allowJsTracers?: boolean;
  unlock?: boolean;
  maxBlockRange?: number;
}

const fail = (msg: string): never => {
  throw new InvalidArgumentError(msg);
};

const items = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

function apiKey(text: string, prev: string[] | undefined): string[] {
  if (!isValidKey(text)) fail('an API key is 1 to 256 visible ASCII characters without "/", "?" or "#"');
  return [...(prev ?? []), text];
}

function ipList(text: string): string[] {
  const ips = items(text);
  const bad = ips.find((ip) => isIP(ip) === 0);
  return bad === undefined && ips.length > 0 ? ips : fail(`must be a comma-separated list of IP addresses${bad ? ` ("${bad}" is not one)` : ''}`);
}

function originList(text: string): string[] | '*' {
  if (text.trim() === '*') return '*';
  const origins = items(text);
  const bad = origins.find((o) => !/^https?:\/\/[^/\s]+\/?$/.test(o));
  return bad === undefined ? origins : fail(`must be * or a comma-separated list of origins such as https://app.example ("${bad}" is not one)`);
}

function hostList(text: string): string[] | '*' {
  if (text.trim() === '*') return '*';
  const hosts = items(text);
  return hosts.length > 0 && hosts.every((h) => /^[\w.:[\]-]+$/.test(h)) ? hosts : fail('must be * or a comma-separated list of host names');
}

function logFormat(text: string): LogFormat {
  return text === 'text' || text === 'json' ? text : fail('must be text or json');
}

/** Keys of a key file: one per line; blank lines and lines starting with `#` skipped. */
export function readKeyFile(path: string): string[] {
  const keys: string[] = [];
  readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .forEach((raw, i) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      if (!isValidKey(line)) throw new Error(`${path} line ${i + 1}: not an API key (1 to 256 visible ASCII characters without "/", "?" or "#")`);
      keys.push(line);
    });
  return keys;
}

export function addSharedFlags(cmd: Command): void {
  const tier = (what: string, spec: number) => `${what} (default ${spec} with --public or --rate-limit, else off; 0 = off)`;
  cmd
    .option('--public', 'serve a shared node: listen on 0.0.0.0 (unless --host), rate-limit tiers on, public-node caps (5 MB bodies, 25 MB batch answers, 50 connections per IP), no CORS, any Host, one access-log line per request')
    .option('--rate-limit', 'turn the rate-limit tiers on without --public')
    .option('--rate-limit-ip <n>', tier('calls per second per client IP', SPEC_RATE_LIMITS.ip), intIn(0, 1_000_000, 'rate limit'))
    .option('--rate-limit-ws <n>', tier('calls per second per WebSocket connection without a key', SPEC_RATE_LIMITS.ws), intIn(0, 1_000_000, 'rate limit'))
    .option('--rate-limit-key <n>', tier('calls per second per API key', SPEC_RATE_LIMITS.key), intIn(0, 1_000_000, 'rate limit'))
    .option('--api-key <key>', 'an API key of the authenticated tier (repeatable); sent as "Authorization: Bearer <key>", "X-API-Key: <key>", or POST /<key> or /v1/<key>', apiKey)
    .option('--api-keys <file>', 'file of API keys, one per line (# comments), reloaded on SIGHUP')
    .option('--trust-proxy <ips>', 'comma-separated proxy addresses whose X-Forwarded-For names the client of the per-IP tier', ipList)
    .option('--cors <origins>', 'origins browsers may read answers from: * or a comma-separated list (default * in dev, none with --public)', originList)
    .option('--allowed-hosts <hosts>', 'Host names served, against DNS rebinding: * or a comma-separated list (default: localhost names and the bound address; * with --public)', hostList)
    .option('--max-conns-per-ip <n>', `open connections per client IP; over it 429 (default 0 = no cap; ${SHARED_MAX_CONNS_PER_IP} with --public)`, intIn(0, 1_000_000, 'max connections per IP'))
    .option('--max-batch <n>', 'most calls in one JSON-RPC batch (0 = no cap)', intIn(0, 1_000_000, 'max batch'), 1_000)
    .option('--max-batch-response <bytes>', `bytes a batch answer may hold; calls past it get -32003 (default 0 = no cap; ${SHARED_MAX_BATCH_RESPONSE_BYTES} with --public)`, intIn(0, Number.MAX_SAFE_INTEGER, 'max batch response'))
    .option('--log-format <format>', 'access log of --public: text or json (one object per line)', logFormat, 'text')
    .option('--allow-cheats', 'with --public: allow the test controls (anvil_*, hardhat_*, evm_* that change the chain)')
    .option('--allow-js-tracers', 'with --public: allow JavaScript tracers in debug_trace* (they run in a sandbox with a time and memory bound)')
    .option('--unlock', 'with --public: allow signing with the dev accounts (eth_sendTransaction, eth_sign, …) and impersonation')
    .option('--max-block-range <n>', `most blocks one eth_getLogs / eth_getFilterLogs range may span; wider is -32005 (default: no cap; ${SHARED_MAX_BLOCK_RANGE} with --public)`, intIn(1, Number.MAX_SAFE_INTEGER, 'max block range'));
}

/**
 * Start options from the flags: `shared`, the host when --public chose it, and the transport's
 * options, the access log printing with `print` unless `silent`. Throws when the key file cannot be
 * read.
 */
export function sharedStart(
  flags: SharedFlags,
  cmd: Command,
  print: (line: string) => void,
  silent: boolean,
): { shared: boolean; host?: string; unlock?: boolean; allowCheats?: boolean; allowJsTracers?: boolean; maxBlockRange?: number; transport: TransportOptions } {
  const shared = flags.public === true;
  const keys = flags.apiKey !== undefined || flags.apiKeys !== undefined ? allKeys(flags) : undefined;
  const format = flags.logFormat;
  return {
    shared,
    ...(shared && cmd.getOptionValueSource('host') !== 'cli' ? { host: '0.0.0.0' } : {}),
    unlock: flags.unlock,
    allowCheats: flags.allowCheats,
    allowJsTracers: flags.allowJsTracers,
    maxBlockRange: flags.maxBlockRange,
    transport: {
      rateLimit: flags.rateLimit,
      rateLimitIp: flags.rateLimitIp,
      rateLimitWs: flags.rateLimitWs,
      rateLimitKey: flags.rateLimitKey,
      apiKeys: keys,
      trustProxy: flags.trustProxy,
      cors: flags.cors,
      allowedHosts: flags.allowedHosts,
      maxConnsPerIp: flags.maxConnsPerIp,
      maxBatch: flags.maxBatch,
      maxBatchResponseBytes: flags.maxBatchResponse,
      onAccess: shared && !silent ? (entry) => print(formatAccess(entry, format)) : undefined,
    },
  };
}

function allKeys(flags: SharedFlags): string[] {
  return [...(flags.apiKey ?? []), ...(flags.apiKeys === undefined ? [] : readKeyFile(flags.apiKeys))];
}

/** On SIGHUP, read --api-keys again; a file that fails to read keeps the keys in use. */
export function reloadKeysOnHangup(flags: SharedFlags, server: RpcServer, say: (line: string) => void): void {
  if (flags.apiKeys === undefined) return;
  process.on('SIGHUP', () => {
    try {
      const keys = allKeys(flags);
      server.setApiKeys(keys);
      say(`API keys reloaded from ${flags.apiKeys}: ${keys.length} key${keys.length === 1 ? '' : 's'}`);
    } catch (err) {
      say(`error: API keys not reloaded, the previous ones stay in use: ${(err as Error).message}`);
    }
  });
}
