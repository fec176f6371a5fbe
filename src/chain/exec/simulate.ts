/**
 * eth_simulateV1: a sequence of blocks built on a private copy of the state at a base block, each
 * with optional block and state overrides and a list of calls that see each other's effects.
 * Nothing reaches the chain. With `validation` the calls are checked as transactions (nonce,
 * balance, fees, block gas); without, they run as eth_call runs them. With `traceTransfers`, every
 * ether transfer shows as an ERC-20 `Transfer` log of the address 0xeeee…eeee.
 */
import { Block, createBlock, createBlockHeader, genTransactionsTrieRoot, type HeaderData } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { EVM, EVMResult } from '@ethereumjs/evm';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { getCalldataFloorGas, type TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, MAX_UINT64, bigIntToBytes, bytesToHex, createAddressFromString, createWithdrawal, setLengthLeft } from '@ethereumjs/util';
import { Bloom, encodeReceipt, runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import { ChainError } from '../core/errors.js';
import { applyOverrides, asSender, ZERO_ADDRESS } from './call.js';
import { usePrecompiles } from '../engine/internals.js';
import { callBlock, namesPrice, unpricedFees, withBlobBaseFee, withBlockOverrides } from './blockContext.js';
import { engineRejection } from './rejections.js';
import { txCommon, txGasCap } from '../engine/common.js';
import { withFakeSender } from './request.js';
import { keccak256 } from '../core/keccak.js';
import { revertMessage } from './revertData.js';
import { receiptOf } from './receipt.js';
import type { BlockOverrides, MinedTx, RawLog, StateOverrides, StoredBlock, TxRequest } from '../core/types.js';
import { feeCap } from '../fees/rules.js';
import { LogTrace, type TracedLogs } from './simLogs.js';

/** geth's limits: blocks per request, and seconds between blocks when the caller gives no time. */
export const MAX_SIMULATE_BLOCKS = 256;
const TIME_STEP = 12n;

export interface SimBlockSpec {
  blockOverrides?: BlockOverrides;
  stateOverrides?: StateOverrides;
  calls: TxRequest[];
}

export interface SimOptions {
  validation: boolean;
  traceTransfers: boolean;
  /**
   * The RPC gas cap: as in geth, a budget for the whole simulation, each call's gas spent from it;
   * a call that names no gas gets what is left of it (at most what is left of its block).
   */
  gasCap?: bigint;
}

export interface SimCallError {
  code: number;
  message: string;
  data?: Uint8Array;
}

export interface SimCall {
  tx: MinedTx;
  status: 0 | 1;
  returnData: Uint8Array;
  gasUsed: bigint;
  /** Gas the call used before its refund (at least EIP-7623's calldata floor): what it needs as a gas limit (geth's maxUsedGas). */
  maxUsedGas: bigint;
  /** The call's logs (with transfer logs when traced) and their block-wide indexes. */
  logs: Array<{ log: RawLog; index: number }>;
  error?: SimCallError;
}

export interface SimBlock {
  stored: StoredBlock;
  calls: SimCall[];
}

const fail = (code: number, message: string): never => {
  throw new ChainError(message, undefined, code);
};

/** Header fields of the next simulated block: the parent's, a time step on, the block overrides applied. */
function nextHeader(parent: Block, o: BlockOverrides, number: bigint, validation: boolean, common: Common): HeaderData {
  const p = parent.header;
  const fields: HeaderData = {
    parentHash: parent.hash(),
    number,
    timestamp: p.timestamp + TIME_STEP * (number - p.number),
    gasLimit: p.gasLimit,
    coinbase: p.coinbase,
    // geth takes no prevRandao from the parent: a simulated block's is zero unless overridden.
    mixHash: new Uint8Array(32),
  };
  // The next base fee is worked out only when the overrides do not set it.
  if (common.isActivatedEIP(1559)) fields.baseFeePerGas = o.baseFeePerGas ?? (validation ? p.calcNextBaseFee() : 0n);
  if (common.isActivatedEIP(4895)) fields.withdrawalsRoot = undefined;
  if (common.isActivatedEIP(4844)) {
    fields.excessBlobGas = p.calcNextExcessBlobGas(common);
    fields.blobGasUsed = 0n;
  }
  if (common.isActivatedEIP(4788)) fields.parentBeaconBlockRoot = new Uint8Array(32);
  // Before the merge a simulated block keeps its parent's difficulty (geth's).
  if (!common.gteHardfork('paris')) fields.difficulty = p.difficulty;
  return withBlockOverrides(fields, o);
}

/** Checks a transaction must pass to be included, as typed errors (validation mode). */
async function validate(vm: VM, tx: TypedTransaction, from: Address, header: Block['header'], gasUsed: bigint, validation: boolean, namedGas: boolean): Promise<void> {
  if (tx.getIntrinsicGas() > tx.gasLimit) fail(-38013, `intrinsic gas too low: have ${tx.gasLimit}, want ${tx.getIntrinsicGas()}`);
  // geth holds a call's gas to what is left of the block in both modes.
  if (gasUsed + tx.gasLimit > header.gasLimit) fail(-38015, `block gas limit reached: ${gasUsed} used, ${tx.gasLimit} more, limit ${header.gasLimit}`);
  const account = (await vm.stateManager.getAccount(from)) ?? new Account();
  if (!validation) {
    // geth buys the call's gas in both modes: the sender must hold what it pays and sends.
    const cost = tx.gasLimit * feeCap(tx) + tx.value;
    if (account.balance < cost) fail(-38014, `insufficient funds for gas * price + value: address ${from.toString()} have ${account.balance} want ${cost}`);
    return;
  }
  // EIP-7825 (Osaka on): geth checks it with the other transaction checks, which validation turns
  // on, for a gas the call names (the gas it fills in for one that names none is not held to it).
  const gasCap = namedGas ? txGasCap(vm.common) : undefined;
  if (gasCap !== undefined && tx.gasLimit > gasCap) fail(-38015, `transaction gas limit too high (cap: ${gasCap}, tx: ${tx.gasLimit})`);
  if (tx.nonce < account.nonce) fail(-38010, `nonce too low: address ${from.toString()}, tx: ${tx.nonce} state: ${account.nonce}`);
  if (tx.nonce > account.nonce) fail(-38011, `nonce too high: address ${from.toString()}, tx: ${tx.nonce} state: ${account.nonce}`);
  const baseFee = header.baseFeePerGas ?? 0n;
  const cap = feeCap(tx);
  if (cap < baseFee) fail(-38012, `max fee per gas less than block base fee: address ${from.toString()}, maxFeePerGas: ${cap}, baseFee: ${baseFee}`);
  const cost = tx.gasLimit * cap + tx.value;
  if (account.balance < cost) fail(-38014, `insufficient funds for gas * price + value: address ${from.toString()} have ${account.balance} want ${cost}`);
}

/** The call's error object (spec: 3 for reverts, -32015 for other EVM errors). */
function callError(result: RunTxResult): SimCallError | undefined {
  const e = result.execResult.exceptionError?.error;
  if (e === undefined) return undefined;
  if (e === 'revert') return { code: 3, message: revertMessage(result.execResult.returnValue), data: result.execResult.returnValue };
  return { code: -32015, message: e };
}

async function runCall(vm: VM, tx: TypedTransaction, from: Address, block: Block, opts: SimOptions): Promise<{ result: RunTxResult } & TracedLogs> {
  const events = vm.evm.events;
  const journal = vm.evm.journal;
  if (!opts.traceTransfers && events) {
    // First with only the frames' outcomes watched: when every frame succeeds the call's logs are
    // all it emitted, in order. When one failed, the logs it dropped still count in geth's
    // numbering: the call runs again, from the same state, with its steps followed.
    let failed = false;
    const onResult = (r: EVMResult): void => {
      if (r.execResult.exceptionError !== undefined) failed = true;
    };
    await journal.checkpoint();
    events.on('afterMessage', onResult);
    try {
      const result = await runOnce(vm, tx, from, block, opts);
      if (!failed) {
        await journal.commit();
        const real = (result.execResult.logs ?? []) as RawLog[];
        return { result, logs: real.map((log, at) => ({ log, at })), emitted: real.length };
      }
    } catch (err) {
      await journal.revert();
      throw err;
    } finally {
      events.off('afterMessage', onResult);
    }
    await journal.revert();
  }
  const trace = new LogTrace(opts.traceTransfers);
  events?.on('beforeMessage', trace.onMessage);
  events?.on('afterMessage', trace.onResult);
  events?.on('step', trace.onStep);
  try {
    const result = await runOnce(vm, tx, from, block, opts);
    return { result, ...trace.merge((result.execResult.logs ?? []) as RawLog[]) };
  } finally {
    events?.off('beforeMessage', trace.onMessage);
    events?.off('afterMessage', trace.onResult);
    events?.off('step', trace.onStep);
  }
}

function runOnce(vm: VM, tx: TypedTransaction, from: Address, block: Block, opts: SimOptions): Promise<RunTxResult> {
  // `validate` has checked the call the spec's way; anything ethereumjs still refuses is reported as it says.
  return asSender(vm, from, () =>
    runTx(vm, { tx, block, skipBalance: !opts.validation, skipNonce: !opts.validation, skipBlockGasLimitValidation: !opts.validation, skipHardForkValidation: true }),
  ).catch((err: unknown) => {
    throw engineRejection(err);
  });
}

async function receiptsRoot(receipts: Array<{ result: RunTxResult; tx: TypedTransaction }>): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie();
  // Each call ran alone: its receipt's cumulative gas is the block's so far.
  let cumulative = 0n;
  for (const [i, r] of receipts.entries()) {
    cumulative += r.result.totalGasSpent;
    await trie.put(RLP.encode(i), encodeReceipt({ ...r.result.receipt, cumulativeBlockGasUsed: cumulative }, r.tx.type));
  }
  return trie.root();
}

