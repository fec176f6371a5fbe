/**
 * --coverage and --gas-report in createNode: the reports made from the options and the
 * artifacts, the mined transactions the gas report is given, and what is written and printed
 * when the node closes.
 */
import type { Artifacts } from '../artifacts/artifacts.js';
import { Artifacts as NoArtifacts } from '../artifacts/artifacts.js';
import type { DevNode } from '../chain/node.js';
import type { MinedTx } from '../chain/core/types.js';
import { Coverage, GasReport, writeCoverage, writeGasReport, type GasTx, type Reports } from '../coverage/index.js';
import { createAddressFromString } from '@ethereumjs/util';
import type { CheckedOptions } from './options.js';

const at = (block: bigint) => ({ kind: 'number' as const, number: block });

/** The reports the options ask for; undefined when neither is on. */
export function openReports(o: CheckedOptions, artifacts: Artifacts | undefined, chain: () => DevNode | undefined, warn: (line: string) => void): Reports | undefined {
  const wantCoverage = o.coverage !== undefined && o.coverage !== false;
  const wantGas = o.gasReport !== undefined && o.gasReport !== false;
  if (!wantCoverage && !wantGas) return undefined;
  const known = artifacts ?? new NoArtifacts();
  let coverage: Coverage | undefined;
  if (wantCoverage) {
    coverage = new Coverage(known.sources);
    if (coverage.files === 0) warn('coverage: no Solidity file with an AST in the artifacts (Hardhat build-info, or forge build --ast): nothing will be covered');
  }
  let gas: GasReport | undefined;
  if (wantGas) {
    gas = new GasReport(known, {
      code: (address, block) => chain()!.getCode(createAddressFromString(address), at(block)),
      storage: (address, slot, block) => chain()!.getStorageAt(createAddressFromString(address), slot, at(block)),
    });
  }
  return { coverage, gas };
}

/** A mined transaction as the gas report reads it. */
export function gasTx(m: MinedTx): GasTx {
  return {
    block: m.block.number,
    to: m.tx.to?.toString(),
    data: m.tx.data,
    gasUsed: m.receipt.gasUsed,
    success: m.receipt.status === 1,
    created: m.receipt.contractAddress?.toString(),
  };
}

/** On close: coverage files and the gas report's JSON written, their tables printed to `out`. */
export async function writeReports(o: CheckedOptions, reports: Reports | undefined, out: ((line: string) => void) | undefined): Promise<void> {
  if (reports === undefined) return;
  if (reports.coverage !== undefined) {
    const dir = typeof o.coverage === 'string' ? o.coverage : undefined;
    if (dir !== undefined) {
      try {
        const table = await writeCoverage(reports.coverage, dir);
        out?.(`Coverage (lcov.info, coverage-final.json in ${dir}):\n${table}`);
      } catch (err) {
        throw new Error(`cannot write coverage to ${dir}: ${(err as Error).message}`);
      }
    }
  }
  if (reports.gas !== undefined) {
    const file = typeof o.gasReport === 'string' ? o.gasReport : undefined;
    try {
      const table = await writeGasReport(reports.gas, file);
      out?.(`Gas report${file !== undefined ? ` (JSON in ${file})` : ''}:\n${table}`);
    } catch (err) {
      throw new Error(`cannot write the gas report to ${file}: ${(err as Error).message}`);
    }
  }
}
