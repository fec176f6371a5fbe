/** eth_* methods: thin adapters from validated params to the node, and from chain objects to JSON. */
import { bytesToHex, createZeroAddress, type Address } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Calls, ChainReads, Fees, PoolReads, Submit } from '../../chain/api.js';
import type { ForkConfig } from '../../chain/forkConfig.js';
import { sendRawTransactionSync, sendTransactionSync } from '../../chain/pool/sendSync.js';
import { signMessage, signTypedData } from '../../chain/wallet/signing.js';
import { parseTypedData, type TypedData } from '../../chain/wallet/typedData.js';
import { isPending, LATEST, PENDING as PENDING_BLOCK, type BlockRef, type StoredBlock } from '../../chain/core/types.js';
import { blockJson, pendingBlockJson } from '../../format/block.js';
import { addr, hex, qty } from '../../format/hex.js';
import { formatReceipt, receiptJson } from '../../format/receipt.js';
import { formatMinedTx, formatTx, minedTxJson, PENDING } from '../../format/tx.js';
import { address, blockId, blockNumberOrTag, bool, count, data, hash32, namingArgument, optional, uint, type Codec } from '../codecs.js';
import { invalidParams } from '../errors.js';
import { callRequest, stateOverrides, txRequest } from '../params.js';
import { method, type MethodDef } from '../registry.js';

const latest = optional(blockId, LATEST);

/** EIP-712 typed data, as a JSON object or a string holding one. */
const typedData: Codec<TypedData> = { type: 'typed data', parse: (value, where) => namingArgument(where, () => parseTypedData(value)) };
const ZERO_ADDRESS = createZeroAddress();

/** A storage key as geth takes it: hex of at most 32 bytes, leading zeros allowed ("0x0", "0x02", or a full 32-byte slot). */
const storageKey: Codec<bigint> = {
  type: 'storage key',
  parse(value, where) {
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) {
      throw invalidParams(`invalid argument ${where}: expected a hex storage key of at most 32 bytes, got ${JSON.stringify(value)}`);
    }
    return BigInt(value);
  },
};

/** eth_getProof's keys: each as given is kept, since geth echoes a 32-byte key in full and any shorter one as a QUANTITY. */
const proofKeys: Codec<Array<{ slot: bigint; full: boolean }>> = {
  type: 'storage keys',
  parse(value, where) {
    if (!Array.isArray(value)) throw invalidParams(`invalid argument ${where}: expected an array of storage keys, got ${value === null ? 'null' : typeof value}`);
    return value.map((k, i) => ({ slot: storageKey.parse(k, `${where}[${i}]`), full: (k as string).length === 66 }));
  },
};

/** Most slots one eth_getStorageValues may read (geth's cap). */
const MAX_STORAGE_VALUES = 1024;

/** eth_getStorageValues' requests: `{ address: [slot, …] }`, addresses kept as given for the answer. */
const storageRequests: Codec<Array<{ key: string; address: Address; slots: bigint[] }>> = {
  type: 'storage requests',
  parse(value, where) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidParams(`invalid argument ${where}: expected an object mapping addresses to lists of storage keys`);
    // geth's answer to no address at all.
    if (Object.keys(value).length === 0) throw invalidParams('empty request');
    let total = 0;
    return Object.entries(value as Record<string, unknown>).map(([key, slots]) => {
      const a = address.parse(key, `${where} key ${JSON.stringify(key)}`);
      if (!Array.isArray(slots)) throw invalidParams(`invalid argument ${where}.${key}: expected a list of storage keys`);
      total += slots.length;
      if (total > MAX_STORAGE_VALUES) throw invalidParams(`invalid argument ${where}: too many slots (max ${MAX_STORAGE_VALUES})`);
      return { key, address: a, slots: slots.map((k, i) => storageKey.parse(k, `${where}.${key}[${i}]`)) };
    });
  },
};

/** Block count for eth_feeHistory: QUANTITY or a plain JSON number, as geth accepts. */
const blockCount: Codec<number> = {
  type: 'block count',
  parse(value, where) {
    const n = typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : uint.parse(value, where);
    if (n > 1024) throw invalidParams(`invalid argument ${where}: block count ${n} exceeds the maximum of 1024`);
    return n;
  },
};

