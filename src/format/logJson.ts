/**
 * Logs written straight to JSON text (same fields and order as `formatLog`), for eth_getLogs,
 * filter changes and `logs` notifications: no intermediate objects, and the block and transaction
 * parts are written once per block / transaction rather than once per log.
 */
import { bytesToHex } from '@ethereumjs/util';
import type { LogChange, LogEntry } from '../chain/logs/logIndex.js';
import type { MinedTx } from '../chain/core/types.js';
import { RawJson } from './hex.js';
import { JsonParts, STREAM_FROM, listParts } from './stream.js';

/** Writes logs, reusing the block/transaction part while consecutive logs share a transaction. */
export class LogWriter {
  private tx: MinedTx | undefined;
  private tail = '';

  /** One log object as JSON text. */
  write(e: LogEntry, removed: boolean): string {
    if (e.tx !== this.tx) {
      const t = e.tx;
      const b = t.block;
      this.tx = t;
      this.tail =
        `","blockNumber":"0x${b.number.toString(16)}","blockHash":"${b.hashHex}","blockTimestamp":"0x${b.block.header.timestamp.toString(16)}"` +
        `,"transactionHash":"${t.hashHex}","transactionIndex":"0x${t.index.toString(16)}","logIndex":"0x`;
    }
    const topics = e.topics.length === 0 ? '[]' : `["${e.topics.join('","')}"]`;
    return `{"address":"${e.address}","topics":${topics},"data":"${bytesToHex(e.data)}${this.tail}${e.logIndex.toString(16)}","removed":${removed}}`;
  }
}

/** A JSON array of logs (all with the same `removed`), as one string. */
export function logsJsonText(entries: readonly LogEntry[], removed = false): string {
  if (entries.length === 0) return '[]';
  const w = new LogWriter();
  const parts = new Array<string>(entries.length);
  for (let i = 0; i < entries.length; i++) parts[i] = w.write(entries[i], removed);
  return `[${parts.join(',')}]`;
}

/** A JSON array of logs for an answer: streamed when long (see stream.ts). */
export function logsJson(entries: readonly LogEntry[], removed = false): RawJson | JsonParts {
  if (entries.length < STREAM_FROM) return new RawJson(logsJsonText(entries, removed));
  const w = new LogWriter();
  return listParts('[', entries, (e) => w.write(e, removed), ']');
}

/** A JSON array of log changes (filter changes: removed ones included). */
export function logChangesJson(changes: readonly LogChange[]): RawJson {
  if (changes.length === 0) return new RawJson('[]');
  const w = new LogWriter();
  return new RawJson(`[${changes.map((c) => w.write(c.entry, c.removed)).join(',')}]`);
}
