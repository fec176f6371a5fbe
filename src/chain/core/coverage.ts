/**
 * Coverage recording: which instructions of the user's contracts ran, counted per program
 * counter, and for each JUMPI how often it jumped. The chain only counts; what the counts mean
 * in Solidity (statements, branches, functions, lines) is worked out outside it, from the
 * artifacts' source maps and ASTs. A node without a recorder attaches no hooks at all.
 */

/** The counters of one piece of code (runtime code, or init code for constructors). */
export interface CodeCounters {
  /** Executions of the instruction at each program counter. */
  readonly hits: Uint32Array;
  /** Times the JUMPI at each program counter jumped (it fell through `hits - jumped` times). */
  readonly jumped: Uint32Array;
}

/** Where executions are counted; implemented outside the chain (src/coverage). */
export interface CoverageRecorder {
  /** The counters of `code` (`create`: init code, constructor arguments may follow); undefined when it has no source. */
  counters(code: Uint8Array, create: boolean): CodeCounters | undefined;
}
