/**
 * The engine with the build's dependency patches (src/chain/engine/patches): an unobserved run
 * (the project's own interpreter loop, src/chain/engine/loop) must give exactly what the hooked
 * path gives (the one used whenever a step listener is attached, as by every tracer), on the
 * node's own state manager, with reads answered from caches and from the trie; a synchronous step
 * listener (the observed steps of evm-sync-step-listeners) must see exactly the events an awaited
 * one sees (runStep); calldata gas must be the per-byte sum; RLP must encode exactly as the
 * published encoder does; a block built must be the one the published block builder builds.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createEVM, type EVM } from '@ethereumjs/evm';
import { CacheType, Caches } from '@ethereumjs/statemanager';
import { countCalldataFloorTokens, createTx } from '@ethereumjs/tx';
import * as util from '@ethereumjs/util';
import { Account, Address, bytesToHex, bytesToUnprefixedHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { RLP, type Input } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { createRequire } from 'node:module';
import { makeCommon } from '../../src/chain/engine/common.js';
import { ForkLink, NodeStateManager } from '../../src/chain/engine/forkState.js';
import { installFastLoop } from '../../src/chain/engine/loop/install.js';

const common = makeCommon(984n, 'prague');
const CONTRACT = new Address(hexToBytes('0x00000000000000000000000000000000000c0de0'));
const OTHER = '00000000000000000000000000000000000000b1';
const CALLER = new Address(hexToBytes('0x00000000000000000000000000000000000ca11e'));

/** slot 0 + balance(OTHER) → word 0, keccak(word 0) → word 1, slot 0 and OTHER read again (warm), return both words. */
const READS =
  '600054' + // PUSH1 0 SLOAD (cold)
  '73' + OTHER + '31' + // PUSH20 OTHER BALANCE (cold)
  '01' + '600052' + // ADD, PUSH1 0 MSTORE
  '60206000' + '20' + '602052' + // KECCAK256(0, 32), PUSH1 0x20 MSTORE
  '600054' + '50' + // PUSH1 0 SLOAD (warm) POP
  '73' + OTHER + '31' + '50' + // PUSH20 OTHER BALANCE (warm) POP
  '60406000f3'; // RETURN(0, 64)
const INVALID = '6001fe';
/** MSTORE at offset 2^256-1: memory no gas can buy. */
const HUGE_MEMORY = '6001' + '7f' + 'ff'.repeat(32) + '52';
/** MSTORE on an empty stack: its gas handler fails (stack underflow), and the step is still reported. */
const UNDERFLOW = '52';
const REVERTS = '602a600052' + '60206000fd';

async function state(cached: boolean): Promise<NodeStateManager> {
  const sm = new NodeStateManager({
    link: new ForkLink(),
    common,
    caches: cached ? new Caches({ account: { type: CacheType.LRU, size: 1000 }, storage: { type: CacheType.LRU, size: 1000 } }) : undefined,
  });
  await sm.putAccount(CONTRACT, new Account());
  await sm.putAccount(new Address(hexToBytes(`0x${OTHER}`)), new Account(0n, 1234n));
  await sm.putAccount(CALLER, new Account(0n, 10n ** 18n));
  await sm.putStorage(CONTRACT, setLengthLeft(new Uint8Array([0]), 32), new Uint8Array([7]));
  if (!cached) await sm.flush();
  return sm;
}

interface Outcome {
  returned: string;
  gas: bigint;
  error: string | undefined;
  /** What each step event said, in order. */
  steps: string[];
}

/** No step listener (the project's loop), a synchronous one (observed steps), or an awaited one (runStep). */
type Listener = 'none' | 'sync' | 'awaited';

interface StepEventView {
  pc: number;
  gasLeft: bigint;
  gasRefund: bigint;
  opcode: { name: string; fee: number; dynamicFee?: bigint };
  stack: bigint[];
  depth: number;
  memory: Uint8Array;
  memoryWordCount?: bigint;
  error?: Uint8Array;
}

