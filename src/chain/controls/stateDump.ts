/**
 * Writing state dumps (anvil_dumpState, --dump-state / --state files) in anvil's format.
 *
 * The document is anvil's `SerializableState`: `block` (the head's block environment), `accounts`
 * (nonce, balance, code, storage), `best_block_number`, `blocks` (header and transactions as JSON),
 * `transactions` (each mined transaction's info and receipt) and `historical_states` (null: older
 * states are not kept). anvil loads it as it loads its own dumps. What only this node keeps rides
 * in a `nodeRpc` field anvil ignores: the format version, chain id, hardfork, state root, clock
 * offset, runs of empty blocks as their recipe, the state roots blocks were built on when state was
 * edited between blocks, EVM errors of failed transactions, and the pool.
 *
 * A run of empty blocks is written as its recipe plus its last block (so anvil knows the head and
 * the parent of the next block); the blocks inside a run are not written.
 *
 * The text is built piece by piece, with the event loop let in every few milliseconds, so a large
 * state does not stop the node answering other requests while it is written.
 */
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import type { BlockHeader } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, type Address } from '@ethereumjs/util';
import { keccak256 } from '../core/keccak.js';
import { scheduleToJson, type ForkSchedule } from '../core/config.js';
import { dumpPool } from '../pool/poolFile.js';
import { eachLeaf, frozenState, type FrozenState } from '../engine/frozenState.js';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { BlockStore } from '../head/store.js';
import type { TxPool } from '../pool/txpool.js';

/** What a dump reads: the live state and its trie, the keys' preimages, the blocks, the pool and the clock. */
export interface DumpSource {
  readonly store: BlockStore;
  readonly pool: TxPool;
  readonly stateTrie: MerklePatriciaTrie;
  readonly preimages: { get(hashedKeyHex: string): Uint8Array | undefined };
  readonly config: { readonly chainId: bigint; readonly hardfork: string; readonly schedule?: ForkSchedule };
  readonly clock: { readonly offset: bigint };
  /** The chain this node forks, if it does (its state is then not all in the trie). */
  readonly fork: unknown;
  withLiveState<T>(fn: (sm: MerkleStateManager) => Promise<T>): Promise<T>;
}
import type { MinedTx, StoredBlock } from '../core/types.js';
import { NODE_RPC_FORMAT, exitOf, type NodeRpcExtension } from './stateJson.js';
import { RenderedAccounts, Writer, writeAccounts, type AccountReader } from './stateAccounts.js';

/** Each node's rendered accounts, kept between its dumps. */
const rendered = new WeakMap<DumpSource, RenderedAccounts>();

/** A block's text in the document, and its transactions' (info and receipt), joined. */
interface BlockTexts {
  block: string;
  txs: string;
}

/** Blocks' texts kept between the writes of nodes that write their state repeatedly. */
const keptTexts = new WeakMap<StoredBlock, BlockTexts>();

const q = (n: bigint | number): string => '0x' + n.toString(16);
/** A u64 field anvil reads as a JSON number; beyond 2^53 as hex (anvil's older format accepts it). */
const u64 = (n: bigint): number | string => (n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : q(n));

/** The node's state and history as the text of a state document (anvil's format). */
export async function dumpStateText(node: DumpSource, generator: string): Promise<string> {
  return (await dumpStateChunks(node, generator)).join('');
}

/**
 * The text of a state document in chunks (written to a file one after another). `repeated`: the
 * node writes its state again and again (--state-interval), so each block's text is kept for the
 * next write (a block never changes once mined) at the cost of the memory it takes.
 */
