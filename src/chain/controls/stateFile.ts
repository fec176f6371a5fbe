/**
 * State dumps: the chain as one JSON document (anvil_dumpState / anvil_loadState, and the CLI's
 * --dump-state / --load-state / --state files).
 *
 * The node writes anvil's format (stateDump.ts) and reads it (stateAnvil.ts), whether anvil or
 * this node wrote it, as well as this node's first format (stateLegacy.ts). A document with a
 * history that starts at genesis gives the same blocks, hashes, transactions and receipts; its
 * accounts give the live state. Older states are not kept: reading state at a loaded block other
 * than the head is an error.
 *
 * Everything is parsed and checked before anything is changed, so a bad document leaves the
 * node untouched. Files are written to a temporary file and renamed over the target, so a crash
 * mid-write never leaves a truncated file.
 */
import { gunzipSync } from 'node:zlib';
import { Account, KECCAK256_RLP, equalsBytes } from '@ethereumjs/util';
import { EmptyRun } from '../head/emptyRuns.js';
import { readyKeccak } from '../core/keccak.js';
import { asClient, askingClient, type Client } from '../core/lock.js';
import type { EventEmitter } from 'node:events';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { BlockStore } from '../head/store.js';
import type { NextBlock } from '../owners/nextBlock.js';
import type { NodeEvents } from '../pool/events.js';
import type { TxPool } from '../pool/txpool.js';
import { parseAnvilState } from './stateAnvil.js';
import { parseLegacyState } from './stateLegacy.js';
import { StateError, type ParsedState, type StateTarget } from './stateJson.js';

/** What loading a state changes: the blocks, the live state, the pool and the clock; snapshots of the old chain are forgotten. */
export interface StateLoadHost {
  readonly store: BlockStore;
  readonly pool: TxPool;
  readonly events: EventEmitter<NodeEvents>;
  readonly clock: NextBlock;
  readonly history: { clearSnapshots(): void };
  withLiveState<T>(fn: (sm: MerkleStateManager) => Promise<T>): Promise<T>;
}

export type { AccountJson, BlockJson, EmptyRunJson, TransactionJson, ReceiptJson, StateJson, NodeRpcExtension, ParsedState } from './stateJson.js';
export { StateError } from './stateJson.js';
export { dumpStateChunks, dumpStateText, encodeStateBlob } from './stateDump.js';

/** Text of a state blob: 0x-hex of gzip-compressed or plain JSON. */
export function decodeStateBlob(blob: Uint8Array): string {
  const gzip = blob.length >= 2 && blob[0] === 0x1f && blob[1] === 0x8b;
  try {
    return (gzip ? gunzipSync(blob) : Buffer.from(blob)).toString('utf8');
  } catch (err) {
    throw new StateError('state', `cannot decompress: ${(err as Error).message}`);
  }
}

/** Check and decode a state document (anvil's format or this node's first one) without touching the node. */
export async function parseState(node: StateTarget, text: string, source = 'state'): Promise<ParsedState> {
  const fail = (message: string): never => {
    throw new StateError(source, message);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return fail(`not valid JSON (${(err as Error).message})`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return fail('expected a JSON object');
  const d = doc as Record<string, unknown>;
  if (d.version !== undefined) return parseLegacyState(node, d, fail);
  if (d.accounts !== undefined && (d.best_block_number !== undefined || d.block !== undefined || d.nodeRpc !== undefined)) return parseAnvilState(node, d, fail);
  return fail('not a state dump: no "version" field (this node\'s first format) and no "block" or "best_block_number" field (anvil\'s format)');
}

// ---------------------------------------------------------------- load

export interface LoadResult {
  /** True when the document's history replaced the node's chain. */
  replacedChain: boolean;
  accounts: number;
  /** The live state root after loading, and the one the document recorded (chain replaced only). */
  stateRoot: Uint8Array;
  expectedStateRoot?: Uint8Array;
}

/**
 * Apply a parsed document: its history replaces the node's chain when the node is fresh or the
 * document's chain is longer (pool and snapshots are cleared then); its accounts are written over
 * the live state (each dumped account as dumped, others untouched).
 */
export async function applyState(node: StateLoadHost, parsed: ParsedState, client: Client | undefined = askingClient()): Promise<LoadResult> {
  const chain = parsed.chain;
  const replace = chain !== undefined && (node.store.headNumber === 0n || chain.head > node.store.headNumber);
  if (chain?.entries.some((e) => e.kind !== 'block')) await readyKeccak();
  return asClient(client, () => node.withLiveState(async (sm) => {
    if (replace) {
      const dropped = node.store.truncate(-1n);
      for (const e of chain.entries) {
        if (e.kind === 'block') node.store.add(e.stored);
        else node.store.addRun(new EmptyRun(node.store.head.block, e.count, e.interval));
      }
      for (const p of node.pool.clear()) node.events.emit('dropped', p, 'replaced by a loaded state');
      for (const p of parsed.pool ?? []) node.pool.add(p);
      node.history.clearSnapshots();
      node.clock.setOffset(chain.timeOffset);
      if (dropped.length) node.events.emit('reorg', dropped);
    }
    for (const a of parsed.accounts) {
      const existing = await sm.getAccount(a.address);
      if (existing && !equalsBytes(existing.storageRoot, KECCAK256_RLP)) await sm.clearStorage(a.address);
      await sm.putAccount(a.address, new Account(a.nonce, a.balance));
      if (a.code.length > 0) await sm.putCode(a.address, a.code);
      for (const [k, v] of a.storage) await sm.putStorage(a.address, k, v);
    }
    const stateRoot = await sm.getStateRoot();
    return { replacedChain: replace, accounts: parsed.accounts.length, stateRoot, expectedStateRoot: replace ? chain.stateRoot : undefined };
  }));
}
