/**
 * geth's named JavaScript tracers, by name: `unigramTracer`, `bigramTracer`, `trigramTracer`
 * (how often each opcode, pair and triple of successive opcodes ran), `opcountTracer` (how many
 * opcodes ran) and `evmdisTracer` (the opcodes of each call with the values each pushed). Written
 * here from their documented behaviour (the n-gram counters count within one call depth); they
 * run as any JavaScript tracer does.
 */
import { pushCount } from './opcodes.js';

const UNIGRAM = `{
  hist: {},
  nops: 0,
  step: function (log, db) {
    var op = log.op.toString();
    this.hist[op] = (this.hist[op] || 0) + 1;
    this.nops++;
  },
  fault: function (log, db) {},
  result: function (ctx) { return this.hist; }
}`;

// A pair is counted only within one call depth: the first step of a frame, and the first step
// after a frame returns, start over.
const BIGRAM = `{
  hist: {},
  lastOp: '',
  lastDepth: 0,
  step: function (log, db) {
    var op = log.op.toString();
    var depth = log.getDepth();
    if (depth === this.lastDepth) {
      var key = this.lastOp + '-' + op;
      this.hist[key] = (this.hist[key] || 0) + 1;
    }
    this.lastOp = op;
    this.lastDepth = depth;
  },
  fault: function (log, db) {},
  result: function (ctx) { return this.hist; }
}`;

// A change of depth clears the last two opcodes, and that step is not counted.
const TRIGRAM = `{
  hist: {},
  lastOps: ['', ''],
  lastDepth: 0,
  step: function (log, db) {
    var depth = log.getDepth();
    if (depth !== this.lastDepth) {
      this.lastOps = ['', ''];
      this.lastDepth = depth;
      return;
    }
    var op = log.op.toString();
    var key = this.lastOps[0] + '-' + this.lastOps[1] + '-' + op;
    this.hist[key] = (this.hist[key] || 0) + 1;
    this.lastOps = [this.lastOps[1], op];
  },
  fault: function (log, db) {},
  result: function (ctx) { return this.hist; }
}`;

const PUSHES = JSON.stringify(Object.fromEntries(Array.from({ length: 256 }, (_, i) => [i, pushCount(i)]).filter(([, n]) => n > 0)));

// One list of opcodes per call frame, each with what it pushed (read at the frame's next step); a
// call opens a frame of its own. The step where the depth changes is not listed.
const EVMDIS = `{
  stack: [{ ops: [] }],
  npushes: ${PUSHES},
  step: function (log, db) {
    var frame = this.stack[this.stack.length - 1];
    var error = log.getError();
    if (error) { frame.error = error; return; }
    if (log.getDepth() !== this.stack.length) { this.stack = this.stack.slice(0, log.getDepth()); return; }
    var info = { op: log.op.toNumber(), depth: log.getDepth(), result: [] };
    if (frame.ops.length > 0) {
      var prev = frame.ops[frame.ops.length - 1];
      for (var i = 0; i < (this.npushes[prev.op] || 0); i++) prev.result.push(log.stack.peek(i).toString(16));
    }
    var name = log.op.toString();
    if (name === 'CALL' || name === 'CALLCODE' || name === 'DELEGATECALL' || name === 'STATICCALL') {
      var withValue = name === 'CALL' || name === 'CALLCODE';
      var at = log.stack.peek(withValue ? 3 : 2).valueOf();
      var size = log.stack.peek(withValue ? 4 : 3).valueOf();
      if (!withValue) info.op = name;
      info.gas = log.stack.peek(0).valueOf();
      info.to = log.stack.peek(1).toString(16);
      if (withValue) info.value = log.stack.peek(2).toString();
      info.input = log.memory.slice(at, at + size);
      info.error = null;
      info['return'] = null;
      info.ops = [];
      this.stack.push(info);
    } else if (name === 'RETURN' || name === 'REVERT') {
      var out = log.stack.peek(0).valueOf();
      frame['return'] = log.memory.slice(out, out + log.stack.peek(1).valueOf());
    } else if (name === 'STOP' || name === 'SELFDESTRUCT') {
      frame['return'] = log.memory.slice(0, 0);
    } else if (name === 'JUMPDEST') {
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
  unigramTracer: UNIGRAM,
  bigramTracer: BIGRAM,
  trigramTracer: TRIGRAM,
  opcountTracer: `{
  count: 0,
  step: function (log, db) { this.count++; },
  fault: function (log, db) {},
  result: function (ctx, db) { return this.count; }
}`,
  evmdisTracer: EVMDIS,
});
