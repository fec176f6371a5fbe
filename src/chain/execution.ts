/**
 * Calls on the chain's state that reach nothing: eth_call (on this thread or a call worker),
 * eth_estimateGas, eth_createAccessList and eth_simulateV1, each within the call bounds
 * (--rpc-gas-cap, --call-timeout), a failure explained with its Solidity stack where the code has
 * source (exec/explain.ts).
 */
import type { Block } from '@ethereumjs/block';
import { getActivePrecompiles } from '@ethereumjs/evm';
import type { VM } from '@ethereumjs/vm';
import type { BlockRef, StateOverrides, StoredBlock, TxRequest } from './core/types.js';
import { capGas, gasCapAt, withTimeout } from './exec/bounds.js';
import { call, createAccessList, type AccessListResult } from './exec/call.js';
import { estimateGas } from './exec/estimate.js';
import { recordCoverage } from './exec/coverage.js';
import type { CoverageRecorder } from './core/coverage.js';
import { checkRequestType } from './exec/request.js';
import { explained, type ExplainHost } from './exec/explain.js';
import { routedCall, type CallHost } from './exec/offload/call.js';
import type { CallWorkers } from './exec/offload/pool.js';
import { simulate, type SimBlock, type SimBlockSpec, type SimOptions } from './exec/simulate.js';

/** What running calls needs of the node: its state at a block, the call context, and the call workers. */
export interface ExecutionHost extends CallHost, ExplainHost {
  /** The upstream of a forked chain (calls on a fork stay on this thread). */
  readonly forkLink: { readonly fork: unknown };
  /** eth_call on worker threads (--call-workers); undefined: calls run on this thread only. */
  readonly callWorkers: CallWorkers | undefined;
  /** Counts eth_call's instructions (--coverage). */
  readonly coverage: CoverageRecorder | undefined;
  /** A private VM in the state of block `ref`, and the block a call there runs in. */
  vmFor(ref: BlockRef): Promise<{ vm: VM; at: StoredBlock; block: Block }>;
}

export class Execution {
  /** The active precompiles' addresses under each fork's rules, which access lists leave out. */
  private readonly precompiles = new WeakMap<object, Set<string>>();

  constructor(private readonly n: ExecutionHost) {}

  private precompilesOf(common: VM['common']): Set<string> {
    let set = this.precompiles.get(common);
    if (set === undefined) this.precompiles.set(common, (set = new Set([...getActivePrecompiles(common).keys()].map((a) => '0x' + a))));
    return set;
  }

  /** eth_call: on a worker when others are in progress or this code ran long (offload/routing.ts). */
  call(req: TxRequest, ref: BlockRef, overrides?: StateOverrides): Promise<Uint8Array> {
    const explain = (err: unknown) => explained(this.n, err, req, ref, overrides);
    try {
      checkRequestType(req, this.n.common);
    } catch (err) {
      return Promise.reject(err);
    }
    const workers = overrides === undefined && this.n.forkLink.fork === undefined ? this.n.callWorkers : undefined;
    if (workers === undefined) return this.callHere(req, ref, overrides).catch(explain);
    return routedCall(this.n, workers, req, ref, () => this.callHere(req, ref, overrides)).catch(explain);
  }

  private callHere(req: TxRequest, ref: BlockRef, overrides: StateOverrides | undefined): Promise<Uint8Array> {
    const n = this.n;
    const coverage = n.coverage;
    return n.withVm(ref, (vm, block) => {
      const run = () => call(vm, n.callBlock(block, req), n.capped(req, block), overrides);
      return withTimeout(vm.evm, n.callBounds.timeoutMs, coverage === undefined ? run : () => recordCoverage(vm.evm.events, coverage, run));
    });
  }

  /** eth_estimateGas: the smallest gas that succeeds, within the block's gas limit and the RPC gas cap. */
  estimateGas(req: TxRequest, ref: BlockRef, overrides?: StateOverrides): Promise<bigint> {
    const n = this.n;
    return n
      .withVm(ref, (vm, block) => {
        checkRequestType(req, vm.common);
        const limit = block.header.gasLimit;
        const cap = gasCapAt(n.callBounds, limit);
        return withTimeout(vm.evm, n.callBounds.timeoutMs, () => estimateGas(vm, n.callBlock(block, req), capGas(req, cap, limit), cap < limit ? cap : limit, overrides));
      })
      .catch((err: unknown) => explained(n, err, req, ref, overrides));
  }

  createAccessList(req: TxRequest, ref: BlockRef): Promise<AccessListResult> {
    const n = this.n;
    return n.withVm(ref, (vm, block) => {
      checkRequestType(req, vm.common);
      return withTimeout(vm.evm, n.callBounds.timeoutMs, () => createAccessList(vm, n.callBlock(block, req), n.capped(req, block), this.precompilesOf(vm.common)));
    });
  }

  /** eth_simulateV1: blocks of calls on a private copy of the state at `ref`; nothing reaches the chain. */
  async simulate(specs: SimBlockSpec[], opts: SimOptions, ref: BlockRef): Promise<SimBlock[]> {
    const { vm, block } = await this.n.vmFor(ref);
    return withTimeout(vm.evm, this.n.callBounds.timeoutMs, () => simulate(vm, block, specs, { ...opts, gasCap: gasCapAt(this.n.callBounds, block.header.gasLimit) }));
  }
}
