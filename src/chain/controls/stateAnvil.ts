/**
 * Reading state documents in anvil's format (`SerializableState`), written by anvil or by this node.
 *
 * From anvil's fields: the accounts (nonce, balance, code, storage), the blocks (header and
 * transactions as JSON, rebuilt into blocks whose hashes are checked against their children's
 * parent hashes and the transactions' block hashes), and each transaction's info and receipt
 * (status, cumulative gas, logs, bloom; gas used, created contract and returned data from the
 * info; the price paid and blob gas from the transaction and its block). The head is
 * `best_block_number`. `block` (the head's environment) is implied by the head block, and
 * `historical_states` are not read: only the latest state is held.
 *
 * From the `nodeRpc` field this node adds (see stateDump.ts): chain id and hardfork (checked),
 * runs of empty blocks, the state roots blocks were built on, EVM errors, clock offset and pool.
 * Blocks missing between two blocks of the document (a run of empty blocks this node wrote, then
 * anvil loaded and dumped again without the field) are rebuilt as a run of empty blocks when that
 * reproduces the hash of the block after them; a document whose blocks do not start at genesis
 * (anvil on a fork) gives its accounts only.
 */
import { Block, createBlockHeader, type BlockHeader } from '@ethereumjs/block';
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address, bytesToHex, createWithdrawal, equalsBytes } from '@ethereumjs/util';
import { EmptyRun } from '../head/emptyRuns.js';
import { readyKeccak } from '../core/keccak.js';
import { scheduleFromJson, scheduleToJson } from '../core/config.js';
import type { Common } from '@ethereumjs/common';
import { effectiveGasPrice } from '../fees/rules.js';
import { parsePool } from '../pool/poolFile.js';
import { withRecordedSender } from '../exec/request.js';
import type { MinedTx, RawLog, Receipt, StoredBlock } from '../core/types.js';
import { NODE_RPC_FORMAT, bytesAt, errorOfExit, objectAt, parseAccounts, quantityAt, u64At, type ParsedChainEntry, type ParsedState, type StateTarget } from './stateJson.js';

type Fail = (m: string) => never;
type Json = Record<string, unknown>;
/** A block of the document, its header rebuilt. */
type Candidate = { o: Json; where: string; header: BlockHeader; hash: Uint8Array };
/** A mined transaction's entry in "transactions". */
type TxEntry = { info: Json; receipt: Json; blockHash: Uint8Array; where: string };

interface Extension {
  chainId: bigint;
  hardfork: string;
  stateRoot: Uint8Array;
  timeOffset: bigint;
  head: bigint;
  runs: Map<bigint, { count: number; interval: bigint }>;
  preStateRoots: Json;
  errors: Json;
  roots: Json;
  schedule: string | undefined;
  pool: unknown;
}

