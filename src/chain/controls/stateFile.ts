/**
 * State dumps: the chain as one JSON document (anvil_dumpState / anvil_loadState, and the CLI's
 * --dump-state / --load-state / --state files).
 *
 * The document holds every account (balance, nonce, code, storage) and the history: blocks as
 * their RLP, runs of empty blocks as their recipe, and each transaction's sender and receipt.
 * Loading it into a fresh node gives the same state root, blocks, hashes and receipts; loading it
 * into a node whose chain is at least as long merges the accounts only. Older states are not
 * kept: reading state at a loaded block other than the head is an error.
 *
 * Everything is parsed and checked before anything is changed, so a bad document leaves the
 * node untouched. Files are written to a temporary file and renamed over the target, so a crash
 * mid-write never leaves a truncated file.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { createBlockFromRLP } from '@ethereumjs/block';
import { LeafMPTNode, nibblesToBytes, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import {
  Account,
  Address,
  KECCAK256_RLP,
  bytesToHex,
  createAccountFromRLP,
  equalsBytes,
  hexToBytes,
  setLengthLeft,
} from '@ethereumjs/util';
import { ChainError } from '../errors.js';
import { EmptyRun } from '../mining/emptyRuns.js';
import { readyKeccak } from '../engine/keccak.js';
import { dumpPool, parsePool } from '../pool/poolFile.js';
import { withRecordedSender } from '../exec/request.js';
import type { DevNode } from '../node.js';
import type { PendingTx } from '../mining/block.js';
import type { MinedTx, RawLog, Receipt, StoredBlock } from '../types.js';
import { bytesAt, objectAt, quantityAt, wordAt } from './stateJson.js';
import type { AccountJson, BlockJson, TransactionJson, ReceiptJson, StateJson } from './stateJson.js';

export type { AccountJson, BlockJson, EmptyRunJson, TransactionJson, ReceiptJson, StateJson } from './stateJson.js';

/** Format version written by this node; other versions are refused. */
export const STATE_VERSION = 1;

const q = (n: bigint | number): string => '0x' + n.toString(16);

/** Accounts dumped between two yields to the event loop. */
const YIELD_EVERY = 64;

// ---------------------------------------------------------------- dump