/** One simulated block on `parent`; the VM's state moves on with it. */
async function simulateBlock(vm: VM, parent: Block, spec: SimBlockSpec, number: bigint, opts: SimOptions): Promise<SimBlock> {
  const common = vm.common as Common;
  const o = spec.blockOverrides ?? {};
  const fields = nextHeader(parent, o, number, opts.validation, common);
  const context = createBlock({ header: fields }, { common, skipConsensusFormatValidation: true, setHardfork: false });
  // Each block starts from its fork's precompiles; its overrides may move or replace some.
  usePrecompiles(vm.evm, undefined);
  await applyOverrides(vm, spec.stateOverrides);
  await systemWrites(vm, context);
  const ran: Array<{ result: RunTxResult; tx: TypedTransaction; from: Address } & TracedLogs> = [];
  let gasUsed = 0n;
  for (const req of spec.calls) {
    const from = req.from ?? ZERO_ADDRESS;
    const nonce = req.nonce ?? ((await vm.stateManager.getAccount(from))?.nonce ?? 0n);
    // Without gas a call gets what is left of the block and of the gas budget (validated too: geth
    // holds only a gas the call names to EIP-7825's cap).
    const left = context.header.gasLimit - gasUsed;
    let gas = req.gas ?? left;
    if (req.gas === undefined && opts.gasCap !== undefined && gas > opts.gasCap) gas = opts.gasCap;
    const fees = namesPrice(req) ? {} : unpricedFees();
    // Versioned hashes without a blob fee cap offer the block's blob gas price, as in eth_call.
    const blobFee = req.blobVersionedHashes !== undefined && req.maxFeePerBlobGas === undefined && common.isActivatedEIP(4844) ? { maxFeePerBlobGas: o.blobBaseFee ?? context.header.getBlobGasPrice() } : {};
    const tx = simTx({ ...req, ...fees, ...blobFee, nonce, gas }, common, from, opts.validation);
    // Hashed as geth hashes its simulated transactions: unsigned, every signature value zero.
    const simHash = keccak256(tx.serialize());
    tx.hash = () => simHash;
    await validate(vm, tx, from, context.header, gasUsed, opts.validation, req.gas !== undefined);
    // Without validation a call that pays nothing runs at a zero base fee, as eth_call (geth's NoBaseFee).
    let runIn = opts.validation ? context : callBlock(common, context, { ...req, ...fees });
    if (o.blobBaseFee !== undefined && common.isActivatedEIP(4844)) runIn = withBlobBaseFee(runIn, o.blobBaseFee);
    const { result, logs, emitted } = await runCall(vm, tx, from, runIn, opts);
    await wrapNonce(vm, from);
    gasUsed += result.totalGasSpent;
    if (opts.gasCap !== undefined) opts.gasCap = opts.gasCap > result.totalGasSpent ? opts.gasCap - result.totalGasSpent : 0n;
    ran.push({ result, tx, from, logs, emitted });
  }
  // Before the merge the miner gets the block reward, as geth's engine pays it (none on a dev chain: see makeCommon).
  const reward = common.gteHardfork('paris') ? 0n : common.param('minerReward');
  if (reward > 0n) {
    const miner = (await vm.stateManager.getAccount(context.header.coinbase)) ?? new Account();
    miner.balance += reward;
    await vm.stateManager.putAccount(context.header.coinbase, miner);
  }
  const bloom = new Bloom(undefined, common);
  for (const r of ran) bloom.or(r.result.bloom);
  // Blob gas of the calls that carry versioned hashes (EIP-4844), as a mined block counts it.
  const blobGasUsed = common.isActivatedEIP(4844) ? ran.reduce((sum, r) => sum + ('blobVersionedHashes' in r.tx ? BigInt(r.tx.blobVersionedHashes.length) : 0n), 0n) * common.param('blobGasPerBlob') : undefined;
  const header = createBlockHeader(
    {
      ...fields,
      ...(blobGasUsed !== undefined ? { blobGasUsed } : {}),
      gasUsed,
      stateRoot: await vm.stateManager.getStateRoot(),
      transactionsTrie: await genTransactionsTrieRoot(ran.map((r) => r.tx)),
      receiptTrie: await receiptsRoot(ran),
      logsBloom: bloom.bitvector,
    },
    { common, skipConsensusFormatValidation: true, setHardfork: false },
  );
  const withdrawals = o.withdrawals?.map((w) => ({ index: w.index, validatorIndex: w.validatorIndex, address: w.address, amount: w.amount }));
  // The block holds the calls' own transactions (made with txCommon; one may carry a nonce of 2^64-1, which createBlock would refuse to make again).
  const block = new Block(header, ran.map((r) => r.tx), [], common.isActivatedEIP(4895) ? (withdrawals ?? []).map(createWithdrawal) : undefined, { common: txCommon(common), skipConsensusFormatValidation: true, setHardfork: false });
  const hash = block.hash();
  const stored: StoredBlock = { block, number, hash, hashHex: bytesToHex(hash), txs: [] };
  const calls: SimCall[] = [];
  // geth numbers a block's logs by emission, counting those of failed frames and calls.
  let logIndex = 0;
  let cumulative = 0n;
  ran.forEach(({ result, tx, from, logs, emitted }, index) => {
    cumulative += result.totalGasSpent;
    const receipt = receiptOf(tx, result, header.baseFeePerGas, cumulative, logIndex);
    const hashBytes = tx.hash();
    const mined: MinedTx = { tx, hash: hashBytes, hashHex: bytesToHex(hashBytes), from, index, block: stored, receipt };
    stored.txs.push(mined);
    const error = callError(result);
    calls.push({
      tx: mined,
      status: error ? 0 : 1,
      // A failed call's output is in its error (geth's returnData is then empty).
      returnData: error ? new Uint8Array() : result.execResult.returnValue,
      gasUsed: result.totalGasSpent,
      maxUsedGas: peakGas(tx, from, result),
      logs: error ? [] : logs.map(({ log, at }) => ({ log, index: logIndex + at })),
      error,
    });
    logIndex += emitted;
  });
  return { stored, calls };
}