function describeStep(e: StepEventView): string {
  const error = e.error === undefined ? '' : ` error=${bytesToHex(e.error)}`;
  return `${e.pc} ${e.opcode.name} fee=${e.opcode.fee}/${e.opcode.dynamicFee} gas=${e.gasLeft} refund=${e.gasRefund} depth=${e.depth} stack=${e.stack.join(',')} memory=${bytesToHex(e.memory)}/${e.memoryWordCount}${error}`;
}

async function run(sm: NodeStateManager, code: string, gasLimit: bigint, listener: Listener): Promise<Outcome> {
  await sm.putCode(CONTRACT, hexToBytes(`0x${code}`));
  // A fresh EVM per run: its journal (warm addresses and slots) starts empty each time.
  const evm: EVM = await createEVM({ common, stateManager: sm });
  const steps: string[] = [];
  if (listener === 'sync') evm.events.on('step', (e: StepEventView) => void steps.push(describeStep(e)));
  if (listener === 'awaited') {
    evm.events.on('step', (e: StepEventView, resolve?: () => void) => {
      steps.push(describeStep(e));
      setImmediate(() => resolve?.());
    });
  }
  const r = await evm.runCall({ to: CONTRACT, caller: CALLER, gasLimit });
  const res = r.execResult;
  return { returned: bytesToHex(res.returnValue), gas: res.executionGasUsed, error: res.exceptionError?.error, steps };
}

/**
 * The same call unobserved (the project's loop), with a synchronous listener (observed steps) and with an
 * awaited one (runStep with hooks): the same result, and the same events for both listeners (the
 * synchronous run's outcome is returned, with its events).
 */
async function both(sm: NodeStateManager, code: string, gasLimit = 100_000n): Promise<Outcome> {
  await installFastLoop();
  const plain = await run(sm, code, gasLimit, 'none');
  const sync = await run(sm, code, gasLimit, 'sync');
  const awaited = await run(sm, code, gasLimit, 'awaited');
  assert.ok(sync.steps.length > 0, 'the observed run reports its steps');
  assert.deepEqual(sync.steps, awaited.steps);
  assert.deepEqual({ ...plain, steps: [] }, { ...sync, steps: [] });
  assert.deepEqual({ ...plain, steps: [] }, { ...awaited, steps: [] });
  return sync;
}

for (const cached of [true, false]) {
  describe(`unobserved and observed steps, state ${cached ? 'in caches (values)' : 'in the trie (promises)'}`, () => {
    test('SLOAD, BALANCE, memory and KECCAK256: the values and the gas of the hooked path', async () => {
      const sm = await state(cached);
      const out = await both(sm, READS);
      const word = setLengthLeft(new Uint8Array([0x04, 0xd9]), 32); // 7 + 1234
      assert.equal(out.returned, bytesToHex(word) + bytesToHex(keccak_256(word)).slice(2));
      assert.equal(out.error, undefined);
      // Cold SLOAD 2100, cold BALANCE 2600, warm SLOAD and BALANCE 100 each, plus the plain opcodes and memory.
      assert.equal(out.gas, 4985n);
    });

    test('out of gas in the middle, an invalid opcode, a revert with data', async () => {
      const sm = await state(cached);
      const oog = await both(sm, READS, 3000n);
      assert.equal(oog.error, 'out of gas');
      assert.equal(oog.gas, 3000n);
      const invalid = await both(sm, INVALID);
      assert.equal(invalid.error, 'invalid opcode');
      const huge = await both(sm, HUGE_MEMORY);
      assert.equal(huge.error, 'out of gas');
      assert.equal(huge.steps.length, 3);
      assert.match(huge.steps[2]!, /^35 MSTORE /);
      const underflow = await both(sm, UNDERFLOW);
      assert.equal(underflow.error, 'stack underflow');
      assert.equal(underflow.steps.length, 1);
      const reverted = await both(sm, REVERTS);
      assert.equal(reverted.error, 'revert');
      assert.equal(BigInt(reverted.returned), 42n);
    });
  });
}

