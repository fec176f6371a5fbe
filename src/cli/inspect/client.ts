/**
 * Shared pieces of the inspection commands: the node they look at over plain JSON-RPC (they work
 * against any Ethereum node), terminal styling that is colourful only on a TTY, and small table helpers.
 */
import chalk, { Chalk, type ChalkInstance } from 'chalk';
import type { Command } from 'commander';
import { ForkUpstreamError, UpstreamClient, UpstreamRpcError } from '../../chain/fork/client.js';

export const DEFAULT_RPC = 'http://127.0.0.1:8545';

/** A JSON-RPC error answered by the node. */
export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The node being inspected, through the project's JSON-RPC client (chain/fork/client.ts): one call
 * per HTTP request, no retries, a minute per answer; failures worded for the terminal.
 */
export class RpcClient {
  private client: UpstreamClient | undefined;

  constructor(readonly url: string) {}

  async call<T = any>(method: string, params: unknown[] = []): Promise<T> {
    this.client ??= this.open();
    try {
      return await this.client.request<T>(method, params);
    } catch (err) {
      throw this.worded(method, err);
    }
  }

  private open(): UpstreamClient {
    try {
      return new UpstreamClient({ url: this.url, retries: 0, timeoutMs: 60_000, maxBatch: 1 });
    } catch {
      throw new Error(`cannot reach ${this.url}: not an http:// or https:// URL`);
    }
  }

  private worded(method: string, err: unknown): Error {
    if (err instanceof UpstreamRpcError) return new RpcFailure(err.code ?? -32603, `${method}: ${err.message}`);
    const f = err instanceof ForkUpstreamError ? err.failure : undefined;
    if (f === undefined) return new Error(`cannot reach ${this.url}: ${(err as Error).message}`);
    if (f.kind === 'limited') return new RpcFailure(f.code ?? -32603, `${method}: ${f.reason}`);
    if (f.kind === 'answer') return new Error(`${this.url} answered ${method} with HTTP ${f.status} and no JSON-RPC response`);
    if (f.kind === 'status') return new Error(`${this.url} answered ${method} with ${f.reason}`);
    return new Error(`cannot reach ${this.url}: ${f.errno ?? f.reason}`);
  }
}

/** Options every inspection command takes. */
export interface InspectFlags {
  rpc: string;
  json?: boolean;
}

export function addCommonOptions(cmd: Command): Command {
  return cmd.option('--rpc <url>', 'JSON-RPC endpoint of the node to inspect', DEFAULT_RPC).option('--json', 'print the raw JSON-RPC result');
}

/** Colours only when stdout is a terminal: piped output carries no escape codes. */
export function styles(): ChalkInstance {
  return new Chalk({ level: process.stdout.isTTY ? chalk.level || 1 : 0 });
}

export function write(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

export function printJson(value: unknown): void {
  write(JSON.stringify(value, null, 2));
}

/** Wrap a command action: failures print one `error:` line and exit 1. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exit(1);
    }
  };
}

const ANSI = /\u001b\[[0-9;]*m/g;
const visible = (s: string) => s.replace(ANSI, '').length;

/** Left-aligned columns separated by two spaces; widths ignore colour codes. */
export function table(rows: string[][], indent = '  '): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visible(cell))));
  return rows.map((row) => indent + row.map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i] - visible(cell)))).join('  ').trimEnd());
}

export const big = (hex: string | null | undefined): bigint => (hex ? BigInt(hex) : 0n);

/** wei as ether, without trailing zeros. */
export function ether(wei: bigint): string {
  const unit = 10n ** 18n;
  const sign = wei < 0n ? '-' : '';
  const abs = wei < 0n ? -wei : wei;
  const frac = (abs % unit).toString().padStart(18, '0').replace(/0+$/, '');
  return `${sign}${abs / unit}${frac ? '.' + frac : ''} ETH`;
}

/** wei per gas as gwei, up to 9 decimals. */
export function gwei(wei: bigint): string {
  const unit = 10n ** 9n;
  const frac = (wei % unit).toString().padStart(9, '0').replace(/0+$/, '');
  return `${wei / unit}${frac ? '.' + frac : ''} gwei`;
}

/** Contract-supplied text made safe for a terminal. */
export function safe(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '\uFFFD');
}