/**
 * Run the blocks on `vm` (a private copy at `base`'s state). Block numbers must increase (gaps
 * are filled with empty blocks, as geth does), timestamps too.
 */
export async function simulate(vm: VM, base: Block, specs: SimBlockSpec[], opts: SimOptions): Promise<SimBlock[]> {
  let total = 0n;
  let prevNumber = base.header.number;
  let prevTime = base.header.timestamp;
  for (const s of specs) {
    const n = s.blockOverrides?.number ?? prevNumber + 1n;
    if (n <= prevNumber) fail(-38020, `block numbers must be in order: ${n} <= ${prevNumber}`);
    total += n - prevNumber;
    const t = s.blockOverrides?.time ?? prevTime + TIME_STEP * (n - prevNumber);
    // The empty blocks filling a gap come first, each a time step after the last (as in geth).
    const before = prevTime + TIME_STEP * (n - prevNumber - 1n);
    if (t <= before) fail(-38021, `block timestamps must be in order: ${t} <= ${before}`);
    prevNumber = n;
    prevTime = t;
  }
  if (total > BigInt(MAX_SIMULATE_BLOCKS)) fail(-38026, `too many blocks: the limit is ${MAX_SIMULATE_BLOCKS}`);
  const out: SimBlock[] = [];
  // The gas budget is spent as the calls run (a copy: the caller's options stay as given).
  opts = { ...opts };
  // BLOCKHASH of a simulated block is its hash (never the chain's block of that number, nor an error past the head).
  const evm = vm.evm as EVM;
  const history = evm.blockchain;
  const simulated = new Map<number, Uint8Array>();
  evm.blockchain = {
    getBlock: async (n: number) => {
      const hash = simulated.get(n);
      return hash !== undefined ? { hash: () => hash } : history.getBlock(n);
    },
    putBlock: async () => {},
    shallowCopy: () => evm.blockchain,
  };
  try {
    await simulateAll(vm, base, specs, opts, out, simulated);
  } finally {
    evm.blockchain = history;
    usePrecompiles(evm, undefined);
  }
  return out;
}