export async function parseAnvilState(node: StateTarget, d: Json, fail: Fail): Promise<ParsedState> {
  const accounts = parseAccounts(d.accounts, fail);
  const ext = d.nodeRpc === undefined || d.nodeRpc === null ? undefined : parseExtension(d.nodeRpc, fail);
  const blocks = d.blocks ?? [];
  const transactions = d.transactions ?? [];
  if (!Array.isArray(blocks) || !Array.isArray(transactions)) return fail('"blocks" and "transactions" must be arrays');
  if (blocks.length === 0) return { accounts };

  const chainId = ext?.chainId ?? chainIdOfBlocks(blocks);
  if (chainId !== undefined && chainId !== node.config.chainId) {
    return fail(`the chain in it has chain id ${chainId}, this node runs chain id ${node.config.chainId} (start it with --chain-id ${chainId})`);
  }
  if (ext && ext.hardfork !== node.config.hardfork) return fail(`the chain in it follows ${ext.hardfork}, this node runs ${node.config.hardfork} (start it with --hardfork ${ext.hardfork})`);
  const schedule = node.config.schedule === undefined ? undefined : JSON.stringify(scheduleToJson(node.config.schedule));
  if (ext && ext.schedule !== schedule) return fail(`the chain in it follows the fork schedule ${ext.schedule ?? `of ${ext.hardfork} from genesis`}, this node runs ${schedule ?? `${node.config.hardfork} from genesis`}`);

  // Blocks by number. anvil keeps every block it ever had, by hash: a dump it wrote after loading
  // one holds its own first blocks too. The chain is the one leading to the head.
  const candidates = new Map<bigint, Candidate[]>();
  blocks.forEach((b: unknown, i: number) => {
    const where = `blocks[${i}]`;
    const o = objectAt(b, where, fail);
    const header = headerOf(node, objectAt(o.header, `${where}.header`, fail), where, fail);
    const list = candidates.get(header.number) ?? [];
    list.push({ o, where, header, hash: header.hash() });
    candidates.set(header.number, list);
  });
  // History that does not start at genesis (anvil on a fork): the accounts only.
  if (!candidates.has(0n)) return { accounts };
  const head = ext?.head ?? (d.best_block_number !== undefined && d.best_block_number !== null ? u64At(d.best_block_number, 'best_block_number', fail) : [...candidates.keys()].reduce((a, b) => (a > b ? a : b)));
  if (!candidates.has(head)) return fail(`the head block ${head} (best_block_number) is not in "blocks"`);

  const infos = new Map<string, TxEntry>();
  const byPosition = new Map<string, TxEntry>();
  transactions.forEach((t: unknown, i: number) => {
    const where = `transactions[${i}]`;
    const o = objectAt(t, where, fail);
    const info = objectAt(o.info, `${where}.info`, fail);
    const index = u64At(info.transaction_index, `${where}.info.transaction_index`, fail);
    const entry = { info, receipt: objectAt(o.receipt, `${where}.receipt`, fail), blockHash: bytesAt(o.block_hash, `${where}.block_hash`, fail, 32), where };
    infos.set(`${bytesToHex(entry.blockHash)}:${index}`, entry);
    byPosition.set(`${u64At(o.block_number, `${where}.block_number`, fail)}:${index}`, entry);
  });
  const mined = new Set([...infos.values()].map((e) => bytesToHex(e.blockHash)));
  const byNumber = chainOf(candidates, head, mined, fail);

  const entries: ParsedChainEntry[] = [];
  let last: StoredBlock | undefined;
  let n = 0n;
  while (n <= head) {
    const run = ext?.runs.get(n);
    if (run) {
      if (!last || last.number !== n - 1n || last.txs.length > 0 || run.interval < 1n) fail(`nodeRpc.emptyRuns: the run at block ${n} must follow an empty block and have an interval of at least 1`);
      entries.push({ kind: 'run', count: run.count, interval: run.interval });
      n += BigInt(run.count);
      last = undefined;
      continue;
    }
    const found = byNumber.get(n);
    if (found === undefined) {
      // Blocks left out: a run of empty blocks whose last block is the next one in the document.
      let next = n + 1n;
      while (next <= head && !byNumber.has(next)) next++;
      const derived = last && next <= head ? await derivedRun(last, byNumber.get(next)![0], Number(next - n + 1n)) : undefined;
      if (!derived) return fail(`blocks ${n} to ${next - 1n} are missing from "blocks"`);
      entries.push({ kind: 'run', count: derived.count, interval: derived.interval });
      n = next + 1n;
      last = undefined;
      continue;
    }
    let stored: StoredBlock | undefined;
    if (found.length === 1) stored = decodeBlock(node, found[0], infos, byPosition, ext, fail);
    else {
      // Several blocks with this number and none with the next: the one a run of empty blocks leads on from.
      let next = n + 1n;
      while (next <= head && !byNumber.has(next)) next++;
      for (const c of found) {
        const b = decodeBlock(node, c, infos, byPosition, ext, fail);
        if (next <= head && (await derivedRun(b, byNumber.get(next)![0], Number(next - n)))) stored = b;
      }
      if (!stored) return fail(`"blocks" holds ${found.length} different blocks ${n}, and none leads to the head`);
    }
    if (last && last.number === n - 1n && !equalsBytes(stored.block.header.parentHash, last.hash)) {
      fail(`${found[0].where}: its parentHash is not the hash of block ${n - 1n} as rebuilt here (a header field this node's ${node.config.hardfork} does not know?)`);
    }
    entries.push({ kind: 'block', stored });
    last = stored;
    n++;
  }
  const headHeader = byNumber.get(head)![0].header;
  const now = BigInt(Math.floor(Date.now() / 1000));
  return {
    accounts,
    chain: {
      entries,
      head,
      // anvil's own clock is not in its dump: run no earlier than its head block.
      timeOffset: ext?.timeOffset ?? (headHeader.timestamp > now ? headHeader.timestamp - now : 0n),
      stateRoot: ext?.stateRoot ?? headHeader.stateRoot,
      chainId: node.config.chainId,
      hardfork: node.config.hardfork,
    },
    pool: ext ? parsePool(ext.pool, node.common, fail) : [],
  };
}

