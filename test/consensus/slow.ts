/**
 * State-test files that take from tens of seconds to many minutes each on this engine (measured
 * on 2 cores), left out by `--skip-slow` (CI, where the whole gate must fit its time budget) and
 * run by `npm run test:consensus`. ethereumjs's own runner skips the same kinds of case as slow.
 */
const SLOW_PATTERNS: Array<[RegExp, string]> = [
  // Blake2f with 4,294,967,295 rounds, and the sstore_combinations sweeps (hundreds of cases each).
  [/^stTimeConsuming\//, 'named so upstream: minutes of work'],
  // Tight loops of tens of millions of steps.
  [/^VMTests\/vmPerformance\//, 'performance loops'],
  // 50,000 calls or returns in one transaction (quadratic-complexity checks).
  [/^(stQuadraticComplexityTest|stStaticCall)\/.*50000/, '50,000 calls or returns each'],
];

/** Whether a file (path below GeneralStateTests) is one of the marked slow ones. */
export function isSlow(file: string): boolean {
  return SLOW_PATTERNS.some(([re]) => re.test(file));
}
