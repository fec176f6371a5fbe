/**
 * node_coverage / node_resetCoverage (--coverage) and node_gasReport / node_resetGasReport
 * (--gas-report): the reports read and reset while the node runs, so a runner can collect them
 * per test file or per worker. Registered on a node started with either flag; the report not
 * asked for answers that it is off.
 */
import { coverageIn, type CoverageFormat, type Reports } from '../../coverage/index.js';
import { optional, string } from '../codecs.js';
import { ChainError } from '../../chain/core/errors.js';
import { invalidParams } from '../errors.js';
import { method, type MethodDef } from '../registry.js';

const FORMATS: readonly CoverageFormat[] = ['istanbul', 'lcov', 'summary', 'source'];

function off(flag: string): never {
  throw new ChainError(`${flag} is off: start the node with ${flag}`);
}

export function reportMethods(reports: Reports): MethodDef[] {
  return [
    method('node_coverage', [optional(string, 'istanbul')], (format) => {
      if (!FORMATS.includes(format as CoverageFormat)) throw invalidParams(`invalid argument 0: format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
      const coverage = reports.coverage ?? off('--coverage');
      return coverageIn(coverage, format as CoverageFormat);
    }),
    method('node_resetCoverage', [], () => {
      (reports.coverage ?? off('--coverage')).reset();
      return true;
    }),
    method('node_gasReport', [], () => (reports.gas ?? off('--gas-report')).report()),
    method('node_resetGasReport', [], () => {
      (reports.gas ?? off('--gas-report')).reset();
      return true;
    }),
  ];
}
