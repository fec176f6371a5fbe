/** A bare ethereumjs VM (chain id 984, Prague) for tracer tests, plus fixture loading. */
import { readFileSync } from 'node:fs';
import { createBlock, type Block } from '@ethereumjs/block';
import { Mainnet, createCustomCommon, type Common } from '@ethereumjs/common';
import { createLegacyTx, type LegacyTx } from '@ethereumjs/tx';
import { Account, type Address, bytesToHex, createAddressFromPrivateKey, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { createVM, runTx, type VM } from '@ethereumjs/vm';
import { parseTraceConfig, traceRun, type TraceOutcome } from '../../src/trace/index.js';

export const PRIVATE_KEY = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
export const SENDER = createAddressFromPrivateKey(PRIVATE_KEY);
export const CHAIN_ID = 984n;
export const GAS_PRICE = 1_000_000_000n;
export const INITIAL_BALANCE = 10_000n * 10n ** 18n;

export interface Artifact {
  abi: unknown[];
  bytecode: string;
  deployedBytecode: string;
  methodIdentifiers: Record<string, string>;
}

export function artifact(name: string): Artifact {
  const url = new URL(`../../../fixtures/artifacts/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as Artifact;
}

/** ABI-encode a call from a selector and static (uint/address/bytes32) arguments. */
export function encodeCall(selector: string, ...args: Array<bigint | Address | string>): Uint8Array {
  let hex = selector.replace(/^0x/, '');
  for (const a of args) {
    const v = typeof a === 'bigint' ? a : typeof a === 'string' ? BigInt(a) : BigInt(a.toString());
    hex += v.toString(16).padStart(64, '0');
  }
  return hexToBytes(`0x${hex}`);
}

export interface TxSpec {
  to?: Address;
  data?: Uint8Array;
  value?: bigint;
  gasLimit?: bigint;
}

export class TestChain {
  nonce = 0n;
  number = 1n;

  private constructor(
    readonly vm: VM,
    readonly common: Common,
    readonly coinbase: Address,
  ) {}

  static async create(coinbase = createAddressFromString('0x0000000000000000000000000000000000000000')): Promise<TestChain> {
    const common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: 'prague' });
    const vm = await createVM({ common });
    await vm.stateManager.putAccount(SENDER, new Account(0n, INITIAL_BALANCE));
    return new TestChain(vm, common, coinbase);
  }

  tx(spec: TxSpec): LegacyTx {
    return createLegacyTx(
      {
        nonce: this.nonce,
        gasPrice: GAS_PRICE,
        gasLimit: spec.gasLimit ?? 1_000_000n,
        to: spec.to,
        value: spec.value ?? 0n,
        data: spec.data ?? new Uint8Array(0),
      },
      { common: this.common },
    ).sign(PRIVATE_KEY);
  }

  block(): Block {
    return createBlock(
      { header: { number: this.number, coinbase: this.coinbase, baseFeePerGas: 0n, gasLimit: 30_000_000n, timestamp: 1_700_000_000n + this.number } },
      { common: this.common },
    );
  }

  private async run(tx: LegacyTx): Promise<TraceOutcome> {
    const r = await runTx(this.vm, { tx, block: this.block(), skipBlockGasLimitValidation: true });
    return {
      gasUsed: r.totalGasSpent,
      returnValue: r.execResult.returnValue,
      error: r.execResult.exceptionError?.error,
      createdAddress: r.createdAddress,
    };
  }

  /** Trace `tx` with each raw config (state rolled back after each), then execute it for real. */
  async traceAndSend(tx: LegacyTx, configs: unknown[]): Promise<{ results: unknown[]; outcome: TraceOutcome }> {
    const results: unknown[] = [];
    for (const raw of configs) {
      await this.vm.evm.journal.checkpoint();
      try {
        results.push(await this.traceOnly(tx, raw));
      } finally {
        await this.vm.evm.journal.revert();
      }
    }
    const outcome = await this.run(tx);
    this.nonce++;
    this.number++;
    return { results, outcome };
  }

  async traceOnly(tx: LegacyTx, raw: unknown, logIndexOffset?: number): Promise<unknown> {
    return traceRun(
      {
        vm: this.vm,
        run: () => this.run(tx),
        from: tx.getSenderAddress(),
        to: tx.to,
        value: tx.value,
        input: tx.data,
        gasLimit: tx.gasLimit,
        gasPrice: tx.gasPrice,
        type: tx.to === undefined ? 'CREATE' : 'CALL',
        coinbase: this.coinbase,
        logIndexOffset,
      },
      parseTraceConfig(raw),
    );
  }

  async send(spec: TxSpec): Promise<TraceOutcome> {
    const out = await this.run(this.tx(spec));
    this.nonce++;
    this.number++;
    return out;
  }
}

export function hex(b: Uint8Array): string {
  return bytesToHex(b);
}

/** Round-trip through JSON, as the RPC layer will. */
export function json(v: unknown): any {
  return JSON.parse(JSON.stringify(v));
}
