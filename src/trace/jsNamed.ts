/**
 * geth's named JavaScript tracers, by name: `unigramTracer`, `bigramTracer`, `trigramTracer`
 * (how often each opcode, pair and triple of successive opcodes ran), `opcountTracer` (how many
 * opcodes ran) and `evmdisTracer` (the opcodes of each call with the values each pushed). Written
 * here from their documented behaviour; they run as any JavaScript tracer does.
 */
import { pushCount } from './opcodes.js';

const counter = (keyExpr: string, remember: string, init: string) => `{
  hist: {},
  ${init}
  step: function (log, db) {
    var op = log.op.toString();
    var key = ${keyExpr};
    if (this.hist[key]) this.hist[key]++;
    else this.hist[key] = 1;
    ${remember}
  },
  fault: function (log, db) {},
  result: function (ctx) { return this.hist; }
}`;

const PUSHES = JSON.stringify(Object.fromEntries(Array.from({ length: 256 }, (_, i) => [i, pushCount(i)]).filter(([, n]) => n > 0)));

const EVMDIS = `{
  stack: [{ ops: [] }],
  npushes: ${PUSHES},
  step: function (log, db) {
    var frame = this.stack[this.stack.length - 1];
    var error = log.getError();
    if (error) { frame.error = error; return; }
    if (log.getDepth() != this.stack.length) { this.stack = this.stack.slice(0, log.getDepth()); frame = this.stack[this.stack.length - 1]; }
    var info = { op: log.op.toNumber(), depth: log.getDepth(), result: [] };
    if (frame.ops.length > 0) {
      var prev = frame.ops[frame.ops.length - 1];
      var n = this.npushes[prev.op] || 0;
      for (var i = 0; i < n && i < log.stack.length(); i++) prev.result.push(log.stack.peek(i).toString(16));
    }
    var name = log.op.toString();
    if (name == 'CALL' || name == 'CALLCODE' || name == 'DELEGATECALL' || name == 'STATICCALL') {
      var withValue = name == 'CALL' || name == 'CALLCODE';
      var at = log.stack.peek(withValue ? 3 : 2).valueOf();
      var size = log.stack.peek(withValue ? 4 : 3).valueOf();
      info.gas = log.stack.peek(0).valueOf();
      info.to = log.stack.peek(1).toString(16);
      if (withValue) info.value = log.stack.peek(2).toString();
      info.input = toHex(log.memory.slice(at, at + size));
      info.error = null;
      info['return'] = null;
      info.ops = [];
      frame.ops.push(info);
      this.stack.push(info);
      return;
    }
    if (name == 'RETURN' || name == 'REVERT') {
      var out = log.stack.peek(0).valueOf();
      var outSize = log.stack.peek(1).valueOf();
      frame['return'] = toHex(log.memory.slice(out, out + outSize));
    } else if (name == 'STOP' || name == 'SELFDESTRUCT') {
      frame['return'] = '0x';
    } else if (name == 'JUMPDEST') {
      info.pc = log.getPC();
    }
    if (log.op.isPush()) info.len = log.op.toNumber() - 0x5e;
    frame.ops.push(info);
  },
  fault: function (log, db) {},
  result: function (ctx) { return this.stack[0].ops; }
}`;

/** geth's named JavaScript tracers' sources by name. */
export const JS_TRACERS: Readonly<Record<string, string>> = Object.freeze({
  unigramTracer: counter('op', '', ''),
  bigramTracer: counter("this.lastOp + '-' + op", 'this.lastOp = op;', "lastOp: '',"),
  trigramTracer: counter("this.lastOps[0] + '-' + this.lastOps[1] + '-' + op", 'this.lastOps = [this.lastOps[1], op];', "lastOps: ['', ''],"),
  opcountTracer: `{
  count: 0,
  step: function (log, db) { this.count++; },
  fault: function (log, db) {},
  result: function (ctx, db) { return this.count; }
}`,
  evmdisTracer: EVMDIS,
});
