/**
 * Envelope rules that bound what one request body costs: the answer to a body its rate-limit tier
 * refused, the batch size cap, and the cap on the bytes of a batch answer (geth's
 * BatchRequestLimit and BatchResponseMaxSize, with geth's answers).
 */
import { ErrorCode, RpcError } from './errors.js';

export type Id = string | number | null;

/** A response: one string, or pieces to send in order (a streamed large result). */
export type Body = string | Iterable<string>;

/** Default most calls in one batch (geth's). */
export const DEFAULT_MAX_BATCH = 1_000;
/** geth's code for a batch answer over its size cap. */
const RESPONSE_TOO_LARGE = -32003;
const NO_METHODS: readonly string[] = [];

export function errorText(id: Id, err: RpcError): string {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.data !== undefined) error.data = err.data;
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}

const limitExceeded = (): RpcError => new RpcError(ErrorCode.LimitExceeded, 'limit exceeded');

/** The id a request object would be answered with; undefined for a notification (no answer). */
function idOf(entry: unknown): Id | undefined {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return null;
  if (!('id' in entry)) return undefined;
  const id = (entry as { id: unknown }).id;
  return id === null || typeof id === 'string' || typeof id === 'number' ? id : null;
}

const methodOf = (entry: unknown): string => {
  const m = entry !== null && typeof entry === 'object' ? (entry as { method?: unknown }).method : undefined;
  return typeof m === 'string' ? m : '';
};

/**
 * Calls that only read: a batch runs these at once, since their order among themselves cannot
 * change an answer. Any other call of a batch (a transaction, a test control, a method not listed)
 * waits for the calls before it, and the calls after it wait for it, so each call sees what the
 * calls before it did, as in geth and the hardhat node. A method missing here only runs alone.
 */
export const BATCH_READS: ReadonlySet<string> = new Set([
  'eth_chainId',
  'net_version',
  'net_listening',
  'web3_clientVersion',
  'eth_accounts',
  'eth_syncing',
  'eth_blockNumber',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_blobBaseFee',
  'anvil_getBlobByHash',
  'anvil_getBlobsByTransactionHash',
  'eth_feeHistory',
  'eth_getBalance',
  'eth_getTransactionCount',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getProof',
  'eth_call',
  'eth_estimateGas',
  'eth_createAccessList',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getTransactionByHash',
  'eth_pendingTransactions',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionReceipt',
  'eth_getLogs',
]);

/** Whether a batch may run `entry` at once with the calls around it (see BATCH_READS). */
export function onlyReads(entry: unknown): boolean {
  return BATCH_READS.has(methodOf(entry));
}

/** What a parsed body calls, for the transport's `admit` (see CallContext). */
export function methodsOf(body: unknown, parsed: boolean, maxBatch: number): readonly string[] {
  if (!parsed || (Array.isArray(body) && body.length > maxBatch)) return NO_METHODS;
  return Array.isArray(body) ? body.map(methodOf) : [methodOf(body)];
}

/** The answer to a body its tier refused: -32005 for each call, ids echoed, notifications unanswered. */
export function refusedText(body: unknown, parsed: boolean, maxBatch: number): string | undefined {
  if (!parsed || (Array.isArray(body) && body.length > maxBatch)) return errorText(null, limitExceeded());
  if (!Array.isArray(body)) {
    const id = idOf(body);
    return id === undefined ? undefined : errorText(id, limitExceeded());
  }
  const answers: string[] = [];
  for (const entry of body) {
    const id = idOf(entry);
    if (id !== undefined) answers.push(errorText(id, limitExceeded()));
  }
  return answers.length === 0 ? undefined : `[${answers.join(',')}]`;
}

/** A batch over the cap: as geth, one -32600 error in an array, with the first call's id. */
export function batchTooLarge(body: readonly unknown[], maxBatch: number): string {
  let first: Id = null;
  for (const entry of body) {
    const id = idOf(entry);
    if (id !== undefined) {
      first = id;
      break;
    }
  }
  return `[${errorText(first, new RpcError(ErrorCode.InvalidRequest, `batch too large: at most ${maxBatch} calls in one batch (--max-batch)`))}]`;
}

/**
 * A batch's answers held to `maxBytes` in all: from the first answer that would pass the cap, it
 * and every later one are answered -32003 "response too large" (as geth). Streamed answers are
 * written out only up to what is left of the cap.
 */
export function capBatch(parts: Array<Body | undefined>, body: readonly unknown[], maxBytes: number): Array<Body | undefined> {
  let left = maxBytes;
  let over = false;
  return parts.map((part, i) => {
    if (part === undefined) return undefined;
    if (!over) {
      const text = typeof part === 'string' ? part : joinWithin(part, left);
      const size = text === undefined ? Infinity : Buffer.byteLength(text);
      if (size <= left) {
        left -= size;
        return text;
      }
      over = true;
    }
    const message = `response too large: a batch answer may hold ${maxBytes} bytes (--max-batch-response); send fewer calls per batch`;
    return errorText(idOf(body[i]) ?? null, new RpcError(RESPONSE_TOO_LARGE, message));
  });
}

/** The pieces joined, or undefined as soon as they pass `max` characters (a lower bound of bytes). */
function joinWithin(pieces: Iterable<string>, max: number): string | undefined {
  const out: string[] = [];
  let length = 0;
  for (const piece of pieces) {
    length += piece.length;
    if (length > max) return undefined;
    out.push(piece);
  }
  return out.join('');
}
