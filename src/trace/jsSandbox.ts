/**
 * The tracer's side of a JavaScript tracer run: geth's tracer API (the step log, `db`, frames,
 * `ctx`, the helpers) inside the sandbox's context, and the loop that takes the node's hooks from
 * shared memory (jsProtocol.ts) and calls the tracer's functions.
 *
 * `sandboxPrelude`'s source is evaluated inside the context (it must not refer to anything outside
 * itself). Every object a tracer can reach is made here, in the context's realm: the shared-memory
 * views and constants it is handed stay in this closure, so no value of the worker's realm (whose
 * Function could compile code with the worker's globals) is ever within a tracer's reach.
 */

/* eslint-disable */
export function sandboxPrelude(K: any, ctl: Int32Array, nums: Float64Array, bytes: Uint8Array, bigInt: any, opNames: string[], precompiles: string[], config: string): unknown {
  const { TURN, MSG, LEN, NODE_TURN, TRACER_TURN, PAYLOAD, C, R, Q, FRAME_TYPES } = K;
  const g: any = globalThis;
  // The API's own arrays, made with the constructor as it is before the byte guard (jsGuard.ts) replaces it.
  const U8 = Uint8Array;
  // The exchange's waits stay here: a tracer gets no way to block its thread or share memory.
  const A = Atomics;
  for (const name of ['Atomics', 'SharedArrayBuffer', 'WebAssembly']) delete g[name];
  const HEX: string[] = [];
  for (let i = 0; i < 256; i++) HEX.push((i < 16 ? '0' : '') + i.toString(16));

  // ------------------------------------------------------------ exchange
  function waitTurn(): void {
    let spins = 0;
    while (A.load(ctl, TURN) !== TRACER_TURN) {
      if (++spins > 20000) A.wait(ctl, TURN, NODE_TURN, 50);
    }
  }
  function send(kind: number, len: number): void {
    ctl[MSG] = kind;
    ctl[LEN] = len;
    A.store(ctl, TURN, NODE_TURN);
    A.notify(ctl, TURN);
  }
  function putBytes(b: ArrayLike<number>, at: number): number {
    for (let i = 0; i < b.length; i++) bytes[at + i] = b[i];
    return at + b.length;
  }
  function takeBytes(from: number, len: number): Uint8Array {
    const out = new U8(len);
    for (let i = 0; i < len; i++) out[i] = bytes[from + i];
    return out;
  }
  function utf8(s: string): number[] {
    let e: string;
    try {
      e = unescape(encodeURIComponent(s));
    } catch {
      e = s.replace(/[^\x00-\x7f]/g, '?');
    }
    const out: number[] = new Array(e.length);
    for (let i = 0; i < e.length; i++) out[i] = e.charCodeAt(i);
    return out;
  }
  function readString(from: number, len: number): string {
    let s = '';
    for (let i = 0; i < len; i++) s += String.fromCharCode(bytes[from + i]);
    try {
      return decodeURIComponent(escape(s));
    } catch {
      return s;
    }
  }
  /** Ask the node; returns the answer's payload length (the answer is in `bytes`, numbers in `nums`). */
  function request(code: number, a: number, b: number, payload?: ArrayLike<number>[]): number {
    nums[0] = code;
    nums[1] = a;
    nums[2] = b;
    let at = 0;
    if (payload !== undefined) for (const p of payload) at = putBytes(p, at);
    send(R.REQUEST, at);
    waitTurn();
    const len = ctl[LEN];
    if (nums[0] !== 0) throw new Error(readString(0, len));
    return len;
  }

  // ------------------------------------------------------------ buffers (geth's toBuf / fromBuf)
  function fromBuf(v: any, allowString: boolean): Uint8Array {
    if (typeof v === 'string' && allowString) {
      let h = v.startsWith('0x') || v.startsWith('0X') ? v.slice(2) : v;
      if (h.length % 2 === 1) h = '0' + h;
      const out = new U8(h.length / 2);
      for (let i = 0; i < out.length; i++) {
        const n = parseInt(h.substr(i * 2, 2), 16);
        out[i] = Number.isNaN(n) ? 0 : n;
      }
      return out;
    }
    if (v instanceof U8) return v;
    if (Array.isArray(v)) {
      const out = new U8(v.length);
      for (let i = 0; i < v.length; i++) out[i] = Number(v[i]) & 0xff;
      return out;
    }
    throw new Error('invalid buffer type');
  }
  function fixed(b: Uint8Array, n: number): Uint8Array {
    const out = new U8(n);
    if (b.length >= n) out.set(b.subarray(b.length - n));
    else out.set(b, n - b.length);
    return out;
  }
  function hexOf(b: Uint8Array): string {
    let s = '0x';
    for (let i = 0; i < b.length; i++) s += HEX[b[i]];
    return s;
  }
  function bytesOfHex(h: string): Uint8Array {
    return fromBuf(h, true);
  }
  function wordAt(from: number): any {
    let s = '';
    for (let i = 0; i < 32; i++) s += HEX[bytes[from + i]];
    return bigInt(s, 16);
  }

  // ------------------------------------------------------------ helpers
  const define = (name: string, value: unknown) => Object.defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
  define('bigInt', bigInt);
  define('toHex', (v: any) => hexOf(fromBuf(v, false)));
  define('toWord', (v: any) => fixed(fromBuf(v, true), 32));
  define('toAddress', (v: any) => fixed(fromBuf(v, true), 20));
  define('toContract', (from: any, nonce: any) => {
    const len = request(Q.CREATE, Number(nonce), 0, [fixed(fromBuf(from, true), 20)]);
    return takeBytes(0, len);
  });
  define('toContract2', (from: any, salt: any, initcode: any) => {
    const len = request(Q.CREATE2, 0, 0, [fixed(fromBuf(from, true), 20), fixed(bytesOfHex(String(salt)), 32), fromBuf(initcode, true)]);
    return takeBytes(0, len);
  });
  const precompileSet = new Set(precompiles);
  define('isPrecompiled', (v: any) => precompileSet.has(hexOf(fixed(fromBuf(v, true), 20))));
  define('slice', (v: any, start: any, end: any) => {
    const b = fromBuf(v, false);
    const s = Number(start);
    const e = Number(end);
    if (s < 0 || s > e || e > b.length) throw new Error('Tracer accessed out of bound memory: available ' + b.length + ', offset ' + s + ', size ' + (e - s));
    return b.slice(s, e);
  });

  // ------------------------------------------------------------ db
  const addr = (v: any) => fixed(fromBuf(v, false), 20);
  const db = {
    getBalance(a: any) {
      const len = request(Q.BALANCE, 0, 0, [addr(a)]);
      return bigInt(readString(0, len));
    },
    getNonce(a: any) {
      request(Q.NONCE, 0, 0, [addr(a)]);
      return nums[1];
    },
    getCode(a: any) {
      const len = request(Q.CODE, 0, 0, [addr(a)]);
      return takeBytes(0, len);
    },
    getState(a: any, slot: any) {
      const len = request(Q.STATE, 0, 0, [addr(a), fixed(fromBuf(slot, false), 32)]);
      return takeBytes(0, len);
    },
    exists(a: any) {
      request(Q.EXISTS, 0, 0, [addr(a)]);
      return nums[1] === 1;
    },
  };

  // ------------------------------------------------------------ the step log
  const cur = { op: 0, pc: 0, gas: 0, cost: 0, depth: 0, refund: 0, memLen: 0, stackLen: 0, frame: 0, step: 0, error: undefined as string | undefined };
  let stack: any[] | undefined;
  let stackStep = -1;
  /** Where the batched step's stack words and memory are in the payload (-1: ask the node). */
  let stackAt = -1;
  let memAt = -1;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let contract: { caller: Uint8Array; address: Uint8Array; value: any; input: Uint8Array } | undefined;
  let contractFrame = -1;
  function stackNow(): any[] {
    if (stackStep !== cur.step || stack === undefined) {
      const words: any[] = [];
      if (stackAt >= 0) for (let i = 0; i < cur.stackLen; i++) words.push(wordAt(stackAt + i * 32));
      else {
        const len = request(Q.STACK, 0, 0);
        for (let at = 0; at < len; at += 32) words.push(wordAt(at));
      }
      stack = words;
      stackStep = cur.step;
    }
    return stack;
  }
  function contractNow() {
    if (contractFrame !== cur.frame || contract === undefined) {
      const len = request(Q.CONTRACT, 0, 0);
      contract = { caller: takeBytes(0, 20), address: takeBytes(20, 20), value: wordAt(40), input: takeBytes(72, len - 72) };
      contractFrame = cur.frame;
    }
    return contract;
  }
  function memorySlice(begin: number, end: number): Uint8Array {
    const out = new U8(end - begin);
    if (memAt >= 0) {
      for (let i = begin; i < end && i < cur.memLen; i++) out[i - begin] = bytes[memAt + i];
      return out;
    }
    for (let at = begin; at < end; at += PAYLOAD) {
      const n = Math.min(PAYLOAD, end - at);
      const len = request(Q.MEMORY, at, n);
      for (let i = 0; i < len; i++) out[at - begin + i] = bytes[i];
    }
    return out;
  }
  const log = {
    op: {
      toNumber: () => cur.op,
      toString: () => opNames[cur.op],
      isPush: () => cur.op >= 0x5f && cur.op <= 0x7f,
    },
    stack: {
      peek(idx: any) {
        const i = Number(idx);
        if (!(i >= 0 && i < cur.stackLen)) throw new Error('tracer accessed out of bound stack: size ' + cur.stackLen + ', index ' + idx);
        const s = stackNow();
        return s[s.length - 1 - i];
      },
      length: () => cur.stackLen,
    },
    memory: {
      slice(begin: any, end: any) {
        const b = Number(begin);
        const e = Number(end);
        if (e === b) return new U8(0);
        if (e < b || b < 0) throw new Error('tracer accessed out of bound memory: offset ' + b + ', end ' + e);
        if (e - cur.memLen > 1024 * 1024) throw new Error('tracer reached limit for padding memory slice: end ' + e + ', memorySize ' + cur.memLen);
        return memorySlice(b, e);
      },
      getUint(a: any) {
        const at = Number(a);
        if (cur.memLen < at + 32 || at < 0) throw new Error('tracer accessed out of bound memory: available ' + cur.memLen + ', offset ' + at + ', size 32');
        const b = memorySlice(at, at + 32);
        return bigInt(hexOf(b).slice(2), 16);
      },
      length: () => cur.memLen,
    },
    contract: {
      getCaller: () => contractNow().caller.slice(),
      getAddress: () => contractNow().address.slice(),
      getValue: () => contractNow().value,
      getInput: () => contractNow().input.slice(),
    },
    getPC: () => cur.pc,
    getGas: () => cur.gas,
    getCost: () => cur.cost,
    getDepth: () => cur.depth,
    getRefund: () => cur.refund,
    getError: () => cur.error,
  };

  // ------------------------------------------------------------ frames
  const frameData: any = { type: '', from: new U8(20), to: new U8(20), input: new U8(0), gas: 0, value: undefined };
  const frame = {
    getType: () => frameData.type,
    getFrom: () => frameData.from.slice(),
    getTo: () => frameData.to.slice(),
    getInput: () => frameData.input.slice(),
    getGas: () => frameData.gas,
    getValue: () => frameData.value,
  };
  const resultData: any = { gasUsed: 0, output: new U8(0), error: undefined };
  const frameResult = {
    getGasUsed: () => resultData.gasUsed,
    getOutput: () => resultData.output.slice(),
    getError: () => resultData.error,
  };

  // ------------------------------------------------------------ the loop
  let tracer: any;
  function fail(e: unknown, where: string | undefined): void {
    let text: string;
    try {
      text = e instanceof Error ? String(e) : typeof e === 'string' ? e : String(e);
    } catch {
      text = 'tracer error';
    }
    const msg = where === undefined ? text : text + "    in server-side tracer function '" + where + "'";
    const b = utf8(msg);
    const n = Math.min(b.length, PAYLOAD);
    for (let i = 0; i < n; i++) bytes[i] = b[i];
    send(R.ERROR, n);
  }
  function fn(name: string): any {
    const f = tracer == null ? undefined : tracer[name];
    return typeof f === 'function' ? f : undefined;
  }
  function run(): void {
    delete g.__run;
    if (tracer === null || tracer === undefined) return fail(new TypeError('Cannot convert undefined or null to object'), undefined);
    if (fn('result') === undefined) return fail('trace object must expose a function result()', undefined);
    if (fn('fault') === undefined) return fail('trace object must expose a function fault()', undefined);
    const hasEnter = fn('enter') !== undefined;
    if (hasEnter !== (fn('exit') !== undefined)) return fail('trace object must expose either both or none of enter() and exit()', undefined);
    const setup = fn('setup');
    if (setup !== undefined) {
      try {
        setup.call(tracer, config);
      } catch (e) {
        return fail(e, undefined);
      }
    }
    nums[0] = fn('step') !== undefined ? 1 : 0;
    nums[1] = hasEnter ? 1 : 0;
    send(R.READY, 0);
    for (;;) {
      waitTurn();
      const kind = ctl[MSG];
      let where = '';
      try {
        if (kind === C.STOP) return;
        if (kind === C.STEPS) {
          where = 'step';
          const count = nums[0];
          const withStack = nums[1] === 1;
          const withMemory = nums[2] === 1;
          let at = 0;
          for (let k = 0; k < count; k++) {
            cur.op = view.getFloat64(at, true);
            cur.pc = view.getFloat64(at + 8, true);
            cur.gas = view.getFloat64(at + 16, true);
            cur.cost = view.getFloat64(at + 24, true);
            cur.depth = view.getFloat64(at + 32, true);
            cur.refund = view.getFloat64(at + 40, true);
            cur.memLen = view.getFloat64(at + 48, true);
            cur.stackLen = view.getFloat64(at + 56, true);
            cur.frame = view.getFloat64(at + 64, true);
            at += 72;
            stackAt = withStack ? at : -1;
            if (withStack) at += cur.stackLen * 32;
            memAt = withMemory ? at : -1;
            if (withMemory) at += cur.memLen;
            if (view.getFloat64(at, true) === 1) {
              const inputLen = view.getFloat64(at + 8, true);
              contract = { caller: takeBytes(at + 16, 20), address: takeBytes(at + 36, 20), value: wordAt(at + 56), input: takeBytes(at + 88, inputLen) };
              contractFrame = cur.frame;
              at += 88 + inputLen;
            } else at += 8;
            cur.step++;
            cur.error = undefined;
            tracer.step(log, db);
          }
          stackAt = -1;
          memAt = -1;
        } else if (kind === C.STEP) {
          where = 'step';
          cur.op = nums[0];
          cur.pc = nums[1];
          cur.gas = nums[2];
          cur.cost = nums[3];
          cur.depth = nums[4];
          cur.refund = nums[5];
          cur.memLen = nums[6];
          cur.stackLen = nums[7];
          cur.frame = nums[8];
          cur.step++;
          cur.error = undefined;
          tracer.step(log, db);
        } else if (kind === C.FAULT) {
          where = 'fault';
          cur.error = readString(0, ctl[LEN]);
          tracer.fault(log, db);
        } else if (kind === C.ENTER) {
          where = 'enter';
          const len = ctl[LEN];
          frameData.type = FRAME_TYPES[nums[0]];
          frameData.gas = nums[1];
          frameData.from = takeBytes(0, 20);
          frameData.to = takeBytes(20, 20);
          frameData.value = nums[2] === 1 ? wordAt(40) : undefined;
          frameData.input = takeBytes(72, len - 72);
          tracer.enter(frame);
        } else if (kind === C.EXIT) {
          where = 'exit';
          const len = ctl[LEN];
          const errLen = nums[1];
          resultData.gasUsed = nums[0];
          resultData.error = errLen >= 0 ? readString(0, errLen) : undefined;
          resultData.output = takeBytes(Math.max(errLen, 0), len - Math.max(errLen, 0));
          tracer.exit(frameResult);
        } else if (kind === C.RESULT) {
          where = 'result';
          const raw = JSON.parse(readString(0, ctl[LEN]));
          const ctx: any = {};
          for (const k of Object.keys(raw)) {
            const v = raw[k];
            if (k === 'value' || k === 'gasPrice') ctx[k] = bigInt(v);
            else if (typeof v === 'string' && v.startsWith('0x') && k !== 'time') ctx[k] = bytesOfHex(v);
            else ctx[k] = v;
          }
          const res = tracer.result(ctx, db);
          const text = JSON.stringify(res === undefined ? null : res);
          const b = utf8(text === undefined ? 'null' : text);
          let at = 0;
          do {
            const n = Math.min(PAYLOAD, b.length - at);
            for (let i = 0; i < n; i++) bytes[i] = b[at + i];
            at += n;
            if (at < b.length) {
              send(R.CHUNK, n);
              waitTurn();
            } else send(R.END, n);
          } while (at < b.length);
          return;
        }
      } catch (e) {
        return fail(e, where);
      }
      send(R.DONE, 0);
    }
  }
  Object.defineProperty(g, '__run', { value: run, configurable: true, enumerable: false });
  return function setTracer(t: any) {
    tracer = t;
  };
}
