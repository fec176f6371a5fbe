/**
 * The shared-memory exchange between the node and a JavaScript tracer's worker (jsTracer.ts, the
 * node's side; jsSandbox.ts, the tracer's side). One side acts at a time: `TURN` says whose turn it
 * is, `MSG` what was sent, `LEN` how many payload bytes; numbers go in `NUMS`, bytes in the
 * payload. The node sends a hook (step, fault, enter, exit, result) and serves the tracer's
 * requests (stack, memory, contract, state, addresses) until the tracer answers done or error.
 */

/** Int32 slots. */
export const TURN = 0;
export const MSG = 1;
export const LEN = 2;
/** TURN values. */
export const NODE_TURN = 0;
export const TRACER_TURN = 1;

/** Byte offsets of the regions. */
export const NUMS_AT = 64;
export const NUMS = 16;
export const PAYLOAD_AT = NUMS_AT + NUMS * 8;
/** Payload bytes (a larger memory slice or result goes in several exchanges). */
export const PAYLOAD = 1 << 20;
export const SAB_BYTES = PAYLOAD_AT + PAYLOAD;

/** Node → tracer. */
export const C = {
  STEP: 1,
  FAULT: 2,
  ENTER: 3,
  EXIT: 4,
  RESULT: 5,
  ANSWER: 6,
  MORE: 7,
  /** The trace is over without a result (it failed on the node's side): end the loop. */
  STOP: 8,
  /** Several steps at once (a tracer whose step reads nothing but the step's own fields and stack). */
  STEPS: 9,
} as const;

/** A batched step: 9 float64 fields (op, pc, gas, cost, depth, refund, memory length, stack length, frame id), then the stack's words (32 bytes each) when the batch carries stacks. */
export const STEP_FIELDS = 9;

/** Tracer → node. */
export const R = {
  READY: 10,
  DONE: 11,
  REQUEST: 12,
  ERROR: 13,
  CHUNK: 14,
  END: 15,
} as const;

/** What a tracer asks for while a hook runs. */
export const Q = {
  STACK: 1,
  MEMORY: 2,
  CONTRACT: 3,
  BALANCE: 4,
  NONCE: 5,
  CODE: 6,
  STATE: 7,
  EXISTS: 8,
  CREATE: 9,
  CREATE2: 10,
} as const;

/** Frame types by the index ENTER sends. */
export const FRAME_TYPES = ['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT'] as const;

export type Constants = {
  TURN: number;
  MSG: number;
  LEN: number;
  NODE_TURN: number;
  TRACER_TURN: number;
  PAYLOAD: number;
  C: typeof C;
  R: typeof R;
  Q: typeof Q;
  FRAME_TYPES: readonly string[];
};

export const CONSTANTS: Constants = { TURN, MSG, LEN, NODE_TURN, TRACER_TURN, PAYLOAD, C, R, Q, FRAME_TYPES };