const percentiles: Codec<number[] | undefined> = {
  type: 'reward percentiles',
  optional: true,
  parse(value, where) {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || value.length > 100) throw invalidParams(`invalid argument ${where}: expected an array of at most 100 percentiles`);
    let prev = -1;
    return value.map((p, i) => {
      if (typeof p !== 'number' || p < 0 || p > 100) throw invalidParams(`invalid reward percentile ${JSON.stringify(p)} at ${where}[${i}]: must be a number in [0, 100]`);
      if (p < prev) throw invalidParams(`invalid reward percentile ${p} at ${where}[${i}]: percentiles must be non-decreasing`);
      prev = p;
      return p;
    });
  },
};

export function ethMethods(node: ChainReads & Fees & PoolReads & Calls & Submit): MethodDef[] {
  const blockOrNull = (b: StoredBlock | undefined, full: boolean) => (b ? blockJson(b, full) : null);
  const txAt = (b: StoredBlock | undefined, index: number) => {
    const t = b?.txs[index];
    return t ? formatMinedTx(t) : null;
  };
  const byHash = (h: Uint8Array): BlockRef => ({ kind: 'hash', hash: h, requireCanonical: false });
  /** The block a block method reads: at `pending`, the pending block (the one definition calls at `pending` share). */
  const blockAt = (ref: BlockRef): StoredBlock | undefined | Promise<StoredBlock> => (isPending(ref) ? node.pendingBlock() : node.block(ref));

  return [
    // ------------------------------------------------------------ chain info
    method('eth_chainId', [], () => qty(node.config.chainId)),
    method('eth_blockNumber', [], () => qty(node.headNumber())),
    method('eth_syncing', [], () => false),
    /**
     * What history this node serves (for RPC routers): everything from its first block on (the
     * fork block on a fork, whose older history is the upstream's), kept for good (no deleteStrategy).
     */
    method('eth_capabilities', [], () => {
      const head = node.head;
      const all = { disabled: false, oldestBlock: qty(node.fork?.number ?? 0n) };
      return { head: { number: qty(head.number), hash: head.hashHex }, state: all, tx: all, logs: all, receipts: all, blocks: all, stateproofs: all };
    }),
    method('eth_mining', [], () => true),
    method('eth_hashrate', [], () => '0x0'),
    /** The coinbase the next block gets (anvil_setCoinbase changes it). */
    method('eth_coinbase', [], () => addr(node.coinbase)),
    method('eth_accounts', [], () => node.accounts.map((a) => addr(a.address))),
    method('eth_requestAccounts', [], () => node.accounts.map((a) => addr(a.address))),
    method('eth_protocolVersion', [], () => '0x41'),
    /** EIP-7910: the fork the head runs, the next scheduled one and the last one (null when none is to come). */
    method('eth_config', [], () => {
      const show = (c: ForkConfig | null) => c && { activationTime: c.activationTime, blobSchedule: c.blobSchedule, chainId: qty(c.chainId), forkId: hex(c.forkId), precompiles: c.precompiles, systemContracts: c.systemContracts };
      const { current, next, last } = node.ethConfig();
      return { current: show(current), next: show(next), last: show(last) };
    }),

    // ------------------------------------------------------------ fees
    /** Next base fee plus the suggested tip, never below the gas price floor (7 gwei by default). */
    method('eth_gasPrice', [], () => qty(node.gasPrice())),
    method('eth_maxPriorityFeePerGas', [], () => qty(node.maxPriorityFeePerGas())),
    method('eth_blobBaseFee', [], () => qty(node.blobBaseFee())),
    /** The next block's base fee (null before London, as geth answers). */
    method('eth_baseFee', [], () => {
      const fee = node.pendingBaseFee();
      return fee === undefined ? null : qty(fee);
    }),
    /** Ending at `pending`, the pending block is the newest block (geth's oracle). */
    method('eth_feeHistory', [blockCount, blockNumberOrTag, percentiles], async (count, newest, pct) => {
      const h = await node.feeHistory(count, newest, pct);
      const out: Record<string, unknown> = {
        oldestBlock: qty(h.oldestBlock),
        baseFeePerGas: h.baseFeePerGas.map(qty),
        gasUsedRatio: h.gasUsedRatio,
        baseFeePerBlobGas: h.baseFeePerBlobGas.map(qty),
        blobGasUsedRatio: h.blobGasUsedRatio,
      };
      if (h.reward) out.reward = h.reward.map((r) => r.map(qty));
      return out;
    }),

    // ------------------------------------------------------------ state
    method('eth_getBalance', [address, latest], async (a, b) => qty((await node.getAccount(a, b)).balance)),
    method('eth_getTransactionCount', [address, latest], async (a, b) => qty(await node.getNonce(a, b))),
    method('eth_getCode', [address, latest], async (a, b) => hex(await node.getCode(a, b))),
    method('eth_getStorageAt', [address, storageKey, latest], async (a, slot, b) => {
      if (slot >= 1n << 256n) throw invalidParams('invalid argument 1: storage slot exceeds 32 bytes');
      return hex(await node.getStorageAt(a, slot, b));
    }),
    /** Balance, nonce and code in one call (anvil; forge and cast ask this first). */
    method('eth_getAccountInfo', [address, latest], async (a, b) => {
      const { account, code } = await node.getAccountAndCode(a, b);
      return { balance: qty(account.balance), nonce: qty(account.nonce), code: hex(code) };
    }),
    /** The account's trie fields (geth): nonce, balance, storage root and code hash. */
    method('eth_getAccount', [address, latest], async (a, b) => {
      const { account } = await node.getAccountAndCode(a, b);
      return { nonce: qty(account.nonce), balance: qty(account.balance), storageRoot: hex(account.storageRoot), codeHash: hex(account.codeHash) };
    }),
    /** Many slots of many accounts at one block: `{ address: [values] }`, 32-byte values. */
    method('eth_getStorageValues', [storageRequests, latest], async (requests, b) => {
      const out: Record<string, string[]> = {};
      for (const r of requests) out[r.key] = await Promise.all(r.slots.map(async (slot) => hex(await node.getStorageAt(r.address, slot, b))));
      return out;
    }),
    /** EIP-1186 account and storage proof against the block's state root. */
    method('eth_getProof', [address, proofKeys, latest], async (a, keys, b) => {
      const p = await node.getProof(a, keys.map((k) => k.slot), b);
      return {
        address: p.address,
        accountProof: p.accountProof,
        balance: p.balance,
        codeHash: p.codeHash,
        nonce: p.nonce,
        storageHash: p.storageHash,
        // Values are QUANTITYs (geth, anvil); a key is echoed in full when given in full, else as a QUANTITY.
        storageProof: p.storageProof.map((s, i) => ({ key: keys[i].full ? s.key : qty(keys[i].slot), value: qty(s.value === '0x' ? 0n : BigInt(s.value)), proof: s.proof })),
      };
    }),

    // ------------------------------------------------------------ blocks
    method('eth_getBlockByNumber', [blockNumberOrTag, optional(bool, false)], async (b, full) => (isPending(b) ? pendingBlockJson(await node.pendingBlock(), full) : blockOrNull(node.block(b), full))),
    method('eth_getBlockByHash', [hash32, optional(bool, false)], (h, full) => blockOrNull(node.block(byHash(h)), full)),
    method('eth_getBlockTransactionCountByNumber', [blockNumberOrTag], async (b) => {
      const blk = await blockAt(b);
      return blk ? qty(blk.txs.length) : null;
    }),
    method('eth_getBlockTransactionCountByHash', [hash32], (h) => {
      const blk = node.block(byHash(h));
      return blk ? qty(blk.txs.length) : null;
    }),
    method('eth_getUncleCountByBlockNumber', [blockNumberOrTag], async (b) => ((await blockAt(b)) ? '0x0' : null)),
    method('eth_getUncleCountByBlockHash', [hash32], (h) => (node.block(byHash(h)) ? '0x0' : null)),
    method('eth_getUncleByBlockNumberAndIndex', [blockNumberOrTag, uint], () => null),
    method('eth_getUncleByBlockHashAndIndex', [hash32, uint], () => null),
    method('eth_getBlockReceipts', [blockId], async (b) => {
      const blk = await blockAt(b);
      return blk ? blk.txs.map(formatReceipt) : null;
    }),

    // ------------------------------------------------------------ transactions
    /** A mined transaction, or a pooled one with null block fields (as geth answers). */
    method('eth_getTransactionByHash', [hash32], (h) => {
      const hashHex = bytesToHex(h);
      const t = node.tx(hashHex);
      if (t) return minedTxJson(t);
      const p = node.pooledTx(hashHex);
      return p ? formatTx(p.tx, p.from, p.hashHex, PENDING) : null;
    }),
    /** geth's: the pool's executable transactions sent from the node's accounts (eth_accounts), in sender and nonce order. */
    method('eth_pendingTransactions', [], async () => {
      const mine = new Set<string>(node.accounts.map((a) => a.address.toString()));
      const out: object[] = [];
      for (const [sender, txs] of (await node.poolContent()).pending) if (mine.has(sender)) for (const p of txs) out.push(formatTx(p.tx, p.from, p.hashHex, PENDING));
      return out;
    }),
    method('eth_getTransactionByBlockHashAndIndex', [hash32, uint], (h, i) => txAt(node.block(byHash(h)), i)),
    method('eth_getTransactionByBlockNumberAndIndex', [blockNumberOrTag, uint], async (b, i) => txAt(await blockAt(b), i)),
    method('eth_getRawTransactionByHash', [hash32], (h) => {
      const t = node.tx(bytesToHex(h)) ?? node.pooledTx(bytesToHex(h));
      return t ? hex(t.tx.serialize()) : null;
    }),
    method('eth_getTransactionReceipt', [hash32], (h) => {
      const t = node.tx(bytesToHex(h));
      return t ? receiptJson(t) : null;
    }),
    /** Accepts a signed transaction; with automine it answers once the block exists. */
    method('eth_sendRawTransaction', [data], async (raw) => hex(await node.intake.sendRawTransaction(raw))),
    /** Sends from a dev account: fills nonce, fees and gas (by estimate), signs, submits. */
    method('eth_sendTransaction', [txRequest], async (req) => {
      if (!req.from) throw invalidParams('invalid argument 0: missing "from"');
      return hex(await node.intake.sendTransaction(req));
    }),
    /** EIP-7966: submit and answer the receipt once mined; optional timeout in ms (default and most 30 s; past it error 4, data the hash). */
    method('eth_sendRawTransactionSync', [data, optional(count)], async (raw, ms) => formatReceipt(await sendRawTransactionSync(node, raw, ms))),
    /** eth_sendTransaction, answering the receipt once mined, as eth_sendRawTransactionSync. */
    method('eth_sendTransactionSync', [txRequest, optional(count)], async (req, ms) => {
      if (!req.from) throw invalidParams('invalid argument 0: missing "from"');
      return formatReceipt(await sendTransactionSync(node, req, ms));
    }),
    /** The request with nonce, fees, gas and chain id filled in, unsigned: `{ raw, tx }` (geth, anvil). */
    method('eth_fillTransaction', [txRequest], async (req) => {
      const tx = await node.intake.fillTransaction(req);
      const raw = tx.serialize();
      // Unsigned, so its hash is that of the encoding with an empty signature (anvil's answer).
      return { raw: hex(raw), tx: formatTx(tx, req.from ?? ZERO_ADDRESS, hex(keccak_256(raw)), PENDING) };
    }),
    method('eth_signTransaction', [txRequest], async (req) => {
      if (!req.from) throw invalidParams('invalid argument 0: missing "from"');
      if (req.blobs !== undefined) throw invalidParams('invalid argument 0: eth_signTransaction takes no blobs (send them with eth_sendTransaction, or sign the transaction with its sidecar)');
      return hex((await node.intake.signTransaction(req)).serialize());
    }),

    // ------------------------------------------------------------ signing
    /** EIP-191 personal message signature: eth_sign(address, message). */
    method('eth_sign', [address, data], (a, msg) => hex(signMessage(msg, node.intake.keyOf(a).privateKey))),
    /** Same as eth_sign with the parameters swapped: personal_sign(message, address). */
    method('personal_sign', [data, address], (msg, a) => hex(signMessage(msg, node.intake.keyOf(a).privateKey))),
    /** EIP-712 signature of a typed-data document (object or JSON string). */
    method(
      'eth_signTypedData_v4',
      [address, typedData],
      (a, doc) => hex(signTypedData(doc, node.intake.keyOf(a).privateKey)),
      { aliases: ['eth_signTypedData'] },
    ),

    // ------------------------------------------------------------ execution
    /** Executes without creating a transaction; third param: geth state overrides. */
    method('eth_call', [callRequest, latest, stateOverrides], async (req, b, o) => hex(await node.call(req, b, o))),
    /** Smallest gas limit that succeeds; without a block, in the pending block (as anvil and the hardhat network). */
    method('eth_estimateGas', [callRequest, optional(blockId, PENDING_BLOCK), stateOverrides], async (req, b, o) => qty(await node.estimateGas(req, b, o))),
    method('eth_createAccessList', [callRequest, latest], async (req, b) => {
      const r = await node.createAccessList(req, b);
      const out: Record<string, unknown> = { accessList: r.accessList, gasUsed: qty(r.gasUsed) };
      if (r.error) out.error = r.error;
      return out;
    }),
  ];
}