export async function dumpStateChunks(node: DumpSource, generator: string, repeated = false): Promise<string[]> {
  const texts = repeated ? keptTexts : undefined;
  // The node's lock is held only to fix what is dumped (the state root, the blocks, the pool): the
  // accounts are read at that root and the text is built after it is released, so requests that
  // take the lock (calls, sends) do not wait for the whole dump. Should the state at that root go
  // from the store meanwhile (a snapshot rewound), the dump is made again under the lock throughout.
  if (node.fork === undefined) {
    const fixed = await node.withLiveState(async (sm) => {
      const stateRoot = await sm.getStateRoot();
      return { ...fixedParts(node, generator, stateRoot), state: frozenState(sm, node.stateTrie, stateRoot) };
    });
    try {
      const entries = rendered.get(node) ?? new RenderedAccounts();
      rendered.set(node, entries);
      return await entries.exclusive(() => documentChunks(node, fixed, frozenReader(fixed.state), texts, entries));
    } catch {
      // The state at the fixed root is no longer complete in the store: dumped under the lock below.
    }
  }
  return node.withLiveState(async (sm) => documentChunks(node, fixedParts(node, generator, await sm.getStateRoot()), liveReader(node, sm), texts));
}

/** The live state, read under the node's lock. */
function liveReader(node: DumpSource, sm: MerkleStateManager): AccountReader {
  return {
    eachLeaf: (pacer, fn) => eachLeaf(node.stateTrie, node.stateTrie.root(), fn, () => pacer.maybeYield()),
    storage: (address) => sm.dumpStorage(address),
    code: (address) => sm.getCode(address),
  };
}

/** The state at a fixed root, read without the lock. */
function frozenReader(state: FrozenState): AccountReader {
  return {
    eachLeaf: (pacer, fn) => state.eachAccount(fn, () => pacer.maybeYield()),
    changedSince: (before, pacer, fn, gone) => state.changedAccounts(before, fn, gone, () => pacer.maybeYield()),
    storage: (_address, account, pacer) => state.storage(account.storageRoot, () => pacer.maybeYield()),
    code: (_address, account) => state.code(account.codeHash),
  };
}

/** What the document holds besides the accounts, fixed under the lock. */
interface FixedParts {
  stateRoot: Uint8Array;
  head: StoredBlock;
  blocks: StoredBlock[];
  ext: NodeRpcExtension;
}

/** The head, the blocks (the real ones, and the last block of each run of empty blocks) and the `nodeRpc` field. */
function fixedParts(node: DumpSource, generator: string, stateRoot: Uint8Array): FixedParts {
  const store = node.store;
  const head = store.head;
  const ext: NodeRpcExtension = {
    version: NODE_RPC_FORMAT,
    generator,
    chainId: q(node.config.chainId),
    hardfork: node.config.hardfork,
    ...(node.config.schedule !== undefined ? { schedule: scheduleToJson(node.config.schedule) } : {}),
    stateRoot: bytesToHex(stateRoot),
    timeOffset: node.clock.offset.toString(),
    head: { number: q(head.number), hash: head.hashHex },
    emptyRuns: [],
    preStateRoots: {},
    errors: {},
    pool: dumpPool(node.pool),
  };
  const blocks: StoredBlock[] = [];
  const runs = [...store.emptyRuns()];
  const takeRun = () => {
    const r = runs.shift()!;
    ext.emptyRuns.push({ number: q(r.first), count: r.count, interval: q(r.interval) });
    blocks.push(store.byNumber(r.last)!);
  };
  for (const b of store.realBlocks(0n, head.number)) {
    while (runs.length > 0 && runs[0].first < b.number) takeRun();
    blocks.push(b);
  }
  while (runs.length > 0) takeRun();
  return { stateRoot, head, blocks, ext };
}

/**
 * The document's text, its accounts read through `reader`; with `cache`, accounts whose leaf is
 * unchanged since an earlier dump keep their text.
 */
