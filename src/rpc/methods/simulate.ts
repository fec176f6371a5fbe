/** eth_simulateV1 (execution-apis): params to the node's simulation, blocks and call results to JSON. */
import type { Calls } from '../../chain/api.js';
import type { SimBlock, SimBlockSpec } from '../../chain/exec/simulate.js';
import { LATEST, type BlockOverrides } from '../../chain/core/types.js';
import { formatBlock } from '../../format/block.js';
import { hex, qty } from '../../format/hex.js';
import { formatLog } from '../../format/log.js';
import { address, arrayOf, blockId, bool, hash32, optional, quantity, struct, uint64, type Codec } from '../codecs.js';
import { invalidParams } from '../errors.js';
import { callRequest, stateOverrides } from '../params.js';
import { method, type MethodDef } from '../registry.js';

const withdrawal = struct({ index: uint64, validatorIndex: uint64, address, amount: uint64 }, 'withdrawal');

const blockOverrides: Codec<BlockOverrides> = struct(
  {
    number: optional(uint64),
    time: optional(uint64),
    gasLimit: optional(uint64),
    feeRecipient: optional(address),
    prevRandao: optional(hash32),
    baseFeePerGas: optional(quantity),
    blobBaseFee: optional(quantity),
    withdrawals: optional(arrayOf(withdrawal)),
  },
  'block overrides',
);

const blockStateCall = struct({ blockOverrides: optional(blockOverrides), stateOverrides, calls: optional(arrayOf(callRequest), []) }, 'block state call');

const payload: Codec<{ blockStateCalls: SimBlockSpec[]; validation: boolean; traceTransfers: boolean; returnFullTransactions: boolean }> = {
  type: 'simulation payload',
  parse(value, where) {
    const p = struct(
      {
        blockStateCalls: arrayOf(blockStateCall),
        validation: optional(bool, false),
        traceTransfers: optional(bool, false),
        returnFullTransactions: optional(bool, false),
      },
      'simulation payload',
    ).parse(value, where);
    if (p.blockStateCalls.length === 0) throw invalidParams(`invalid argument ${where}.blockStateCalls: empty list of blocks`);
    return p as typeof p & { blockStateCalls: SimBlockSpec[] };
  },
};

function formatSimBlock(b: SimBlock, fullTxs: boolean): object {
  return {
    ...formatBlock(b.stored, fullTxs),
    calls: b.calls.map((c) => {
      const out: Record<string, unknown> = {
        status: qty(c.status),
        returnData: hex(c.returnData),
        gasUsed: qty(c.gasUsed),
        maxUsedGas: qty(c.maxUsedGas),
        logs: c.logs.map(({ log, index }) => formatLog(c.tx, log, index)),
      };
      if (c.error) out.error = c.error.data === undefined ? { code: c.error.code, message: c.error.message } : { code: c.error.code, message: c.error.message, data: hex(c.error.data) };
      return out;
    }),
  };
}

export function simulateMethods(node: Calls): MethodDef[] {
  return [
    /** Blocks of calls with block and state overrides, each block seeing the last; nothing is kept. */
    method('eth_simulateV1', [payload, optional(blockId, LATEST)], async (p, b) => {
      const blocks = await node.simulate(p.blockStateCalls, { validation: p.validation, traceTransfers: p.traceTransfers }, b);
      return blocks.map((blk) => formatSimBlock(blk, p.returnFullTransactions));
    }),
  ];
}
