/**
 * The on-disk fork cache (`--fork-cache <dir>`): everything read from the upstream about one fork
 * point, so a later run forking the same chain at the same block reads it from disk.
 *
 * One file per (chain id, fork block): `<dir>/chain-<id>/block-<n>.jsonl`, never shared across
 * fork blocks. It is an append-only log of JSON lines, one fetched item each; reading replays it
 * (a torn last line from a crash is skipped). New lines are appended shortly after they are
 * fetched (one small synchronous append per burst, so a close never races a write in flight) and
 * on close.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One cached item. */
export type CacheEntry =
  /** The fork block's header as the upstream returned it. */
  | { k: 'header'; v: unknown }
  /** An account at the fork block: address, nonce, balance, code (all 0x-hex). */
  | { k: 'a'; v: [string, string, string, string] }
  /** A storage slot at the fork block: address, slot, value (0x-hex). */
  | { k: 's'; v: [string, string, string] }
  /** A block hash by number. */
  | { k: 'h'; v: [string, string] }
  /** A history answer (block, transaction, receipt, logs at or below the fork block), by request. */
  | { k: 'r'; v: [string, unknown] };

const FLUSH_DELAY_MS = 200;

export class DiskCache {
  readonly path: string;
  private pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(dir: string, chainId: bigint, block: bigint) {
    const folder = join(dir, `chain-${chainId}`);
    mkdirSync(folder, { recursive: true });
    this.path = join(folder, `block-${block}.jsonl`);
  }

  /** Every entry stored so far, oldest first. */
  load(): CacheEntry[] {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: CacheEntry[] = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        out.push(JSON.parse(line) as CacheEntry);
      } catch {
        // A line cut short by a crash: the item is simply fetched again.
      }
    }
    return out;
  }

  add(entry: CacheEntry): void {
    this.pending.push(JSON.stringify(entry));
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.write(), FLUSH_DELAY_MS);
      this.timer.unref();
    }
  }

  /** Append what is pending. */
  private write(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const lines = this.pending.join('\n') + '\n';
    this.pending = [];
    try {
      appendFileSync(this.path, lines);
    } catch {
      // A cache that cannot be written only costs network reads next time.
    }
  }

  /** Write what is pending now (shutdown). */
  close(): void {
    this.write();
  }
}