async function simulateAll(vm: VM, base: Block, specs: SimBlockSpec[], opts: SimOptions, out: SimBlock[], simulated: Map<number, Uint8Array>): Promise<void> {
  let parent = base;
  for (const spec of specs) {
    const target = spec.blockOverrides?.number ?? parent.header.number + 1n;
    // Gaps become empty blocks, spaced as the default time step.
    while (parent.header.number + 1n < target) {
      const empty = await simulateBlock(vm, parent, { calls: [] }, parent.header.number + 1n, opts);
      out.push(empty);
      simulated.set(Number(empty.stored.number), empty.stored.hash);
      parent = empty.stored.block;
    }
    const b = await simulateBlock(vm, parent, spec, target, opts);
    out.push(b);
    simulated.set(Number(b.stored.number), b.stored.hash);
    parent = b.stored.block;
  }
}

/**
 * The call as an unsigned transaction. Its nonce may be 2^64-1, the one EIP-2681 keeps from
 * transactions: geth runs such a call when not validating (its nonce then wraps to 0, see
 * wrapNonce), so it is built with nonce 0 and given its own after; validating, it is refused as
 * geth refuses it.
 */
function simTx(req: TxRequest, common: Common, from: Address, validation: boolean): TypedTransaction {
  const nonce = req.nonce ?? 0n;
  if (nonce < MAX_UINT64) return withFakeSender(req, common, from);
  if (validation) fail(-32603, `nonce has max value: address ${from.toString()}, nonce: ${nonce}`);
  const tx = withFakeSender({ ...req, nonce: 0n }, common, from);
  (tx as { nonce: bigint }).nonce = nonce;
  return tx;
}

