/**
 * Block import (`--import <chain.rlp>`, as geth's `import`): RLP-encoded blocks one after another,
 * each executed on the head under its fork's rules and checked against its header — parent hash,
 * transactions root, ommers hash, withdrawals root, base fee, blob gas used, gas used, logs bloom,
 * receipts root, requests hash and state root. The first block that does not match stops the
 * import with one line naming the block and the field. Proof of work is not checked (hive's
 * rpc-compat does the same); blob transactions carry only their versioned hashes (blocks hold no
 * sidecars), which is all executing them needs.
 */
import type { EventEmitter } from 'node:events';
import { createBlockFromBytesArray, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToHex, equalsBytes } from '@ethereumjs/util';
import { runBlock, type VM } from '@ethereumjs/vm';
import type { MinedTx, StoredBlock } from '../core/types.js';
import type { Lock } from '../core/lock.js';
import { receiptOf } from '../exec/receipt.js';
import type { BlockStore } from '../head/store.js';
import type { NodeEvents } from '../pool/events.js';

/** What an import works on: the live VM and its state, the blocks, the lock. */
export interface ImportHost {
  readonly events: EventEmitter<NodeEvents>;
  readonly store: BlockStore;
  readonly lock: Lock;
  /** The next blocks' settings: after an import they take the head's gas limit. */
  readonly clock: { setGasLimit(gas: bigint): void };
  /** The VM that runs a block at `number` and `timestamp` (its rules), over the live state. */
  vmOfBlock(number: bigint, timestamp: bigint): VM;
  /** The chain's rules: `at(number, timestamp)` is the Common a block at that number and time is read with. */
  readonly rules: { at(number: bigint, timestamp: bigint): Common };
}

/** A block of the import that does not match what executing it gives. */
export class ImportError extends Error {}

/** Header fields are at these positions of a header's RLP list (the yellow paper's order). */
const NUMBER = 8;
const TIMESTAMP = 11;

/** The blocks of an RLP file: each one's values, in the file's order. */
export function splitBlocks(bytes: Uint8Array): Uint8Array[][] {
  const blocks: Uint8Array[][] = [];
  let rest = bytes;
  while (rest.length > 0) {
    let decoded;
    try {
      decoded = RLP.decode(rest, true);
    } catch (err) {
      throw new ImportError(`block ${blocks.length + 1} of the file: not RLP (${(err as Error).message})`);
    }
    const values = decoded.data as unknown;
    if (!Array.isArray(values) || !Array.isArray(values[0])) throw new ImportError(`block ${blocks.length + 1} of the file: not a block (an RLP list of a header and its bodies)`);
    blocks.push(values as Uint8Array[][] as never);
    rest = decoded.remainder;
  }
  return blocks;
}

/** Import every block of `bytes` on top of the head; the next blocks then take the head's gas limit. Returns how many blocks were imported. */
export async function importBlocks(n: ImportHost, bytes: Uint8Array): Promise<number> {
  const all = splitBlocks(bytes);
  await n.lock.run(async () => {
    for (const values of all) {
      const header = values[0] as unknown as Uint8Array[];
      const number = bytesToBigInt(header[NUMBER] ?? new Uint8Array());
      const timestamp = bytesToBigInt(header[TIMESTAMP] ?? new Uint8Array());
      let block: Block;
      try {
        block = createBlockFromBytesArray(values as never, { common: n.rules.at(number, timestamp), skipConsensusFormatValidation: true });
      } catch (err) {
        throw new ImportError(`block ${number}: cannot be read under its fork's rules: ${(err as Error).message}`);
      }
      await importOne(n, block);
    }
    if (all.length > 0) n.clock.setGasLimit(n.store.head.block.header.gasLimit);
  });
  return all.length;
}

async function importOne(n: ImportHost, block: Block): Promise<void> {
  const h = block.header;
  const name = `block ${h.number} (${bytesToHex(block.hash())})`;
  const parent = n.store.head;
  const mismatch = (field: string, got: unknown, want: unknown): ImportError => new ImportError(`${name}: ${field} ${show(want)} in its header, ${show(got)} when executed`);
  if (h.number !== parent.number + 1n) throw new ImportError(`${name}: does not follow the head, block ${parent.number}`);
  if (!equalsBytes(h.parentHash, parent.hash)) throw mismatch('parentHash', parent.hash, h.parentHash);
  if (!(await block.transactionsTrieIsValid())) throw mismatch('transactionsRoot', await block.genTxTrie(), h.transactionsTrie);
  if (!block.uncleHashIsValid()) throw new ImportError(`${name}: sha3Uncles does not match its ommers`);
  if (block.withdrawals !== undefined && !(await block.withdrawalsTrieIsValid())) throw new ImportError(`${name}: withdrawalsRoot does not match its withdrawals`);
  const common = block.common;
  if (common.isActivatedEIP(1559) && parent.block.header.baseFeePerGas !== undefined) {
    const want = parent.block.header.calcNextBaseFee();
    if (h.baseFeePerGas !== want) throw mismatch('baseFeePerGas', want, h.baseFeePerGas);
  }
  const vm = n.vmOfBlock(h.number, h.timestamp);
  const result = await runBlock(vm, { block, generate: true, skipBlockValidation: true, skipHardForkValidation: true, clearCache: false });
  const checks: Array<[string, unknown, unknown]> = [
    ['gasUsed', result.gasUsed, h.gasUsed],
    ['logsBloom', result.logsBloom, h.logsBloom],
    ['receiptsRoot', result.receiptsRoot, h.receiptTrie],
    ['stateRoot', result.stateRoot, h.stateRoot],
  ];
  if (common.isActivatedEIP(4844)) {
    const blobGas = result.results.reduce((sum: bigint, r) => sum + (r.blobGasUsed ?? 0n), 0n);
    checks.unshift(['blobGasUsed', blobGas, h.blobGasUsed]);
  }
  if (common.isActivatedEIP(7685) && result.requestsHash !== undefined) checks.push(['requestsHash', result.requestsHash, h.requestsHash]);
  for (const [field, got, want] of checks) {
    if (!same(got, want)) throw mismatch(field, got, want);
  }
  const hash = block.hash();
  const stored: StoredBlock = { block, number: h.number, hash, hashHex: bytesToHex(hash), txs: [] };
  const blobGasPrice = common.isActivatedEIP(4844) ? h.getBlobGasPrice() : undefined;
  let logIndex = 0;
  block.transactions.forEach((tx, index) => {
    const run = result.results[index];
    const receipt = receiptOf(tx, run, h.baseFeePerGas, result.receipts[index].cumulativeBlockGasUsed, logIndex, blobGasPrice);
    logIndex += receipt.logs.length;
    const txHash = tx.hash();
    const mined: MinedTx = { tx, hash: txHash, hashHex: bytesToHex(txHash), from: tx.getSenderAddress(), index, block: stored, receipt };
    stored.txs.push(mined);
  });
  n.store.add(stored);
  n.events.emit('block', stored);
}

function same(a: unknown, b: unknown): boolean {
  return a instanceof Uint8Array && b instanceof Uint8Array ? equalsBytes(a, b) : a === b;
}

function show(v: unknown): string {
  if (v instanceof Uint8Array) return v.length > 40 ? `${bytesToHex(v.subarray(0, 16))}…` : bytesToHex(v);
  return String(v);
}
