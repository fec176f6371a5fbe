/**
 * The logs of eth_simulateV1's calls, numbered as geth numbers them, and with `traceTransfers` the
 * ether transfers among them as ERC-20 `Transfer` logs of the address 0xeeee…eeee.
 */
import type { InterpreterStep, Message, EVMResult } from '@ethereumjs/evm';
import { Address, bigIntToBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import type { RawLog } from '../core/types.js';

/** The address transfer logs are emitted from, and their topic (keccak of `Transfer(address,address,uint256)`). */
const TRANSFER_EMITTER = hexToBytes('0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee');
const TRANSFER_TOPIC = hexToBytes('0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');

/**
 * Follows a call's frames to number its logs as geth does: its simulated block counts every log
 * emitted, those of frames that then fail included, and with `traceTransfers` places ether
 * transfers among the logs. A frame's log opcodes and sub-calls are recorded in order; frames that
 * fail drop out with their logs and transfers, their numbers spent.
 */
export class LogTrace {
  private readonly stack: Frame[] = [];
  /** The frame whose last step was a log opcode (until its next step): a failure there is that log's. */
  private logFrame: Frame | undefined;
  root: Frame | undefined;

  constructor(private readonly transfers: boolean) {}

  readonly onMessage = (m: Message): void => {
    const frame: Frame = { items: [], ok: true };
    if (this.transfers && m.value > 0n && !m.delegatecall) frame.transfer = { from: m.caller, to: m.to, value: m.value };
    const parent = this.stack[this.stack.length - 1];
    if (parent) parent.items.push(frame);
    else this.root = frame;
    this.stack.push(frame);
  };

  readonly onResult = (r: EVMResult): void => {
    const frame = this.stack.pop();
    if (!frame) return;
    frame.ok = r.execResult.exceptionError === undefined;
    // A log opcode that failed (out of gas) emitted nothing.
    if (!frame.ok && this.logFrame === frame) frame.items.pop();
    this.logFrame = undefined;
    if (frame.transfer && frame.transfer.to === undefined) frame.transfer.to = r.createdAddress;
  };

  readonly onStep = (s: InterpreterStep): void => {
    const frame = this.stack[this.stack.length - 1];
    this.logFrame = undefined;
    // LOG0..LOG4 add one log to their frame.
    if (s.opcode.code >= 0xa0 && s.opcode.code <= 0xa4) {
      frame?.items.push('log');
      this.logFrame = frame;
    }
    // SELFDESTRUCT sends the frame's whole balance to the address on top of the stack (a transfer log too, as geth's).
    else if (this.transfers && s.opcode.code === 0xff && s.account.balance > 0n) {
      const to = new Address(setLengthLeft(bigIntToBytes(s.stack[s.stack.length - 1]), 32).subarray(12));
      frame?.items.push({ items: [], ok: true, transfer: { from: s.address, to, value: s.account.balance } });
    }
  };

  /**
   * The call's surviving logs in emission order, transfer logs placed where the transfers
   * happened, each with its number among all the logs the call emitted (`emitted`).
   */
  merge(real: RawLog[]): { logs: Array<{ log: RawLog; at: number }>; emitted: number } {
    const logs: Array<{ log: RawLog; at: number }> = [];
    let next = 0;
    let emitted = 0;
    const walk = (f: Frame, kept: boolean) => {
      if (f.transfer?.to) {
        if (kept) logs.push({ log: transferLog(f.transfer.from, f.transfer.to, f.transfer.value), at: emitted });
        emitted++;
      }
      for (const item of f.items) {
        if (item !== 'log') walk(item, kept && item.ok);
        else {
          if (kept && next < real.length) logs.push({ log: real[next++], at: emitted });
          emitted++;
        }
      }
    };
    if (this.root) walk(this.root, this.root.ok);
    while (next < real.length) logs.push({ log: real[next++], at: emitted++ });
    return { logs, emitted };
  }
}

interface Frame {
  transfer?: { from: Address; to?: Address; value: bigint };
  items: Array<'log' | Frame>;
  ok: boolean;
}

function transferLog(from: Address, to: Address, value: bigint): RawLog {
  return [TRANSFER_EMITTER, [TRANSFER_TOPIC, setLengthLeft(from.bytes, 32), setLengthLeft(to.bytes, 32)], setLengthLeft(bigIntToBytes(value), 32)];
}

/** A call's surviving logs, each with its number among those it emitted, and how many it emitted. */
export type TracedLogs = ReturnType<LogTrace['merge']>;
