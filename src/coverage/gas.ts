/**
 * The gas report: for every mined transaction into a contract the artifacts know, the receipt's
 * gasUsed under its contract and function (the selector decoded from the ABIs; a call into an
 * EIP-1967 proxy counted under its implementation), and every deployment's gas and runtime code
 * size against EIP-170's limit. Only successful transactions count, as in hardhat-gas-reporter.
 */
import type { Artifacts } from '../artifacts/artifacts.js';

/** EIP-170: the most runtime code a contract may have. */
export const CODE_SIZE_LIMIT = 24_576;
/** EIP-1967's implementation slot: keccak256('eip1967.proxy.implementation') - 1. */
const IMPLEMENTATION_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbcn;

/** One mined transaction as the report needs it. */
export interface GasTx {
  readonly block: bigint;
  /** Lowercase 0x address; undefined for a deployment. */
  readonly to: string | undefined;
  readonly data: Uint8Array;
  readonly gasUsed: bigint;
  readonly success: boolean;
  /** The deployed contract's address (deployments). */
  readonly created: string | undefined;
}

/** State reads at a block (after it). */
export interface GasReads {
  code(address: string, block: bigint): Promise<Uint8Array>;
  storage(address: string, slot: bigint, block: bigint): Promise<Uint8Array>;
}

export interface MethodGas {
  readonly selector: string;
  readonly calls: number;
  readonly min: number;
  readonly max: number;
  readonly avg: number;
  readonly median: number;
}

export interface Deployment {
  readonly address: string;
  readonly gas: number;
  readonly codeSize: number;
  /** Runtime code size as a percentage of EIP-170's limit. */
  readonly percentOfLimit: number;
}

export interface GasReportJson {
  readonly codeSizeLimit: number;
  readonly contracts: Record<string, { methods: Record<string, MethodGas>; deployments: Deployment[] }>;
}

const hex = (b: Uint8Array) => {
  let s = '0x';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
};

export class GasReport {
  private readonly methods = new Map<string, Map<string, { selector: string; gas: number[] }>>();
  private readonly deployments = new Map<string, Deployment[]>();
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly artifacts: Artifacts,
    private readonly reads: GasReads,
  ) {}

  /** Count mined transactions (in order; read back after `report` awaits them). */
  add(txs: readonly GasTx[]): void {
    if (txs.length === 0) return;
    this.queue = this.queue.then(async () => {
      for (const tx of txs) await this.one(tx).catch(() => undefined);
    });
  }

  reset(): void {
    this.queue = this.queue.then(() => {
      this.methods.clear();
      this.deployments.clear();
    });
  }

  private async name(address: string, block: bigint): Promise<string | undefined> {
    const code = await this.reads.code(address, block);
    return code.length === 0 ? undefined : this.artifacts.match(hex(code))?.name;
  }

  private async one(tx: GasTx): Promise<void> {
    if (!tx.success) return;
    if (tx.to === undefined) {
      if (tx.created === undefined) return;
      const code = await this.reads.code(tx.created, tx.block);
      const name = code.length === 0 ? undefined : this.artifacts.match(hex(code))?.name;
      if (name === undefined) return;
      const list = this.deployments.get(name) ?? [];
      list.push({ address: tx.created, gas: Number(tx.gasUsed), codeSize: code.length, percentOfLimit: Math.round((code.length / CODE_SIZE_LIMIT) * 10000) / 100 });
      this.deployments.set(name, list);
      return;
    }
    if (tx.data.length < 4) return;
    const data = hex(tx.data);
    let contract = await this.name(tx.to, tx.block);
    let decoded = this.artifacts.decodeCall(data, contract);
    if (decoded === undefined || decoded.contract !== contract) {
      // A proxy: the function is its implementation's.
      const slot = await this.reads.storage(tx.to, IMPLEMENTATION_SLOT, tx.block);
      const impl = '0x' + hex(slot).slice(-40);
      if (/[1-9a-f]/.test(impl.slice(2))) {
        const implName = await this.name(impl, tx.block);
        if (implName !== undefined) {
          contract = implName;
          decoded = this.artifacts.decodeCall(data, implName) ?? decoded;
        }
      }
    }
    if (contract === undefined || decoded === undefined) return;
    const selector = data.slice(0, 10);
    const per = this.methods.get(contract) ?? new Map<string, { selector: string; gas: number[] }>();
    this.methods.set(contract, per);
    // Overloads share a name: the later ones are told apart by their selector.
    let key = decoded.name;
    const taken = per.get(key);
    if (taken && taken.selector !== selector) key = `${decoded.name}(${selector})`;
    const entry = per.get(key) ?? { selector, gas: [] };
    entry.gas.push(Number(tx.gasUsed));
    per.set(key, entry);
  }

  /** The report as it stands, once every mined transaction so far is counted. */
  async report(): Promise<GasReportJson> {
    await this.queue;
    const contracts: GasReportJson['contracts'] = {};
    const names = [...new Set([...this.methods.keys(), ...this.deployments.keys()])].sort();
    for (const name of names) {
      const methods: Record<string, MethodGas> = {};
      for (const [fn, { selector, gas }] of [...(this.methods.get(name) ?? new Map<string, { selector: string; gas: number[] }>())].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
        const sorted = [...gas].sort((a, b) => a - b);
        const mid = sorted.length >> 1;
        const median = sorted.length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
        methods[fn] = { selector, calls: gas.length, min: sorted[0]!, max: sorted[sorted.length - 1]!, avg: Math.round(gas.reduce((a, b) => a + b, 0) / gas.length), median };
      }
      contracts[name] = { methods, deployments: this.deployments.get(name) ?? [] };
    }
    return { codeSizeLimit: CODE_SIZE_LIMIT, contracts };
  }
}

/** The report as a plain-text table: methods, then deployments. */
export function gasTable(r: GasReportJson): string {
  const rows: string[][] = [['Contract', 'Method', 'Calls', 'Min', 'Max', 'Avg', 'Median']];
  for (const [name, c] of Object.entries(r.contracts)) {
    for (const [fn, m] of Object.entries(c.methods)) rows.push([name, fn, String(m.calls), String(m.min), String(m.max), String(m.avg), String(m.median)]);
  }
  const deploys: string[][] = [['Deployment', 'Address', 'Gas', 'Size (bytes)', '% of 24576']];
  for (const [name, c] of Object.entries(r.contracts)) {
    for (const d of c.deployments) deploys.push([name, d.address, String(d.gas), String(d.codeSize), `${d.percentOfLimit} %`]);
  }
  return render(rows, 2) + '\n' + render(deploys, 2);
}

function render(rows: string[][], textColumns: number): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i < textColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n') + '\n';
}
