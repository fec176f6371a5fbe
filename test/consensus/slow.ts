/**
 * State-test files that take minutes each on this engine (measured on 2 cores), left out by
 * `--skip-slow` (CI, where the whole gate must fit its time budget) and run by
 * `npm run test:consensus`. ethereumjs's own runner skips the same kind of case as slow.
 */
export const SLOW = new Set<string>([
  // 4,294,967,295 rounds of the Blake2f precompile (10 billion gas).
  'stTimeConsuming/CALLBlake2f_MaxRounds.json',
  // Tight loops of tens of millions of steps.
  'VMTests/vmPerformance/loopExp.json',
  'VMTests/vmPerformance/loopMul.json',
  'VMTests/vmPerformance/performanceTester.json',
]);