function parseExtension(v: unknown, fail: Fail): Extension {
  const e = objectAt(v, 'nodeRpc', fail);
  if (e.version !== NODE_RPC_FORMAT) return fail(`unsupported nodeRpc.version ${JSON.stringify(e.version)}: this node reads version ${NODE_RPC_FORMAT}`);
  const runs = new Map<bigint, { count: number; interval: bigint }>();
  if (!Array.isArray(e.emptyRuns)) return fail('nodeRpc.emptyRuns must be an array');
  e.emptyRuns.forEach((r: unknown, i: number) => {
    const where = `nodeRpc.emptyRuns[${i}]`;
    const o = objectAt(r, where, fail);
    const count = typeof o.count === 'number' && Number.isSafeInteger(o.count) && o.count > 0 ? o.count : fail(`${where}.count must be a positive integer`);
    runs.set(quantityAt(o.number, `${where}.number`, fail), { count, interval: quantityAt(o.interval, `${where}.interval`, fail) });
  });
  return {
    chainId: quantityAt(e.chainId, 'nodeRpc.chainId', fail),
    hardfork: typeof e.hardfork === 'string' ? e.hardfork : fail('nodeRpc.hardfork must be a string'),
    stateRoot: bytesAt(e.stateRoot, 'nodeRpc.stateRoot', fail, 32),
    timeOffset: typeof e.timeOffset === 'string' && /^-?\d+$/.test(e.timeOffset) ? BigInt(e.timeOffset) : fail('nodeRpc.timeOffset must be a decimal string'),
    head: quantityAt(objectAt(e.head, 'nodeRpc.head', fail).number, 'nodeRpc.head.number', fail),
    runs,
    preStateRoots: objectAt(e.preStateRoots ?? {}, 'nodeRpc.preStateRoots', fail),
    errors: objectAt(e.errors ?? {}, 'nodeRpc.errors', fail),
    roots: objectAt(e.roots ?? {}, 'nodeRpc.roots', fail),
    schedule: e.schedule === undefined ? undefined : scheduleText(e.schedule, fail),
    pool: e.pool,
  };
}

/** A recorded schedule, checked, as the text its node would write. */
function scheduleText(j: unknown, fail: Fail): string {
  const s = scheduleFromJson(j);
  return typeof s === 'string' ? fail(`nodeRpc.schedule: ${s}`) : JSON.stringify(scheduleToJson(s));
}

/** The chain id the document's transactions were signed for, if any says. */
function chainIdOfBlocks(blocks: unknown[]): bigint | undefined {
  for (const b of blocks) {
    const txs = (b as Json | null)?.transactions;
    if (!Array.isArray(txs)) continue;
    for (const t of txs) {
      const tx = ((t as Json | null)?.transaction ?? t) as Json | null;
      if (typeof tx?.chainId === 'string' && /^0x[0-9a-fA-F]+$/.test(tx.chainId)) return BigInt(tx.chainId);
    }
  }
  return undefined;
}