async function documentChunks(node: DumpSource, fixed: FixedParts, reader: AccountReader, texts?: WeakMap<StoredBlock, BlockTexts>, cache = new RenderedAccounts()): Promise<string[]> {
  const out = new Writer();
  const { head, blocks, ext } = fixed;
  out.push(`{"block":${JSON.stringify(blockEnv(head.block.header))},"accounts":{`);

  await writeAccounts(node, reader, out, cache, fixed.stateRoot);
  out.push(`},"best_block_number":${u64(head.number)},"blocks":[`);

  const textsOf = (b: StoredBlock): BlockTexts => {
    let t = texts?.get(b);
    if (t === undefined) {
      t = { block: blockJson(b), txs: b.txs.map((tx) => minedTxJson(tx, b)).join(',') };
      texts?.set(b, t);
    }
    return t;
  };
  for (let i = 0; i < blocks.length; i++) {
    if (i % 64 === 0) await out.maybeYield();
    const b = blocks[i];
    if (b.preStateRoot) ext.preStateRoots[q(b.number)] = bytesToHex(b.preStateRoot);
    if (i > 0) out.push(',');
    out.push(textsOf(b).block);
  }
  out.push('],"transactions":[');
  let first = true;
  for (let i = 0; i < blocks.length; i++) {
    if (i % 64 === 0) await out.maybeYield();
    const b = blocks[i];
    if (b.txs.length === 0) continue;
    for (const t of b.txs) {
      if (t.receipt.error !== undefined) ext.errors[t.hashHex] = t.receipt.error;
      if (t.receipt.root !== undefined) (ext.roots ??= {})[t.hashHex] = bytesToHex(t.receipt.root);
    }
    if (!first) out.push(',');
    out.push(textsOf(b).txs);
    first = false;
  }
  out.push(`],"historical_states":null,"nodeRpc":${JSON.stringify(ext)}}`);
  return out.finish();
}

/** anvil_dumpState's answer: the document gzip-compressed, as 0x-hex (compressed off the main thread). */
export async function encodeStateBlob(text: string): Promise<string> {
  return '0x' + (await promisify(gzip)(text)).toString('hex');
}

/** anvil's block environment of the head block (its `block` field). */
function blockEnv(h: BlockHeader): Record<string, unknown> {
  const env: Record<string, unknown> = {
    number: q(h.number),
    beneficiary: h.coinbase.toString(),
    timestamp: q(h.timestamp),
    gas_limit: u64(h.gasLimit),
    basefee: u64(h.baseFeePerGas ?? 0n),
    difficulty: q(h.difficulty),
    prevrandao: bytesToHex(h.mixHash),
  };
  if (h.excessBlobGas !== undefined) env.blob_excess_gas_and_price = { excess_blob_gas: u64(h.excessBlobGas), blob_gasprice: u64(h.getBlobGasPrice()) };
  env.slot_num = 0;
  return env;
}

/** A block as anvil writes it: the header's fields by their JSON-RPC names, transactions as JSON. */
function blockJson(b: StoredBlock): string {
  const block = b.block;
  const h = block.header;
  const header: Record<string, string> = {
    parentHash: bytesToHex(h.parentHash),
    sha3Uncles: bytesToHex(h.uncleHash),
    miner: h.coinbase.toString(),
    stateRoot: bytesToHex(h.stateRoot),
    transactionsRoot: bytesToHex(h.transactionsTrie),
    receiptsRoot: bytesToHex(h.receiptTrie),
    logsBloom: bytesToHex(h.logsBloom),
    difficulty: q(h.difficulty),
    number: q(h.number),
    gasLimit: q(h.gasLimit),
    gasUsed: q(h.gasUsed),
    timestamp: q(h.timestamp),
    extraData: bytesToHex(h.extraData),
    mixHash: bytesToHex(h.mixHash),
    nonce: bytesToHex(h.nonce),
  };
  if (h.baseFeePerGas !== undefined) header.baseFeePerGas = q(h.baseFeePerGas);
  if (h.withdrawalsRoot !== undefined) header.withdrawalsRoot = bytesToHex(h.withdrawalsRoot);
  if (h.blobGasUsed !== undefined) header.blobGasUsed = q(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) header.excessBlobGas = q(h.excessBlobGas);
  if (h.parentBeaconBlockRoot !== undefined) header.parentBeaconBlockRoot = bytesToHex(h.parentBeaconBlockRoot);
  if (h.requestsHash !== undefined) header.requestsHash = bytesToHex(h.requestsHash);
  const withdrawals = block.withdrawals === undefined ? null : block.withdrawals.map((w) => w.toJSON());
  return `{"header":${JSON.stringify(header)},"transactions":[${b.txs.map((t) => txJson(t.tx, t.from)).join(',')}],"ommers":[],"withdrawals":${JSON.stringify(withdrawals)}}`;
}