/** The node's state and history as a state document. */
export async function dumpState(node: DevNode, generator: string): Promise<StateJson> {
  return node.withLiveState(async (sm) => {
    const stateRoot = await sm.getStateRoot();
    const values = await accountLeaves(node.stateTrie);
    const entries: Array<[string, AccountJson]> = [];
    let n = 0;
    for (const [hashedKey, rlpHex] of values) {
      // Let other requests in now and then: a large state takes a while to walk.
      if (++n % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
      const key = node.preimages.get(hashedKey);
      if (!key || key.length !== 20) throw new ChainError(`cannot dump the state: no address is known for account key ${hashedKey}`);
      const address = new Address(key);
      const account = createAccountFromRLP(hexToBytes(rlpHex as `0x${string}`));
      const storage: Record<string, string> = {};
      if (!equalsBytes(account.storageRoot, KECCAK256_RLP)) {
        const slots: Array<[string, string]> = [];
        for (const [hashedSlot, valueHex] of Object.entries(await sm.dumpStorage(address))) {
          const slot = node.preimages.get(hashedSlot);
          if (!slot || slot.length !== 32) throw new ChainError(`cannot dump the state: no slot is known for storage key ${hashedSlot} of ${address}`);
          const value = RLP.decode(hexToBytes(valueHex as `0x${string}`)) as Uint8Array;
          slots.push([bytesToHex(slot), bytesToHex(setLengthLeft(value, 32))]);
        }
        slots.sort((a, b) => (a[0] < b[0] ? -1 : 1));
        for (const [k, v] of slots) storage[k] = v;
      }
      const code = account.isContract() ? bytesToHex(await sm.getCode(address)) : '0x';
      entries.push([address.toString(), { nonce: Number(account.nonce), balance: q(account.balance), code, storage }]);
    }
    entries.sort((a, b) => (a[0] < b[0] ? -1 : 1));

    const store = node.store;
    const head = store.headNumber;
    const blocks: StateJson['blocks'] = [];
    const transactions: TransactionJson[] = [];
    const receipts: ReceiptJson[] = [];
    const runs = [...store.emptyRuns()];
    for (const b of store.realBlocks(0n, head)) {
      while (runs.length > 0 && runs[0].first < b.number) {
        const r = runs.shift()!;
        blocks.push({ number: q(r.first), emptyRun: { count: r.count, interval: q(r.interval) } });
      }
      const entry: BlockJson = { number: q(b.number), hash: b.hashHex, rlp: bytesToHex(b.block.serialize()) };
      if (b.preStateRoot) entry.preStateRoot = bytesToHex(b.preStateRoot);
      blocks.push(entry);
      for (const t of b.txs) {
        const tx: TransactionJson = { hash: t.hashHex, blockNumber: q(b.number), transactionIndex: t.index, from: t.from.toString() };
        if (t.tx.v === undefined) tx.unsigned = true;
        transactions.push(tx);
        receipts.push(receiptJson(t));
      }
    }
    for (const r of runs) blocks.push({ number: q(r.first), emptyRun: { count: r.count, interval: q(r.interval) } });

    return {
      version: STATE_VERSION,
      generator,
      chainId: q(node.config.chainId),
      hardfork: node.config.hardfork,
      stateRoot: bytesToHex(stateRoot),
      timeOffset: node.clock.offset.toString(),
      head: { number: q(head), hash: store.head.hashHex },
      accounts: Object.fromEntries(entries),
      blocks,
      transactions,
      receipts,
      pool: dumpPool(node.pool),
    };
  });
}

/** Every leaf of the account trie (hashed key, RLP account), walked with pauses for other requests. */
async function accountLeaves(trie: MerklePatriciaTrie): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  await trie.walkAllValueNodes(async (node, key) => {
    if (!(node instanceof LeafMPTNode)) return;
    out.push([bytesToHex(nibblesToBytes(Uint8Array.from([...key, ...node.key()]))), bytesToHex(node.value()!)]);
    if (out.length % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
  });
  return out;
}

function receiptJson(t: MinedTx): ReceiptJson {
  const r = t.receipt;
  const out: ReceiptJson = {
    transactionHash: t.hashHex,
    status: r.status,
    gasUsed: q(r.gasUsed),
    cumulativeGasUsed: q(r.cumulativeGasUsed),
    effectiveGasPrice: q(r.effectiveGasPrice),
    contractAddress: r.contractAddress ? r.contractAddress.toString() : null,
    logs: r.logs.map(([address, topics, data]) => ({ address: bytesToHex(address), topics: topics.map((x) => bytesToHex(x)), data: bytesToHex(data) })),
    logsBloom: bytesToHex(r.bloom),
    returnData: bytesToHex(r.returnValue),
  };
  if (r.error !== undefined) out.error = r.error;
  if (r.blobGasUsed !== undefined) out.blobGasUsed = q(r.blobGasUsed);
  if (r.blobGasPrice !== undefined) out.blobGasPrice = q(r.blobGasPrice);
  return out;
}

/** anvil_dumpState's blob: gzip-compressed JSON as 0x-hex (as anvil answers). */
export function encodeStateBlob(state: StateJson): string {
  return '0x' + gzipSync(JSON.stringify(state)).toString('hex');
}

// ---------------------------------------------------------------- parse

interface ParsedAccount {
  address: Address;
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  storage: Array<[Uint8Array, Uint8Array]>;
}

type ParsedChainEntry = { kind: 'block'; stored: StoredBlock } | { kind: 'run'; count: number; interval: bigint };

export interface ParsedState {
  accounts: ParsedAccount[];
  /** The history, when the document has one (node-rpc documents; anvil's hold accounts only). */
  chain?: { entries: ParsedChainEntry[]; head: bigint; timeOffset: bigint; stateRoot: Uint8Array; chainId: bigint; hardfork: string };
  /** The pool the document was written with (it replaces the node's pool with the chain). */
  pool?: PendingTx[];
}

/** A state document that cannot be used; `source` names where it came from. */
export class StateError extends ChainError {
  constructor(source: string, message: string) {
    super(`${source}: ${message}`, undefined, -32602);
  }
}

/** Text of a state blob: 0x-hex of gzip-compressed or plain JSON. */
export function decodeStateBlob(blob: Uint8Array): string {
  const gzip = blob.length >= 2 && blob[0] === 0x1f && blob[1] === 0x8b;
  try {
    return (gzip ? gunzipSync(blob) : Buffer.from(blob)).toString('utf8');
  } catch (err) {
    throw new StateError('state', `cannot decompress: ${(err as Error).message}`);
  }
}

/** Check and decode a state document without touching the node. */
export function parseState(node: DevNode, text: string, source = 'state'): ParsedState {
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
  if (d.version === undefined) {
    // anvil's own dumps carry accounts (and anvil-specific history, which is not read).
    if (d.accounts !== undefined && (d.best_block_number !== undefined || d.block !== undefined)) return { accounts: parseAccounts(d.accounts, fail) };
    return fail(`not a state dump: no "version" field (this node writes and reads version ${STATE_VERSION})`);
  }
  if (d.version !== STATE_VERSION) return fail(`unsupported state version ${JSON.stringify(d.version)}: this node reads version ${STATE_VERSION}`);
  const accounts = parseAccounts(d.accounts, fail);
  const chainId = quantityAt(d.chainId, 'chainId', fail);
  const hardfork = typeof d.hardfork === 'string' ? d.hardfork : fail('"hardfork" must be a string');
  const stateRoot = bytesAt(d.stateRoot, 'stateRoot', fail, 32);
  const timeOffset = typeof d.timeOffset === 'string' && /^-?\d+$/.test(d.timeOffset) ? BigInt(d.timeOffset) : fail('"timeOffset" must be a decimal string');
  if (!Array.isArray(d.blocks) || !Array.isArray(d.transactions) || !Array.isArray(d.receipts)) return fail('"blocks", "transactions" and "receipts" must be arrays');
  if (d.blocks.length === 0) return { accounts };
  if (chainId !== node.config.chainId) {
    return fail(`the chain in it has chain id ${chainId}, this node runs chain id ${node.config.chainId} (start it with --chain-id ${chainId})`);
  }
  if (hardfork !== node.config.hardfork) return fail(`the chain in it follows ${hardfork}, this node runs ${node.config.hardfork} (start it with --hardfork ${hardfork})`);

  // Senders and hashes by position: unsigned (impersonated) transactions are found by where they sit.
  const txInfo = new Map<string, TxInfo>();
  d.transactions.forEach((t: unknown, i: number) => {
    const where = `transactions[${i}]`;
    const o = objectAt(t, where, fail);
    const position = `${quantityAt(o.blockNumber, `${where}.blockNumber`, fail)}:${typeof o.transactionIndex === 'number' ? o.transactionIndex : fail(`${where}.transactionIndex must be a number`)}`;
    txInfo.set(position, {
      hash: bytesAt(o.hash, `${where}.hash`, fail, 32),
      from: new Address(bytesAt(o.from, `${where}.from`, fail, 20)),
    });
  });
  const receipts = new Map<string, Record<string, unknown>>();
  d.receipts.forEach((r: unknown, i: number) => {
    const o = objectAt(r, `receipts[${i}]`, fail);
    receipts.set(bytesToHex(bytesAt(o.transactionHash, `receipts[${i}].transactionHash`, fail, 32)), o);
  });

  const entries: ParsedChainEntry[] = [];
  let next = 0n;
  let lastReal: StoredBlock | undefined;
  d.blocks.forEach((b: unknown, i: number) => {
    const where = `blocks[${i}]`;
    const o = objectAt(b, where, fail);
    const number = quantityAt(o.number, `${where}.number`, fail);
    if (number !== next) fail(`${where}: block ${number} where block ${next} was expected`);
    if (o.emptyRun !== undefined) {
      const run = objectAt(o.emptyRun, `${where}.emptyRun`, fail);
      const count = typeof run.count === 'number' && Number.isSafeInteger(run.count) && run.count > 0 ? run.count : fail(`${where}.emptyRun.count must be a positive integer`);
      const interval = quantityAt(run.interval, `${where}.emptyRun.interval`, fail);
      if (!lastReal || lastReal.number !== number - 1n || lastReal.txs.length > 0 || interval < 1n) fail(`${where}: an empty-block run must follow an empty block and have an interval of at least 1`);
      entries.push({ kind: 'run', count, interval });
      next += BigInt(count);
      return;
    }
    const stored = decodeBlock(node, o, where, txInfo, receipts, fail);
    if (stored.number !== number) fail(`${where}: its RLP holds block ${stored.number}`);
    entries.push({ kind: 'block', stored });
    lastReal = stored;
    next++;
  });
  const head = objectAt(d.head, 'head', fail);
  if (quantityAt(head.number, 'head.number', fail) !== next - 1n) fail(`head.number does not match the last block (${next - 1n})`);
  return { accounts, chain: { entries, head: next - 1n, timeOffset, stateRoot, chainId, hardfork }, pool: parsePool(d.pool, node.common, fail) };
}

interface TxInfo {
  hash: Uint8Array;
  from: Address;
}

function decodeBlock(
  node: DevNode,
  o: Record<string, unknown>,
  where: string,
  txInfo: Map<string, TxInfo>,
  receipts: Map<string, Record<string, unknown>>,
  fail: (m: string) => never,
): StoredBlock {
  const rlp = bytesAt(o.rlp, `${where}.rlp`, fail);
  let block;
  try {
    block = createBlockFromRLP(rlp, { common: node.common, skipConsensusFormatValidation: true });
  } catch (err) {
    return fail(`${where}.rlp is not a valid block: ${(err as Error).message.split('\n')[0]}`);
  }
  const hash = block.hash();
  if (o.hash !== undefined && bytesToHex(hash) !== String(o.hash).toLowerCase()) fail(`${where}: its RLP hashes to ${bytesToHex(hash)}, not ${String(o.hash)}`);
  const stored: StoredBlock = { block, number: block.header.number, hash, hashHex: bytesToHex(hash), txs: [] };
  if (o.preStateRoot !== undefined) stored.preStateRoot = bytesAt(o.preStateRoot, `${where}.preStateRoot`, fail, 32);
  let logIndex = 0;
  block.transactions.forEach((raw, index) => {
    const info = txInfo.get(`${stored.number}:${index}`) ?? fail(`${where}: transaction ${index} has no entry in "transactions"`);
    let tx: TypedTransaction = raw;
    if (raw.isSigned()) {
      if (!equalsBytes(raw.hash(), info.hash)) fail(`${where}: transaction ${index} hashes to ${bytesToHex(raw.hash())}, not ${bytesToHex(info.hash)}`);
    } else {
      // Sent without a signature by an impersonated sender: hash and sender come from the document.
      tx = withRecordedSender(createTxFromRLP(raw.serialize(), { common: node.common, freeze: false }), info.from, info.hash);
    }
    const hashHex = bytesToHex(info.hash);
    const r = receipts.get(hashHex) ?? fail(`${where}: transaction ${hashHex} has no receipt`);
    const receipt = parseReceipt(r, logIndex, `receipt of ${hashHex}`, fail);
    logIndex += receipt.logs.length;
    stored.txs.push({ tx, hash: info.hash, hashHex, from: info.from, index, block: stored, receipt });
  });
  return stored;
}

function parseReceipt(o: Record<string, unknown>, firstLogIndex: number, where: string, fail: (m: string) => never): Receipt {
  const status = o.status === 0 || o.status === 1 ? o.status : fail(`${where}.status must be 0 or 1`);
  if (!Array.isArray(o.logs)) fail(`${where}.logs must be an array`);
  const logs: RawLog[] = (o.logs as unknown[]).map((l, i) => {
    const log = objectAt(l, `${where}.logs[${i}]`, fail);
    if (!Array.isArray(log.topics)) fail(`${where}.logs[${i}].topics must be an array`);
    return [
      bytesAt(log.address, `${where}.logs[${i}].address`, fail, 20),
      (log.topics as unknown[]).map((t, j) => bytesAt(t, `${where}.logs[${i}].topics[${j}]`, fail, 32)),
      bytesAt(log.data, `${where}.logs[${i}].data`, fail),
    ];
  });
  const receipt: Receipt = {
    status,
    gasUsed: quantityAt(o.gasUsed, `${where}.gasUsed`, fail),
    cumulativeGasUsed: quantityAt(o.cumulativeGasUsed, `${where}.cumulativeGasUsed`, fail),
    effectiveGasPrice: quantityAt(o.effectiveGasPrice, `${where}.effectiveGasPrice`, fail),
    contractAddress: o.contractAddress === null || o.contractAddress === undefined ? undefined : new Address(bytesAt(o.contractAddress, `${where}.contractAddress`, fail, 20)),
    logs,
    firstLogIndex,
    bloom: bytesAt(o.logsBloom, `${where}.logsBloom`, fail, 256),
    returnValue: bytesAt(o.returnData ?? '0x', `${where}.returnData`, fail),
  };
  if (o.error !== undefined) receipt.error = typeof o.error === 'string' ? o.error : fail(`${where}.error must be a string`);
  if (o.blobGasUsed !== undefined) receipt.blobGasUsed = quantityAt(o.blobGasUsed, `${where}.blobGasUsed`, fail);
  if (o.blobGasPrice !== undefined) receipt.blobGasPrice = quantityAt(o.blobGasPrice, `${where}.blobGasPrice`, fail);
  return receipt;
}

function parseAccounts(v: unknown, fail: (m: string) => never): ParsedAccount[] {
  const accounts = objectAt(v, 'accounts', fail);
  return Object.entries(accounts).map(([addr, a]) => {
    const where = `accounts.${addr}`;
    const address = new Address(bytesAt(addr, `${where} (address)`, fail, 20));
    const o = objectAt(a, where, fail);
    const nonce = typeof o.nonce === 'number' && Number.isSafeInteger(o.nonce) && o.nonce >= 0 ? BigInt(o.nonce) : quantityAt(o.nonce ?? '0x0', `${where}.nonce`, fail);
    const storage = Object.entries(objectAt(o.storage ?? {}, `${where}.storage`, fail)).map(([k, val]): [Uint8Array, Uint8Array] => [
      setLengthLeft(wordAt(k, `${where}.storage key ${k}`, fail), 32),
      setLengthLeft(wordAt(val, `${where}.storage.${k}`, fail), 32),
    ]);
    return {
      address,
      nonce,
      balance: quantityAt(o.balance ?? '0x0', `${where}.balance`, fail),
      code: bytesAt(o.code ?? '0x', `${where}.code`, fail),
      storage,
    };
  });
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
export async function applyState(node: DevNode, parsed: ParsedState): Promise<LoadResult> {
  const chain = parsed.chain;
  const replace = chain !== undefined && (node.store.headNumber === 0n || chain.head > node.store.headNumber);
  if (chain?.entries.some((e) => e.kind !== 'block')) await readyKeccak();
  return node.withLiveState(async (sm) => {
    if (replace) {
      const dropped = node.store.truncate(-1n);
      for (const e of chain.entries) {
        if (e.kind === 'block') node.store.add(e.stored);
        else node.store.addRun(new EmptyRun(node.store.head.block, e.count, e.interval));
      }
      for (const p of node.pool.clear()) node.events.emit('dropped', p, 'replaced by a loaded state');
      for (const p of parsed.pool ?? []) node.pool.add(p);
      node.history.clearSnapshots();
      node.clock.offset = chain.timeOffset;
      node.clock.nextTimestamp = undefined;
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
  });
}