/**
 * For each block number up to the head, the blocks of the chain that leads to the head: each the
 * parent of the next. Where the next is missing (a run of empty blocks left out), every block of
 * that number that holds mined transactions, or all of them, stay candidates.
 */
function chainOf(candidates: Map<bigint, Candidate[]>, head: bigint, mined: Set<string>, fail: Fail): Map<bigint, Candidate[]> {
  const out = new Map<bigint, Candidate[]>();
  let want: Uint8Array | undefined;
  for (let k = head; k >= 0n; k--) {
    const list = candidates.get(k);
    if (!list) {
      want = undefined;
      continue;
    }
    let pick = list;
    if (list.length > 1 && want) {
      const parent = want;
      pick = list.filter((c) => equalsBytes(c.hash, parent));
      if (pick.length === 0) fail(`none of the ${list.length} blocks ${k} in "blocks" is the parent of block ${k + 1n}`);
    } else if (list.length > 1) {
      const withTxs = list.filter((c) => mined.has(bytesToHex(c.hash)));
      if (withTxs.length > 0) pick = withTxs;
    }
    out.set(k, pick);
    want = pick.length === 1 ? pick[0].header.parentHash : undefined;
  }
  return out;
}

/** A run of empty blocks after `template` ending with the document's block `end`, if it reproduces that block's hash. */
async function derivedRun(template: StoredBlock, end: Candidate, count: number): Promise<{ count: number; interval: bigint } | undefined> {
  const span = end.header.timestamp - template.block.header.timestamp;
  if (template.txs.length > 0 || span < BigInt(count) || span % BigInt(count) !== 0n) return undefined;
  const interval = span / BigInt(count);
  await readyKeccak();
  const run = new EmptyRun(template.block, count, interval);
  return equalsBytes(run.hashAt(count - 1), end.hash) ? { count, interval } : undefined;
}

const HEADER_FIELDS: Array<[string, string, 'bytes' | 'quantity']> = [
  ['parentHash', 'parentHash', 'bytes'],
  ['sha3Uncles', 'uncleHash', 'bytes'],
  ['miner', 'coinbase', 'bytes'],
  ['stateRoot', 'stateRoot', 'bytes'],
  ['transactionsRoot', 'transactionsTrie', 'bytes'],
  ['receiptsRoot', 'receiptTrie', 'bytes'],
  ['logsBloom', 'logsBloom', 'bytes'],
  ['difficulty', 'difficulty', 'quantity'],
  ['number', 'number', 'quantity'],
  ['gasLimit', 'gasLimit', 'quantity'],
  ['gasUsed', 'gasUsed', 'quantity'],
  ['timestamp', 'timestamp', 'quantity'],
  ['extraData', 'extraData', 'bytes'],
  ['mixHash', 'mixHash', 'bytes'],
  ['nonce', 'nonce', 'bytes'],
  ['baseFeePerGas', 'baseFeePerGas', 'quantity'],
  ['withdrawalsRoot', 'withdrawalsRoot', 'bytes'],
  ['blobGasUsed', 'blobGasUsed', 'quantity'],
  ['excessBlobGas', 'excessBlobGas', 'quantity'],
  ['parentBeaconBlockRoot', 'parentBeaconBlockRoot', 'bytes'],
  ['requestsHash', 'requestsHash', 'bytes'],
];