/**
 * A transaction as anvil writes it in a block: the transaction's fields and signature, and the
 * sender when it was sent unsigned (impersonated), with a zero signature.
 */
function txJson(tx: TypedTransaction, from: Address): string {
  const o: Record<string, unknown> = { type: q(tx.type) };
  const t = tx as TypedTransaction & Record<string, any>;
  // Sent by an impersonated sender: no signature (this node), or anvil's zero signature (loaded from anvil).
  const unsigned = t.r === undefined || t.s === undefined || (t.r === 0n && t.s === 0n);
  const v: bigint | undefined = t.v === undefined || t.v === 0n ? undefined : t.v;
  if (tx.type !== 0) o.chainId = q(t.chainId);
  else if (v === undefined) o.chainId = q(tx.common.chainId());
  else if (v >= 35n) o.chainId = q((v - 35n) / 2n);
  o.nonce = q(tx.nonce);
  if (t.gasPrice !== undefined && tx.type < 2) o.gasPrice = q(t.gasPrice);
  o.gas = q(tx.gasLimit);
  if (tx.type >= 2) {
    o.maxFeePerGas = q(t.maxFeePerGas);
    o.maxPriorityFeePerGas = q(t.maxPriorityFeePerGas);
  }
  o.to = tx.to === undefined ? null : tx.to.toString();
  o.value = q(tx.value);
  if (tx.type >= 1) o.accessList = tx.toJSON().accessList ?? [];
  if (tx.type === 3) {
    o.blobVersionedHashes = t.blobVersionedHashes.map((h: Uint8Array) => bytesToHex(h));
    o.maxFeePerBlobGas = q(t.maxFeePerBlobGas);
  }
  if (tx.type === 4) o.authorizationList = tx.toJSON().authorizationList ?? [];
  o.input = bytesToHex(tx.data);
  o.r = unsigned ? '0x0' : q(t.r);
  o.s = unsigned ? '0x0' : q(t.s);
  if (tx.type !== 0) o.yParity = unsigned ? '0x0' : q(t.v ?? 0n);
  // anvil's zero signature of an impersonated sender: parity 0 (EIP-155's v for legacy transactions).
  o.v = v !== undefined ? q(v) : tx.type === 0 ? q(tx.common.chainId() * 2n + 35n) : '0x0';
  // An unsigned transaction's own hash (its recorded hash is the one clients were given, in the info).
  o.hash = unsigned ? bytesToHex(keccak256(tx.serialize())) : bytesToHex(tx.hash());
  return JSON.stringify({ transaction: o, impersonated_sender: unsigned ? from.toString() : null });
}

/** A mined transaction as anvil writes it: what the run gave (info), the receipt, where it was mined. */
function minedTxJson(t: MinedTx, b: StoredBlock): string {
  const r = t.receipt;
  const created = r.contractAddress?.toString() ?? null;
  const info = {
    transaction_hash: t.hashHex,
    transaction_index: t.index,
    from: t.from.toString(),
    to: t.tx.to === undefined ? null : t.tx.to.toString(),
    contract_address: created,
    traces: [],
    exit: exitOf(r.status, r.error, created !== null || r.returnValue.length > 0),
    out: bytesToHex(r.returnValue),
    nonce: Number(t.tx.nonce),
    gas_used: Number(r.gasUsed),
  };
  const receipt = {
    type: q(t.tx.type),
    status: r.status === 1 ? '0x1' : '0x0',
    cumulativeGasUsed: q(r.cumulativeGasUsed),
    logs: r.logs.map(([address, topics, data]) => ({ address: bytesToHex(address), topics: topics.map((x) => bytesToHex(x)), data: bytesToHex(data) })),
    logsBloom: bytesToHex(r.bloom),
  };
  return JSON.stringify({ info, receipt, block_hash: b.hashHex, block_number: Number(b.number) });
}
