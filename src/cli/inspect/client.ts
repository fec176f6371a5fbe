/**
 * Shared pieces of the inspection commands: a plain JSON-RPC client (they work against any
 * Ethereum node), terminal styling that is colourful only on a TTY, and small table helpers.
 */
import chalk, { Chalk, type ChalkInstance } from 'chalk';
import type { Command } from 'commander';

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

export class RpcClient {
  private id = 1;

  constructor(readonly url: string) {}

  async call<T = any>(method: string, params: unknown[] = []): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.id++, method, params }),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`cannot reach ${this.url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    const text = await res.text();
    let body: { result?: T; error?: { code: number; message: string } };
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${this.url} answered ${method} with HTTP ${res.status} and no JSON-RPC response`);
    }
    if (body.error) throw new RpcFailure(body.error.code, `${method}: ${body.error.message}`);
    return body.result as T;
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
