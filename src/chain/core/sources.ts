/**
 * Where executing code is in its Solidity source. The chain does not read compiler output: a
 * `SourceLocator` built from the user's artifacts (src/artifacts) is handed to the node, which asks
 * it only after an execution failed, so successful calls and unknown code cost nothing.
 */

/** A program counter's place in the source. */
export interface SourceLocation {
  /** The contract whose source text holds the location (`Thrower`), when known. */
  readonly contract?: string;
  /** The enclosing function, modifier or `constructor`, when the location is inside one. */
  readonly function?: string;
  /** Source unit name as compiled (`contracts/Thrower.sol`). */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly column: number;
  /** The source line itself. */
  readonly text: string;
}

/** The source of one piece of code (runtime or creation code of one artifact). */
export interface CodeSource {
  /** The artifact's contract name (the frame's contract, even when the location is in a base contract). */
  readonly name: string;
  /** Whether `pc` maps into a user's source file (not compiler-generated code, not unmapped). */
  inSource(pc: number): boolean;
  locate(pc: number): SourceLocation | undefined;
  /** The jump kind solc noted for the instruction at `pc`: `i` into a function, `o` out of one, `-` other. */
  jump(pc: number): string;
  /** An id of the function (or contract body) around `pc`'s source; equal ids, same function. */
  scope(pc: number): number;
}

/** Source lookup for code the node runs; implemented outside the chain. */
export interface SourceLocator {
  /** Contracts with a usable source map: none means failures are never re-run. */
  readonly mapped: number;
  /** The source of runtime code (`create` false) or of init code (`create` true; constructor arguments may follow). */
  code(code: Uint8Array, create: boolean): CodeSource | undefined;
  /** A custom error's name and arguments (`Bad(0xf39f…, 7)`), from the ABIs; undefined when unknown. */
  describeError(data: Uint8Array, contract?: string): string | undefined;
  /** Lines `line - radius … line + radius` of `file`. */
  snippet(file: string, line: number, radius: number): Array<{ line: number; text: string }>;
}

/** One frame of a Solidity stack trace, innermost first in a `SourceStack`. */
export interface SourceFrame {
  readonly contract: string;
  readonly address: string | undefined;
  /** The program counter the location is for (the failing opcode, or the call the frame made). */
  readonly pc: number;
  readonly location: SourceLocation | undefined;
}

/** The Solidity stack of a failed execution. */
export interface SourceStack {
  /** Innermost first; only frames whose code has source. */
  readonly frames: SourceFrame[];
  /** What went wrong in the innermost frame: `revert`, `out of gas`, `invalid opcode`, … */
  readonly error: string;
  /** The innermost frame's revert data. */
  readonly data: Uint8Array;
  /** The innermost failing frame called an address holding no code (Solidity's extcodesize check). */
  readonly noCode?: string;
}