/** A sender's nonce past 2^64-1 wraps to 0, as geth's 64-bit nonce does (only a simulated call gets there). */
async function wrapNonce(vm: VM, from: Address): Promise<void> {
  const account = await vm.stateManager.getAccount(from);
  if (account === undefined || account.nonce <= MAX_UINT64) return;
  account.nonce -= MAX_UINT64 + 1n;
  await vm.stateManager.putAccount(from, account);
}

/** Gas a run used before its refund, at least the calldata floor (EIP-7623): geth's peak gas. */
function peakGas(tx: TypedTransaction, from: Address, result: RunTxResult): bigint {
  const used = result.execResult.executionGasUsed + tx.getIntrinsicGas();
  const floor = tx.common.isActivatedEIP(7623) ? getCalldataFloorGas(tx, from) : 0n;
  return used > floor ? used : floor;
}

const BEACON_ROOTS = createAddressFromString('0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02');

/**
 * What a block writes before its transactions, as in a mined block (and geth's simulated ones):
 * the parent beacon root (EIP-4788) and the parent's hash (EIP-2935) into their system contracts,
 * when those hold code.
 */
async function systemWrites(vm: VM, block: Block): Promise<void> {
  const common = vm.common;
  const h = block.header;
  const word = (n: bigint) => setLengthLeft(bigIntToBytes(n), 32);
  if (common.isActivatedEIP(4788) && (await vm.stateManager.getCode(BEACON_ROOTS)).length > 0) {
    const length = common.param('historicalRootsLength');
    await vm.stateManager.putStorage(BEACON_ROOTS, word(h.timestamp % length), bigIntToBytes(h.timestamp));
    await vm.stateManager.putStorage(BEACON_ROOTS, word((h.timestamp % length) + length), h.parentBeaconBlockRoot ?? new Uint8Array(32));
  }
  if (common.isActivatedEIP(2935)) {
    const history = new Address(setLengthLeft(bigIntToBytes(common.param('historyStorageAddress')), 20));
    if ((await vm.stateManager.getCode(history)).length > 0) await vm.stateManager.putStorage(history, word((h.number - 1n) % common.param('historyServeWindow')), h.parentHash);
  }
}