test('cached state reads answer with the value, uncached ones with a promise', async () => {
  const key = setLengthLeft(new Uint8Array([0]), 32);
  const warm = await state(true);
  assert.deepEqual(warm.getStorageMaybe(CONTRACT, key), new Uint8Array([7]));
  assert.equal((warm.getAccountMaybe(new Address(hexToBytes(`0x${OTHER}`))) as Account).balance, 1234n);
  const cold = await state(false);
  const pending = cold.getStorageMaybe(CONTRACT, key);
  assert.ok(pending instanceof Promise);
  assert.deepEqual(await pending, new Uint8Array([7]));
});

test('calldata gas and floor tokens: the per-byte sums', () => {
  const data = new Uint8Array(1000);
  for (let i = 0; i < data.length; i++) data[i] = i % 3 === 0 ? 0 : i & 0xff || 1;
  const zeros = data.filter((b) => b === 0).length;
  const tx = createTx({ type: 2, chainId: 984n, to: CONTRACT.toString(), data, gasLimit: 1_000_000n, maxFeePerGas: 1n }, { common });
  assert.equal(tx.getDataGas(), BigInt(zeros) * 4n + BigInt(data.length - zeros) * 16n);
  assert.equal(tx.getIntrinsicGas(), 21_000n + BigInt(zeros) * 4n + BigInt(data.length - zeros) * 16n);
  assert.equal(countCalldataFloorTokens(tx), BigInt(zeros + (data.length - zeros) * 4));
  // The next transaction's calldata is counted afresh (the count is remembered per data array).
  const other = createTx({ type: 2, chainId: 984n, to: CONTRACT.toString(), data: new Uint8Array(1000), gasLimit: 1_000_000n, maxFeePerGas: 1n }, { common });
  assert.equal(other.getDataGas(), 4000n);
  assert.equal(countCalldataFloorTokens(other), 1000n);
  assert.equal(tx.getDataGas(), BigInt(zeros) * 4n + BigInt(data.length - zeros) * 16n);
});

test('bytes to bigint: every length, any offset, the hex reading', () => {
  const reference = (b: Uint8Array) => (b.length === 0 ? 0n : BigInt(bytesToHex(b)));
  const backing = new Uint8Array(80);
  for (let i = 0; i < backing.length; i++) backing[i] = (i * 151 + 7) & 0xff;
  for (let len = 0; len <= 40; len++) {
    for (const offset of [0, 3]) {
      const b = backing.subarray(offset, offset + len);
      assert.equal(util.bytesToBigInt(b), reference(b), `length ${len} at offset ${offset}`);
    }
    assert.equal(util.bytesToBigInt(new Uint8Array(len).fill(0xff)), (1n << BigInt(8 * len)) - 1n, `length ${len} all ones`);
    assert.equal(util.bytesToBigInt(new Uint8Array(len)), 0n);
  }
  assert.equal(util.bytesToBigInt(new Uint8Array([1, 2]), true), 0x0201n);
});

test('one code array run by EVMs of different hardforks: each uses its own opcodes', async () => {
  // PUSH1 3 JUMP JUMPDEST PUSH1 0 TLOAD STOP: the JUMP makes the interpreter analyse the code (and keep
  // the analysis for this array); TLOAD exists from Cancun on.
  const code = hexToBytes('0x6003565b60005c00');
  const runOn = async (hardfork: 'prague' | 'shanghai') => {
    const evm = await createEVM({ common: makeCommon(984n, hardfork), stateManager: await state(true) });
    return (await evm.runCode({ code, gasLimit: 100_000n })).exceptionError?.error;
  };
  assert.equal(await runOn('prague'), undefined);
  assert.equal(await runOn('shanghai'), 'invalid opcode');
  assert.equal(await runOn('prague'), undefined);
});

/** Added to @ethereumjs/util by the util-key-hex-memo patch (not in its type declarations). */
const { addressBytesToHex, slotBytesToHex } = util as unknown as Record<'addressBytesToHex' | 'slotBytesToHex', (bytes: Uint8Array) => string>;

