/**
 * One Ethereum state test (ethereum/tests GeneralStateTests format, which execution-spec-tests'
 * state_tests share) run, for one post state's fork, on the node's own engine
 * (src/chain/engine/engine.ts: its Common, state manager, caches and VM, dependency patches included):
 * the pre-state is written, the case's signed transaction (`txbytes`) runs in a block made from
 * `env`, and the post-state root and the logs hash are compared with the expected ones. With
 * `traced`, the transaction runs under the same tracing hooks debug_traceTransaction attaches.
 */
import { createBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { Account, bytesToHex, createAddressFromString, hexToBytes, setLengthLeft, unpadBytes, utf8ToBytes } from '@ethereumjs/util';
import { runTx, type RunTxResult } from '@ethereumjs/vm';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { parseHardfork, type SupportedHardfork } from '../../src/chain/core/config.js';
import { makeCommon } from '../../src/chain/engine/common.js';
import { createEngine } from '../../src/chain/engine/engine.js';
import { traceRun } from '../../src/trace/index.js';

type Hex = `0x${string}`;

interface PreAccount {
  nonce: Hex;
  balance: Hex;
  code: Hex;
  storage: Record<string, Hex>;
}

export interface StateTestJson {
  env: Record<string, Hex>;
  pre: Record<string, PreAccount>;
  transaction: Record<string, unknown>;
  post: Record<string, Array<{ hash: Hex; logs: Hex; txbytes: Hex; indexes: { data: number; gas: number; value: number }; expectException?: string }>>;
}

export interface CaseResult {
  id: string;
  ok: boolean;
  reason?: string;
  /** The fork of the post state, as the fixture names it (`Cancun`, `Prague`, `Osaka`, …). */
  fork?: string;
}

/** One case: a post state of one fork of one test. */
export interface StateCase {
  id: string;
  test: StateTestJson;
  /** The post state's fork as the fixture names it, and the node's rules for it. */
  fork: string;
  hardfork: SupportedHardfork;
  index: number;
}

/**
 * The node's rules for a fixture's fork name (`Cancun`, `Prague`, `Osaka`, `BPO1`, … in any case);
 * undefined for a fork the node does not offer (the case is not run).
 */
export function hardforkOf(fork: string): SupportedHardfork | undefined {
  return fork.toLowerCase() === 'latest' ? undefined : parseHardfork(fork);
}

const commons = new Map<SupportedHardfork, Common>();
/** State tests run on chain id 1 with the rules of the post state's fork. */
function rules(hardfork: SupportedHardfork): Common {
  let c = commons.get(hardfork);
  if (c === undefined) commons.set(hardfork, (c = makeCommon(1n, hardfork)));
  return c;
}

/** BLOCKHASH in state tests is keccak256 of the block number's decimal text (the fillers' rule). */
const history = {
  getBlock: async (n: number) => ({ hash: () => keccak_256(utf8ToBytes(String(n))) }),
  putBlock: async () => {},
  shallowCopy: () => history,
};

const big = (h: string | undefined): bigint | undefined => (h === undefined ? undefined : BigInt(h));

/**
 * Every case of a test file's tests, for each post state's fork the node offers (only those in
 * `forks` when given), as ids `file:test:data-gas-value@Fork`.
 */
export function cases(file: string, json: Record<string, StateTestJson>, forks?: ReadonlySet<SupportedHardfork>): StateCase[] {
  const out: StateCase[] = [];
  for (const [name, test] of Object.entries(json)) {
    for (const [fork, posts] of Object.entries(test.post)) {
      const hardfork = hardforkOf(fork);
      if (hardfork === undefined || (forks !== undefined && !forks.has(hardfork))) continue;
      posts.forEach((p, index) => out.push({ id: `${file}:${name}:${p.indexes.data}-${p.indexes.gas}-${p.indexes.value}@${fork}`, test, fork, hardfork, index }));
    }
  }
  return out;
}

/** `traceLimitMs` bounds a traced run's clock (none by default; the tests give one to see a timeout reported). */
export async function runCase(c: StateCase, traced: boolean, traceLimitMs = Infinity): Promise<CaseResult> {
  const { id, test } = c;
  const post = test.post[c.fork]![c.index]!;
  // A copy per case: the EVM subscribes to its Common's events, which would keep every case's engine alive.
  const common = rules(c.hardfork).copy();
  const { state, vm } = await createEngine(common, history);
  for (const [address, a] of Object.entries(test.pre)) {
    const addr = createAddressFromString(address);
    await state.putAccount(addr, new Account(BigInt(a.nonce), BigInt(a.balance)));
    if (a.code !== '0x') await state.putCode(addr, hexToBytes(a.code));
    for (const [k, v] of Object.entries(a.storage)) {
      const value = unpadBytes(hexToBytes(v));
      if (value.length > 0) await state.putStorage(addr, setLengthLeft(hexToBytes(k as Hex), 32), value);
    }
  }
  await state.getStateRoot();
  const env = test.env;
  const block = createBlock(
    {
      header: {
        number: big(env.currentNumber),
        coinbase: env.currentCoinbase,
        timestamp: big(env.currentTimestamp),
        gasLimit: big(env.currentGasLimit),
        difficulty: 0n,
        mixHash: env.currentRandom ? hexToBytes(env.currentRandom) : undefined,
        baseFeePerGas: big(env.currentBaseFee),
        excessBlobGas: common.isActivatedEIP(4844) ? (big(env.currentExcessBlobGas) ?? 0n) : undefined,
      },
    },
    { common, setHardfork: false, skipConsensusFormatValidation: true },
  );
  let logs: unknown[] = [];
  let tx: TypedTransaction | undefined;
  try {
    tx = createTxFromRLP(hexToBytes(post.txbytes), { common });
  } catch {
    tx = undefined; // not even a well-formed transaction: the state stays as it was
  }
  if (tx !== undefined) {
    try {
      const result = traced ? await tracedRun(vm, tx, block, traceLimitMs) : await runTx(vm, { tx, block });
      logs = result.execResult.logs ?? [];
    } catch (err) {
      // runTx's refusal of an invalid transaction (nonce, funds, gas, fees) leaves the state as it
      // was. Anything else thrown under the tracer is the tracing's own failure, and the case's.
      if (traced && !(err instanceof Rejected)) return { id, fork: c.fork, ok: false, reason: `traced run failed: ${(err as Error).message}` };
    }
  }
  const root = bytesToHex(await state.getStateRoot());
  const logsHash = bytesToHex(keccak_256(RLP.encode(logs as never)));
  if (root !== post.hash) return { id, fork: c.fork, ok: false, reason: `state root ${root}, expected ${post.hash}` };
  if (logsHash !== post.logs) return { id, fork: c.fork, ok: false, reason: `logs hash ${logsHash}, expected ${post.logs}` };
  return { id, fork: c.fork, ok: true };
}

/** runTx's refusal of a transaction, told apart from a failure of the tracing around it. */
class Rejected extends Error {}

/**
 * The transaction under the struct logger, as debug_traceTransaction runs it. The gate sets no time
 * limit: it checks results, and a limit on the clock would make them depend on the machine's load
 * (vmPerformance's traced cases take minutes).
 */
async function tracedRun(vm: Awaited<ReturnType<typeof createEngine>>['vm'], tx: TypedTransaction, block: ReturnType<typeof createBlock>, limitMs: number): Promise<RunTxResult> {
  let result: RunTxResult | undefined;
  await traceRun(
    {
      vm,
      run: async () => {
        try {
          result = await runTx(vm, { tx, block });
        } catch (err) {
          throw new Rejected((err as Error).message);
        }
        const err = result.execResult.exceptionError?.error;
        return { gasUsed: result.totalGasSpent, returnValue: result.execResult.returnValue, error: err === undefined ? undefined : err === 'revert' ? 'execution reverted' : err, createdAddress: result.createdAddress };
      },
      from: tx.getSenderAddress(),
      to: tx.to,
      value: tx.value,
      input: tx.data,
      gasLimit: tx.gasLimit,
      gasPrice: 0n,
      type: tx.to ? 'CALL' : 'CREATE',
      coinbase: block.header.coinbase,
    },
    { tracer: { name: 'structLogger', options: { enableMemory: false, disableStack: false, disableStorage: false, enableReturnData: true, limit: 64 } }, timeoutMs: limitMs },
  );
  return result!;
}
