/**
 * Otterscan's API (ots_*, level 8) and erigon_getHeaderByNumber, so the Otterscan explorer can be
 * pointed at the node as at anvil or erigon. Shapes follow Otterscan's documentation and anvil's
 * answers. Address searches walk the chain's real blocks (empty runs are skipped) and trace the
 * contract transactions among them once each, to find internal calls and creations.
 */
import { bytesToHex, type Address } from '@ethereumjs/util';
import { ChainError } from '../../chain/core/errors.js';
import type { ChainReads, Tracing } from '../../chain/api.js';
import { LATEST, type MinedTx, type StoredBlock } from '../../chain/core/types.js';
import { formatBlock } from '../../format/block.js';
import { qty } from '../../format/hex.js';
import { formatReceipt } from '../../format/receipt.js';
import { formatMinedTx } from '../../format/tx.js';
import { DEFAULT_TIMEOUT_MS, type TraceConfig } from '../../trace/index.js';
import { address, blockId, count, hash32, optional, type Codec } from '../codecs.js';
import { method, type MethodDef } from '../registry.js';
import { traceMinedTx } from '../../trace/positions.js';

const CALLS: TraceConfig = { tracer: { name: 'callTracer', options: { onlyTopCall: false, withLog: false } }, timeoutMs: DEFAULT_TIMEOUT_MS };

interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  input: string;
  output?: string;
  error?: string;
  calls?: CallFrame[];
}

/** Otterscan's operation kinds. */
const OP_KIND: Record<string, number> = { CALL: 0, SELFDESTRUCT: 1, CREATE: 2, CREATE2: 3 };

/** A block number as Otterscan sends it: a JSON number (or a QUANTITY). */
const blockNumber: Codec<bigint> = { type: 'block number', parse: (v, where) => BigInt(count.parse(v, where)) };

function walk(frame: CallFrame, depth: number, visit: (f: CallFrame, depth: number) => void): void {
  visit(frame, depth);
  for (const c of frame.calls ?? []) walk(c, depth + 1, visit);
}