function headerOf(node: StateTarget, h: Json, where: string, fail: Fail): BlockHeader {
  const data: Record<string, unknown> = {};
  for (const [json, field, kind] of HEADER_FIELDS) {
    if (h[json] === undefined || h[json] === null) continue;
    data[field] = kind === 'bytes' ? bytesAt(h[json], `${where}.header.${json}`, fail) : quantityAt(h[json], `${where}.header.${json}`, fail);
  }
  try {
    const common = node.rules.at((data.number as bigint | undefined) ?? 0n, (data.timestamp as bigint | undefined) ?? 0n);
    return createBlockHeader(data, { common, skipConsensusFormatValidation: true });
  } catch (err) {
    return fail(`${where}.header is not a valid header for ${node.config.hardfork}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** A transaction of a block, and the sender it was sent as without a signature (impersonated), if so. */
function txOf(common: Common, t: unknown, where: string, ours: boolean, fail: Fail): { tx: TypedTransaction; impersonated?: Address } {
  const wrapped = objectAt(t, where, fail);
  const o = wrapped.transaction !== undefined ? objectAt(wrapped.transaction, `${where}.transaction`, fail) : wrapped;
  const sender = wrapped.impersonated_sender;
  const impersonated = sender === undefined || sender === null ? undefined : new Address(bytesAt(sender, `${where}.impersonated_sender`, fail, 20));
  const type = Number(quantityAt(o.type ?? '0x0', `${where}.type`, fail));
  const data: Record<string, unknown> = {
    type,
    nonce: o.nonce,
    gasLimit: o.gas,
    to: o.to ?? undefined,
    value: o.value,
    data: o.input ?? '0x',
    gasPrice: o.gasPrice,
    maxFeePerGas: o.maxFeePerGas,
    maxPriorityFeePerGas: o.maxPriorityFeePerGas,
    maxFeePerBlobGas: o.maxFeePerBlobGas,
    blobVersionedHashes: o.blobVersionedHashes,
    accessList: o.accessList,
    authorizationList: o.authorizationList,
    chainId: type === 0 ? undefined : o.chainId,
    v: type === 0 ? o.v : (o.yParity ?? o.v),
    r: o.r,
    s: o.s,
  };
  // Sent unsigned: this node wrote it without a signature; anvil with a zero one (a legacy
  // transaction keeps anvil's v, which its block's transaction root covers).
  if (impersonated && (ours || type !== 0)) {
    delete data.v;
    delete data.r;
    delete data.s;
  }
  for (const k of Object.keys(data)) if (data[k] === undefined) delete data[k];
  try {
    return { tx: createTx(data as never, { common, freeze: impersonated === undefined }), impersonated };
  } catch (err) {
    return fail(`${where} is not a valid transaction: ${(err as Error).message.split('\n')[0]}`);
  }
}

function decodeBlock(node: StateTarget, c: Candidate, infos: Map<string, TxEntry>, byPosition: Map<string, TxEntry>, ext: Extension | undefined, fail: Fail): StoredBlock {
  const { o, where, header } = c;
  const txsJson = o.transactions ?? [];
  if (!Array.isArray(txsJson)) return fail(`${where}.transactions must be an array`);
  const common = header.common;
  const parsed = txsJson.map((t, i) => txOf(common, t, `${where}.transactions[${i}]`, ext !== undefined, fail));
  const withdrawals = Array.isArray(o.withdrawals) ? o.withdrawals.map((w) => createWithdrawal(w as never)) : common.isActivatedEIP(4895) ? [] : undefined;
  let block: Block;
  try {
    block = new Block(header, parsed.map((p) => p.tx), [], withdrawals, { common, skipConsensusFormatValidation: true });
  } catch (err) {
    return fail(`${where} is not a valid block: ${(err as Error).message.split('\n')[0]}`);
  }
  const hash = block.hash();
  const stored: StoredBlock = { block, number: header.number, hash, hashHex: bytesToHex(hash), txs: [] };
  const pre = ext?.preStateRoots[`0x${header.number.toString(16)}`];
  if (pre !== undefined) stored.preStateRoot = bytesAt(pre, `nodeRpc.preStateRoots of block ${header.number}`, fail, 32);
  let logIndex = 0;
  parsed.forEach(({ tx: raw, impersonated }, index) => {
    const found = infos.get(`${bytesToHex(hash)}:${index}`);
    if (!found) {
      const there = byPosition.get(`${header.number}:${index}`);
      if (there) fail(`${where}: the block hashes to ${bytesToHex(hash)} here, not ${bytesToHex(there.blockHash)} (a header field this node's ${node.config.hardfork} does not know?)`);
      return fail(`${where}: transaction ${index} has no entry in "transactions"`);
    }
    const info = found.info;
    const txHash = bytesAt(info.transaction_hash, `${found.where}.info.transaction_hash`, fail, 32);
    const from = impersonated ?? new Address(bytesAt(info.from, `${found.where}.info.from`, fail, 20));
    let tx = raw;
    if (impersonated) tx = withRecordedSender(raw, impersonated, txHash);
    else if (!equalsBytes(raw.hash(), txHash)) fail(`${where}: transaction ${index} hashes to ${bytesToHex(raw.hash())}, not ${bytesToHex(txHash)}`);
    const hashHex = bytesToHex(txHash);
    const receipt = receiptOf(node, tx, header, found, logIndex, ext?.errors[hashHex], fail);
    const root = ext?.roots[hashHex];
    if (root !== undefined) receipt.root = bytesAt(root, `nodeRpc.roots.${hashHex}`, fail, 32);
    logIndex += receipt.logs.length;
    stored.txs.push({ tx, hash: txHash, hashHex, from, index, block: stored, receipt } satisfies MinedTx);
  });
  return stored;
}