test('address and slot keys: the remembered hex is each array’s own', () => {
  const a = hexToBytes('0x00000000000000000000000000000000000000aa');
  const b = hexToBytes('0x00000000000000000000000000000000000000bb');
  assert.equal(addressBytesToHex(a), bytesToUnprefixedHex(a));
  assert.equal(addressBytesToHex(b), bytesToUnprefixedHex(b));
  assert.equal(addressBytesToHex(a), '00000000000000000000000000000000000000aa');
  // An equal address in another array has the same key; caches keyed by it see one account.
  assert.equal(addressBytesToHex(new Address(a.slice()).bytes), addressBytesToHex(a));
  const s1 = setLengthLeft(new Uint8Array([1]), 32);
  const s2 = setLengthLeft(new Uint8Array([2]), 32);
  for (const s of [s1, s1, s2, s1]) assert.equal(slotBytesToHex(s), bytesToUnprefixedHex(s));
});

test('RLP encoding: the bytes of the published encoder, for items and lists of every header size', () => {
  // The published CommonJS build is never patched (src/chain/engine/patches touch dist/esm): the reference.
  const published = createRequire(import.meta.url)('@ethereumjs/rlp') as typeof RLP;
  assert.notEqual(published.encode, RLP.encode);
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => next() & 0xff);
  const lengths = [0, 1, 2, 31, 32, 33, 54, 55, 56, 57, 200, 255, 256, 257, 1024, 65535, 65536, 70_000];
  const items: Input[] = [new Uint8Array([0]), new Uint8Array([0x7f]), new Uint8Array([0x80]), new Uint8Array([0xff])];
  for (const n of lengths) items.push(bytes(n));
  items.push('0x', '0x01', '0x1234', 'a text', 0, 1, 127, 128, 1_000_000, 0n, 2n ** 255n, null, undefined);
  const pick = (): Input => items[next() % items.length]!;
  const list = (depth: number): Input => Array.from({ length: next() % 20 }, () => (depth > 0 && next() % 3 === 0 ? list(depth - 1) : pick()));
  const cases: Input[] = [...items, [], [[]], [new Uint8Array()], Array.from({ length: 17 }, (_, i) => (i % 3 ? bytes(32) : new Uint8Array()))];
  for (let i = 0; i < 400; i++) cases.push(list(3));
  // Lists of bytes only, nested, as the engine encodes them (trie nodes, accounts, headers, receipts):
  // encoded in one measured pass; one other item anywhere sends the whole list the old way.
  const byteItems = items.filter((x): x is Uint8Array => x instanceof Uint8Array);
  const byteList = (depth: number): Input => Array.from({ length: next() % 20 }, () => (depth > 0 && next() % 3 === 0 ? byteList(depth - 1) : byteItems[next() % byteItems.length]!));
  for (let i = 0; i < 400; i++) cases.push(byteList(3));
  for (let i = 0; i < 50; i++) cases.push([byteList(2), [byteList(1), pick()], byteList(2)]);
  // Lists whose payload is just under, at and over the one-byte and two-byte length headers.
  for (const n of [53, 54, 55, 254, 255, 256, 65534, 65535]) cases.push([bytes(n)], [new Uint8Array([1]), bytes(n)]);
  for (const input of cases) {
    const ours = RLP.encode(input);
    assert.deepEqual(ours, published.encode(input));
    if (!Array.isArray(input) && input instanceof Uint8Array && input.length === 1 && input[0]! < 0x80) assert.equal(ours, input);
  }
});

