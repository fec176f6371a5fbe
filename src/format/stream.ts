/**
 * Large results written as JSON piece by piece: the dispatcher hands the pieces to the transport,
 * which sends them in chunks as the client takes them, so a 100k-log answer or a 250k-step struct
 * log never becomes one giant string (and other requests are answered between chunks).
 */
import type { StructLogEntry } from '../trace/structLogger.js';

/** A result written as JSON in pieces; the pieces joined are the JSON text of the value. */
export class JsonParts {
  constructor(readonly pieces: () => Iterable<string>) {}
}

/** Results with at least this many entries are streamed; smaller ones are one string. */
export const STREAM_FROM = 1000;

/** `head` + the items (each written by `item`) separated by commas + `tail`. */
export function listParts<T>(head: string, items: readonly T[], item: (x: T) => string, tail: string): JsonParts {
  return new JsonParts(function* () {
    yield head;
    for (let i = 0; i < items.length; i++) yield i === 0 ? item(items[i]!) : ',' + item(items[i]!);
    yield tail;
  });
}

interface StructLogResult {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: StructLogEntry[];
}

function isStructLogResult(v: unknown): v is StructLogResult {
  return typeof v === 'object' && v !== null && Array.isArray((v as StructLogResult).structLogs) && typeof (v as StructLogResult).gas === 'number';
}

/** A trace result, streamed when it is a long struct log (geth's field order kept). */
export function traceJson(result: unknown): unknown {
  if (!isStructLogResult(result) || result.structLogs.length < STREAM_FROM) return result;
  const head = `{"gas":${result.gas},"failed":${result.failed},"returnValue":${JSON.stringify(result.returnValue)},"structLogs":[`;
  return listParts(head, result.structLogs, structLogJson, ']}');
}

/**
 * The JSON text of one entry, written field by field: the same text as JSON.stringify gives for
 * the struct logger's entries (test/trace/structLogJson.test.ts), in about half the time. Hex
 * strings and opcode names need no escaping; the error text goes through JSON.stringify.
 */
export function structLogJson(e: StructLogEntry): string {
  let s = `{"pc":${e.pc},"op":"${e.op}","gas":${e.gas},"gasCost":${e.gasCost},"depth":${e.depth}`;
  if (e.error !== undefined) s += `,"error":${JSON.stringify(e.error)}`;
  if (e.stack !== undefined) s += e.stack.length === 0 ? ',"stack":[]' : `,"stack":["${e.stack.join('","')}"]`;
  if (e.returnData !== undefined) s += `,"returnData":"${e.returnData}"`;
  if (e.memory !== undefined) s += e.memory.length === 0 ? ',"memory":[]' : `,"memory":["${e.memory.join('","')}"]`;
  if (e.storage !== undefined) {
    let first = true;
    s += ',"storage":{';
    for (const k in e.storage) {
      s += `${first ? '' : ','}"${k}":"${e.storage[k]}"`;
      first = false;
    }
    s += '}';
  }
  if (e.refund !== undefined) s += `,"refund":${e.refund}`;
  return s + '}';
}