function receiptOf(node: StateTarget, tx: TypedTransaction, header: BlockHeader, found: TxEntry, firstLogIndex: number, error: unknown, fail: Fail): Receipt {
  const { info, receipt: r, where } = found;
  const s = r.status;
  const status = s === '0x1' || s === true || s === 1 ? 1 : s === '0x0' || s === false || s === 0 ? 0 : fail(`${where}.receipt.status must be 0x0 or 0x1`);
  if (!Array.isArray(r.logs)) fail(`${where}.receipt.logs must be an array`);
  const logs: RawLog[] = (r.logs as unknown[]).map((l, i) => {
    const log = objectAt(l, `${where}.receipt.logs[${i}]`, fail);
    if (!Array.isArray(log.topics)) fail(`${where}.receipt.logs[${i}].topics must be an array`);
    return [
      bytesAt(log.address, `${where}.receipt.logs[${i}].address`, fail, 20),
      (log.topics as unknown[]).map((t, j) => bytesAt(t, `${where}.receipt.logs[${i}].topics[${j}]`, fail, 32)),
      bytesAt(log.data, `${where}.receipt.logs[${i}].data`, fail),
    ];
  });
  const created = info.contract_address;
  const receipt: Receipt = {
    status,
    gasUsed: u64At(info.gas_used, `${where}.info.gas_used`, fail),
    cumulativeGasUsed: quantityAt(r.cumulativeGasUsed, `${where}.receipt.cumulativeGasUsed`, fail),
    effectiveGasPrice: effectiveGasPrice(tx, header.baseFeePerGas),
    contractAddress: created === null || created === undefined ? undefined : new Address(bytesAt(created, `${where}.info.contract_address`, fail, 20)),
    logs,
    firstLogIndex,
    bloom: bytesAt(r.logsBloom, `${where}.receipt.logsBloom`, fail, 256),
    returnValue: bytesAt(info.out ?? '0x', `${where}.info.out`, fail),
  };
  if (typeof error === 'string') receipt.error = error;
  else if (status === 0) receipt.error = errorOfExit(info.exit);
  if (tx.type === 3) {
    receipt.blobGasUsed = header.common.param('blobGasPerBlob') * BigInt((tx as TypedTransaction & { numBlobs(): number }).numBlobs());
    receipt.blobGasPrice = header.getBlobGasPrice();
  }
  return receipt;
}