test('block building: the header, roots, hash and bytes of the published block builder', async () => {
  // The published CommonJS builds are never patched: the same blocks built with both must be equal.
  const req = createRequire(import.meta.url);
  type Lib = { vm: typeof import('@ethereumjs/vm'); common: typeof import('@ethereumjs/common'); tx: typeof import('@ethereumjs/tx'); util: typeof util; block: typeof import('@ethereumjs/block') };
  const published: Lib = { vm: req('@ethereumjs/vm'), common: req('@ethereumjs/common'), tx: req('@ethereumjs/tx'), util: req('@ethereumjs/util'), block: req('@ethereumjs/block') };
  const patched: Lib = { vm: await import('@ethereumjs/vm'), common: await import('@ethereumjs/common'), tx: await import('@ethereumjs/tx'), util, block: await import('@ethereumjs/block') };
  assert.notEqual(published.vm.BlockBuilder, patched.vm.BlockBuilder);
  const key = hexToBytes(`0x${'11'.repeat(32)}`);
  // A contract that logs its calldata's first word under one topic (LOG1), and stores it.
  const logger = hexToBytes('0x60003560005260206000a1600035600055');
  const build = async (lib: Lib, txCount: number, hardfork: string) => {
    const common = lib.common.createCustomCommon({ chainId: 984 }, lib.common.Mainnet, { hardfork });
    const vm = await lib.vm.createVM({ common });
    const sender = lib.util.createAddressFromPrivateKey(key);
    const target = new lib.util.Address(hexToBytes('0x00000000000000000000000000000000000000aa'));
    await vm.stateManager.putAccount(sender, new lib.util.Account(0n, 10n ** 20n));
    await vm.stateManager.putCode(target, logger);
    const parent = lib.block.createBlock({ header: { number: 0n, gasLimit: 30_000_000n, baseFeePerGas: 10n ** 9n, ...(hardfork === 'shanghai' ? {} : { excessBlobGas: 0n, blobGasUsed: 0n }), stateRoot: await vm.stateManager.getStateRoot() }, withdrawals: [] }, { common });
    const builder = await lib.vm.buildBlock(vm, {
      parentBlock: parent,
      withdrawals: [],
      headerData: { timestamp: 12n, coinbase: '0x00000000000000000000000000000000000000cb' as `0x${string}`, gasLimit: 30_000_000n, mixHash: new Uint8Array(32).fill(3) },
      blockOpts: { putBlockIntoBlockchain: false, common },
    });
    for (let i = 0; i < txCount; i++) {
      const data = setLengthLeft(new Uint8Array([i + 1]), 32);
      const tx = lib.tx.createTx({ type: 2, chainId: 984n, nonce: BigInt(i), to: target.toString(), data, gasLimit: 100_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n }, { common }).sign(key);
      await builder.addTransaction(tx);
    }
    const { block } = await builder.build();
    return { hash: bytesToHex(block.hash()), header: block.header.toJSON(), bytes: bytesToHex(block.serialize()), txs: block.transactions.map((t) => bytesToHex(t.hash())) };
  };
  for (const hardfork of ['shanghai', 'prague', 'osaka']) {
    for (const txCount of [0, 1, 2, 3]) {
      const ours = await build(patched, txCount, hardfork);
      assert.deepEqual(ours, await build(published, txCount, hardfork), `${txCount} transactions, ${hardfork}`);
      if (txCount > 0) assert.notEqual(ours.header.receiptTrie, bytesToHex(util.KECCAK256_RLP));
    }
  }
});

test('a frozen transaction keeps its bytes; one that is not encodes them each time', () => {
  const key = hexToBytes(`0x${'22'.repeat(32)}`);
  const req = createRequire(import.meta.url);
  const published = req('@ethereumjs/tx') as typeof import('@ethereumjs/tx');
  const pc = req('@ethereumjs/common') as typeof import('@ethereumjs/common');
  const publishedCommon = pc.createCustomCommon({ chainId: 984 }, pc.Mainnet, { hardfork: 'prague' });
  const fields = { type: 2, chainId: 984n, nonce: 3n, to: CONTRACT.toString(), data: new Uint8Array([1, 2, 3]), gasLimit: 60_000n, maxFeePerGas: 10n ** 10n } as const;
  const frozen = createTx(fields, { common }).sign(key);
  const reference = published.createTx(fields, { common: publishedCommon }).sign(key).serialize();
  assert.ok(Object.isFrozen(frozen));
  assert.equal(frozen.serialize(), frozen.serialize());
  assert.deepEqual(frozen.serialize(), reference);
  const open = createTx(fields, { common, freeze: false }).sign(key, undefined);
  assert.notEqual(open.serialize(), open.serialize());
  assert.deepEqual(open.serialize(), frozen.serialize());
});
