/**
 * The filter object of eth_getLogs / eth_newFilter / eth_subscribe("logs"):
 * `{fromBlock?, toBlock?, blockHash?, address?, topics?}`, validated as geth does.
 *
 *  - `address`: one address or an array (OR); missing, null or [] match any.
 *  - `topics`: up to 4 positions; each null (any), one topic, or an array of topics (OR), where
 *    [] or a null member match any. A log must carry at least as many topics as positions given.
 *  - `blockHash` excludes `fromBlock`/`toBlock`.
 *  - `pending` as `fromBlock` or `toBlock` is -32602 `pending logs are not supported`, as geth
 *    answers since 1.14 (logs are those of mined blocks).
 */
import { bytesToHex } from '@ethereumjs/util';
import { isPending } from '../chain/core/types.js';
import type { LogCriteria } from '../chain/logs/logTypes.js';
import { address, blockNumberOrTag, hash32, type Codec } from './codecs.js';
import { invalidParams } from './errors.js';

/** Most topic positions a filter may name (a log has at most 4 topics). */
export const MAX_TOPICS = 4;

const present = (v: unknown): boolean => v !== undefined && v !== null;

function parseAddresses(value: unknown, where: string): string[] {
  if (!present(value)) return [];
  if (Array.isArray(value)) return [...new Set(value.map((a, i) => address.parse(a, `${where}[${i}]`).toString()))];
  return [address.parse(value, where).toString()];
}

function parseTopics(value: unknown, where: string): Array<string[] | null> {
  if (!present(value)) return [];
  if (!Array.isArray(value)) throw invalidParams(`invalid argument ${where}: expected an array of topics, got ${typeof value}`);
  if (value.length > MAX_TOPICS) throw invalidParams(`invalid argument ${where}: exceed max topics (at most ${MAX_TOPICS} positions, got ${value.length})`);
  return value.map((pos, i): string[] | null => {
    if (!present(pos)) return null;
    if (Array.isArray(pos)) {
      if (pos.length === 0 || pos.some((t) => !present(t))) {
        // A null member makes the whole position a wildcard; still validate the others.
        pos.forEach((t, j) => present(t) && hash32.parse(t, `${where}[${i}][${j}]`));
        return null;
      }
      return [...new Set(pos.map((t, j) => bytesToHex(hash32.parse(t, `${where}[${i}][${j}]`))))];
    }
    return [bytesToHex(hash32.parse(pos, `${where}[${i}]`))];
  });
}

function parseFilter(value: unknown, where: string, allowBlocks: boolean): LogCriteria {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidParams(`invalid argument ${where}: expected a filter object, got ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value}`);
  }
  const o = value as Record<string, unknown>;
  const criteria = { addresses: parseAddresses(o.address, `${where}.address`), topics: parseTopics(o.topics, `${where}.topics`) };
  if (!allowBlocks) return criteria;
  let blockHash: Uint8Array | undefined;
  if (present(o.blockHash)) {
    if (present(o.fromBlock) || present(o.toBlock)) {
      throw invalidParams(`invalid argument ${where}: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other`);
    }
    blockHash = hash32.parse(o.blockHash, `${where}.blockHash`);
  }
  const fromBlock = present(o.fromBlock) ? blockNumberOrTag.parse(o.fromBlock, `${where}.fromBlock`) : undefined;
  const toBlock = present(o.toBlock) ? blockNumberOrTag.parse(o.toBlock, `${where}.toBlock`) : undefined;
  // geth (since 1.14): logs are those of mined blocks; `pending` is refused, not read as the head.
  if ((fromBlock && isPending(fromBlock)) || (toBlock && isPending(toBlock))) throw invalidParams('pending logs are not supported');
  return {
    ...criteria,
    ...(fromBlock !== undefined && { fromBlock }),
    ...(toBlock !== undefined && { toBlock }),
    ...(blockHash !== undefined && { blockHash }),
  };
}

/** The full filter object (eth_getLogs, eth_newFilter). */
export const filterQuery: Codec<LogCriteria> = {
  type: 'filter object',
  parse: (value, where) => parseFilter(value, where, true),
};

/** The filter of a `logs` subscription: address and topics only (optional: missing = every log). */
export const subscriptionFilter: Codec<LogCriteria> = {
  type: 'log subscription filter',
  optional: true,
  parse: (value, where) => (present(value) ? parseFilter(value, where, false) : { addresses: [], topics: [] }),
};
