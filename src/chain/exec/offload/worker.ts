/**
 * A call worker: a replica of the node's trie node store and an engine built exactly as the
 * node's (src/chain/engine/engine.ts), answering eth_call at any state root it holds through the
 * same lean path (../lean.ts) and bounds (../bounds.ts) the node uses.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { createBlock, createBlockHeaderFromRLP, type Block } from '@ethereumjs/block';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { Address, equalsBytes } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { ChainError } from '../../core/errors.js';
import { makeCommon } from '../../engine/common.js';
import { createEngine } from '../../engine/engine.js';
import { readyKeccak } from '../../core/keccak.js';
import { withTimeout } from '../bounds.js';
import { leanCall } from '../lean.js';
import type { CallJob, CallReply, FromWorker, ToWorker, WorkerInit } from './protocol.js';
import { StoreReplica } from './replica.js';

/** BLOCKHASH needs the node's block store: such a call goes back to the node. */
class NeedsNode extends Error {}

const history: EVMMockBlockchainInterface = {
  getBlock: async () => {
    throw new NeedsNode('BLOCKHASH');
  },
  putBlock: async () => {},
  shallowCopy: () => history,
};

const port = parentPort!;
const init = workerData as WorkerInit;
const nodes = new StoreReplica();
nodes.apply(init.nodes);

let engine: { key: string; vm: VM; root: Uint8Array | undefined } | undefined;
const headers = new Map<number, Block>();
// A worker that cannot build its engine fails as a whole (the node then keeps calls to itself).
let queue: Promise<unknown> = readyKeccak()
  .then(() => build(init.chainId, init.hardfork, init.codeSizeLimit))
  .then(
    () => port.postMessage({ kind: 'ready' } satisfies FromWorker),
    (err: unknown) =>
      setImmediate(() => {
        throw err;
      }),
  );

async function build(chainId: bigint, hardfork: CallJob['hardfork'], codeSizeLimit: number | undefined, blobs?: CallJob['blobs']): Promise<NonNullable<typeof engine>> {
  const key = `${chainId}/${hardfork}/${codeSizeLimit}/${blobs === undefined ? '' : JSON.stringify(blobs)}`;
  if (engine === undefined || engine.key !== key) {
    const { vm } = await createEngine(makeCommon(chainId, hardfork, codeSizeLimit, blobs), history, {
      nodes,
      // Caches hold one state root's reads and are emptied at every new root. An LRU cache would
      // empty itself (at a cost in proportion to its capacity) every time a call's last entry is
      // reverted; ordered maps do not, and never evict.
      cacheSize: 'unbounded',
    });
    engine = { key, vm, root: undefined };
    headers.clear();
  }
  return engine;
}

async function vmFor(job: CallJob): Promise<VM> {
  const e = await build(job.chainId, job.hardfork, job.codeSizeLimit, job.blobs);
  if (e.root === undefined || !equalsBytes(e.root, job.root)) {
    // A new root: the state caches start empty (setStateRoot clears them).
    e.root = undefined;
    await e.vm.stateManager.setStateRoot(job.root);
    e.root = job.root;
  }
  return e.vm;
}

function blockOf(job: CallJob, vm: VM): Block {
  let block = headers.get(job.headerId);
  if (block === undefined) {
    const header = createBlockHeaderFromRLP(job.header, { common: vm.common, skipConsensusFormatValidation: true });
    block = createBlock({ header }, { common: vm.common, skipConsensusFormatValidation: true });
    if (headers.size >= 8) headers.delete(headers.keys().next().value!);
    headers.set(job.headerId, block);
  }
  return block;
}

async function run(job: CallJob): Promise<CallReply> {
  const id = job.id;
  try {
    const vm = await vmFor(job);
    const block = blockOf(job, vm);
    const req = { to: new Address(job.to), from: new Address(job.from), data: job.data, gas: job.gas };
    const result = await withTimeout(vm.evm, job.timeoutMs, () => leanCall(vm, block, req, req.from));
    if (result === undefined) return { id, kind: 'fallback', reason: 'not a lean call' };
    const { exceptionError, returnValue } = result.execResult;
    // A view into the EVM's memory would be cloned with all of it.
    const data = returnValue.byteLength === returnValue.buffer.byteLength ? returnValue : returnValue.slice();
    return exceptionError ? { id, kind: 'failed', error: exceptionError.error, data } : { id, kind: 'ok', data };
  } catch (err) {
    if (err instanceof ChainError) return { id, kind: 'error', message: err.message, code: err.code };
    // BLOCKHASH is expected: the lean path has reverted its journal, so the engine is as it was.
    if (err instanceof NeedsNode) return { id, kind: 'fallback', reason: 'BLOCKHASH' };
    // The engine may be mid-call after an unexpected throw: start over with a fresh one.
    engine = undefined;
    return { id, kind: 'fallback', reason: err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err) };
  }
}

/**
 * After a reply with no call queued, the worker looks for the next call for up to this long before
 * it goes back to its event loop and sleeps. Under a crowd of calls the next one comes within it,
 * and taking it at once saves the sleep and the wake-up, which on a virtual machine add tens of
 * microseconds to a call (engine README, "Call workers"). It looks only while calls come that
 * close together: a look that finds nothing stops the looking until a call again arrives within
 * this time of the reply before it, so a worker whose calls come seldom spends nothing on it.
 */
export const LOOK_FOR_NEXT_MS = 0.2;
/** Calls taken and not yet answered. */
let queued = 0;
/** When the last reply went. */
let repliedAt = -Infinity;
/** Whether the last calls came within LOOK_FOR_NEXT_MS of the reply before them. */
let close = false;

port.on('message', (m: ToWorker) => {
  if (m.kind === 'call' && queued === 0) close = performance.now() - repliedAt < LOOK_FOR_NEXT_MS;
  take(m);
});

/** Take one message; whether it was a call. */
function take(m: ToWorker): boolean {
  if (m.kind === 'nodes') {
    // Entries are keyed by hash and never change: adding them under a running call is safe.
    nodes.apply(m.nodes);
    return false;
  }
  // One call at a time on the engine, in arrival order.
  queued++;
  queue = queue
    .then(() => run(m))
    .then((reply) => {
      queued--;
      port.postMessage(reply satisfies FromWorker);
      repliedAt = performance.now();
      if (queued === 0 && close) lookForNext();
    });
  return true;
}

/** Take the next call as soon as it is posted, for up to LOOK_FOR_NEXT_MS (messages keep their order: the port's queue is the same). */
function lookForNext(): void {
  const until = repliedAt + LOOK_FOR_NEXT_MS;
  while (performance.now() < until) {
    const next = receiveMessageOnPort(port);
    if (next !== undefined && take(next.message as ToWorker)) return;
  }
  close = false;
}