export function otsMethods(node: ChainReads & Tracing): MethodDef[] {
  /** Call trees of mined transactions, computed once each. */
  const trees = new WeakMap<MinedTx, Promise<CallFrame>>();
  const tree = (t: MinedTx): Promise<CallFrame> => {
    let p = trees.get(t);
    if (!p) {
      p = traceMinedTx(node, t, CALLS) as Promise<CallFrame>;
      trees.set(t, p);
    }
    return p;
  };
  const mined = (hash: Uint8Array): MinedTx => {
    const t = node.tx(bytesToHex(hash));
    if (!t) throw new ChainError('transaction not found');
    return t;
  };
  /** Whether `t` involves `a`: as sender, recipient, created contract, or any frame of its call tree. */
  const touches = async (t: MinedTx, a: string): Promise<boolean> => {
    if (t.from.toString() === a || t.tx.to?.toString() === a || t.receipt.contractAddress?.toString() === a) return true;
    // Plain transfers run no code: nothing inside them to find.
    if (t.tx.data.length === 0) return false;
    let hit = false;
    walk(await tree(t), 0, (f) => {
      if (f.from === a || f.to === a) hit = true;
    });
    return hit;
  };
  const searchResult = (found: MinedTx[], firstPage: boolean, lastPage: boolean) => ({
    txs: found.map(formatMinedTx),
    receipts: found.map((t) => ({ ...formatReceipt(t), timestamp: qty(t.block.block.header.timestamp) })),
    firstPage,
    lastPage,
  });
  /** Blocks holding transactions, newest first, from `hi` down to `lo`. */
  const blocksDown = (lo: bigint, hi: bigint): StoredBlock[] => node.realBlocks(lo, hi).filter((b) => b.txs.length > 0).reverse();
  /**
   * A block as Otterscan reads it: anvil's and Erigon's shape, `totalDifficulty` included (Otterscan's
   * block page parses it as a number and fails without it), though eth_getBlockBy* no longer carry it.
   */
  const otsBlock = (b: StoredBlock) => ({ ...formatBlock(b, false), totalDifficulty: '0x0' }) as Record<string, unknown>;
  const details = (b: StoredBlock) => {
    const { transactions, ...block } = otsBlock(b);
    void transactions;
    return { ...block, transactionCount: b.txs.length };
  };

  return [
    method('ots_getApiLevel', [], () => 8),
    method('ots_hasCode', [address, optional(blockId, LATEST)], async (a, b) => (await node.getCode(a, b)).length > 0),
    /** Value transfers, self-destructs and creations inside a transaction (the top-level transfer included, as anvil). */
    method('ots_getInternalOperations', [hash32], async (hash) => {
      const ops: Array<{ type: number; from: string; to: string; value: string }> = [];
      walk(await tree(mined(hash)), 0, (f) => {
        const kind = OP_KIND[f.type];
        if (kind === undefined || f.error !== undefined || f.to === undefined) return;
        if (kind === 0 && BigInt(f.value ?? '0x0') === 0n) return;
        ops.push({ type: kind, from: f.from, to: f.to, value: f.value ?? '0x0' });
      });
      return ops;
    }),
    /** The revert data of a failed transaction, `0x` otherwise. */
    method('ots_getTransactionError', [hash32], (hash) => {
      const r = mined(hash).receipt;
      return r.status === 0 ? bytesToHex(r.returnValue) : '0x';
    }),
    /** Every frame of a transaction in order: type, depth, from, to, value, input, output. */
    method('ots_traceTransaction', [hash32], async (hash) => {
      const out: object[] = [];
      walk(await tree(mined(hash)), 0, (f, depth) => {
        out.push({ type: f.type, depth, from: f.from, to: f.to ?? null, value: f.type === 'STATICCALL' ? null : (f.value ?? '0x0'), input: f.input, output: f.output ?? '0x' });
      });
      return out;
    }),
    /** A block without its transactions, their count, the issuance (none after the merge) and the fees paid. */
    method('ots_getBlockDetails', [blockNumber], (n) => {
      const b = node.block({ kind: 'number', number: n });
      return b ? blockDetails(b) : null;
    }),
    method('ots_getBlockDetailsByHash', [hash32], (h) => {
      const b = node.block({ kind: 'hash', hash: h, requireCanonical: false });
      return b ? blockDetails(b) : null;
    }),
    /** One page of a block's transactions with their receipts. */
    method('ots_getBlockTransactions', [blockNumber, count, count], (n, page, size) => {
      const b = node.requireBlock({ kind: 'number', number: n });
      const txs = b.txs.slice(page * size, page * size + size);
      return { fullblock: { ...details(b), transactions: txs.map(formatMinedTx) }, receipts: txs.map(formatReceipt) };
    }),
    /** Transactions involving an address before block `n` (0: from the head), newest first, whole blocks at a time. */
    method('ots_searchTransactionsBefore', [address, blockNumber, count], async (a, n, size) => {
      const who = a.toString();
      const top = n === 0n || n > node.headNumber() + 1n ? node.headNumber() : n - 1n;
      const found: MinedTx[] = [];
      let last = true;
      for (const b of blocksDown(0n, top)) {
        if (found.length >= size) {
          last = false;
          break;
        }
        for (const t of [...b.txs].reverse()) if (await touches(t, who)) found.push(t);
      }
      return searchResult(found, n === 0n, last);
    }),
    /** Transactions involving an address after block `n`, oldest first found, answered newest first. */
    method('ots_searchTransactionsAfter', [address, blockNumber, count], async (a, n, size) => {
      const who = a.toString();
      const found: MinedTx[] = [];
      let first = true;
      for (const b of node.realBlocks(n + 1n, node.headNumber())) {
        if (b.txs.length === 0) continue;
        if (found.length >= size) {
          first = false;
          break;
        }
        for (const t of b.txs) if (await touches(t, who)) found.push(t);
      }
      return searchResult(found.reverse(), first, n === 0n);
    }),
    /** The hash of the transaction `sender` sent with `nonce`, or null. */
    method('ots_getTransactionBySenderAndNonce', [address, count], async (a, nonce) => {
      if (BigInt(nonce) >= (await node.getNonce(a, LATEST))) return null;
      for (const b of blocksDown(0n, node.headNumber())) {
        for (const t of b.txs) if (t.from.equals(a) && t.tx.nonce === BigInt(nonce)) return t.hashHex;
      }
      return null;
    }),
    /** Who deployed a contract, and in which transaction (null for an address without code). */
    method('ots_getContractCreator', [address], async (a) => {
      if ((await node.getCode(a, LATEST)).length === 0) return null;
      return findCreator(a);
    }),
    /** A block header by number (Otterscan reads headers through it). */
    method('erigon_getHeaderByNumber', [blockNumber], (n) => {
      const b = node.block({ kind: 'number', number: n });
      return b ? otsBlock(b) : null;
    }),
  ];

  function blockDetails(b: StoredBlock) {
    const fees = b.txs.reduce((sum, t) => sum + t.receipt.gasUsed * t.receipt.effectiveGasPrice, 0n);
    return { block: details(b), issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' }, totalFees: qty(fees) };
  }

  async function findCreator(a: Address): Promise<{ hash: string; creator: string } | null> {
    const who = a.toString();
    for (const b of blocksDown(0n, node.headNumber())) {
      for (const t of b.txs) {
        if (t.receipt.contractAddress?.toString() === who) return { hash: t.hashHex, creator: t.from.toString() };
        if (t.tx.data.length === 0 || t.receipt.status === 0) continue;
        let creator: string | undefined;
        walk(await tree(t), 0, (f) => {
          if ((f.type === 'CREATE' || f.type === 'CREATE2') && f.to === who && f.error === undefined) creator ??= f.from;
        });
        if (creator !== undefined) return { hash: t.hashHex, creator };
      }
    }
    return null;
  }
}
