/**
 * Reading this node's first state format (version 1): accounts, blocks as their RLP, runs of
 * empty blocks as their recipe, each transaction's sender and receipt, and the pool. The node now
 * writes anvil's format (see stateDump.ts) and still reads this one.
 */
import { createBlockFromRLP } from '@ethereumjs/block';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { RLP } from '@ethereumjs/rlp';
import { Address, bytesToBigInt, bytesToHex, equalsBytes } from '@ethereumjs/util';
import { parsePool } from '../pool/poolFile.js';
import { withRecordedSender } from '../exec/request.js';
import type { RawLog, Receipt, StoredBlock } from '../core/types.js';
import { bytesAt, objectAt, parseAccounts, quantityAt, type ParsedChainEntry, type ParsedState, type StateTarget } from './stateJson.js';

/** The first format's version. */
export const STATE_VERSION = 1;

/** Check and decode a document in this node's first format (a top-level "version": 1). */
export function parseLegacyState(node: StateTarget, d: Record<string, unknown>, fail: (m: string) => never): ParsedState {
  if (d.version !== STATE_VERSION) return fail(`unsupported state version ${JSON.stringify(d.version)}: this node reads version ${STATE_VERSION} and anvil's format`);
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
  node: StateTarget,
  o: Record<string, unknown>,
  where: string,
  txInfo: Map<string, TxInfo>,
  receipts: Map<string, Record<string, unknown>>,
  fail: (m: string) => never,
): StoredBlock {
  const rlp = bytesAt(o.rlp, `${where}.rlp`, fail);
  let block;
  try {
    // Each block under the rules of its own number and time (its header's fields), as the current format reads them.
    const header = (RLP.decode(rlp) as unknown as Uint8Array[][])[0];
    if (!Array.isArray(header) || header.length < 12) throw new Error('its header is not a list of header fields');
    const common = node.rules.at(bytesToBigInt(header[8]), bytesToBigInt(header[11]));
    block = createBlockFromRLP(rlp, { common, skipConsensusFormatValidation: true });
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
      tx = withRecordedSender(createTxFromRLP(raw.serialize(), { common: block.common, freeze: false }), info.from, info.hash);
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
