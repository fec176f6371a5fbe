/**
 * The `bigInt` of geth's JavaScript tracers: geth's engine (goja) has no native BigInt, so it
 * loads the big-integer library and hands tracers its objects for every 256-bit value (stack
 * words, balances, call values, `ctx.value`, `ctx.gasPrice`). Tracers written for geth call its
 * methods (`add`, `toString(16)`, `gt`, …) and `bigInt(x)`. This is the same interface over
 * JavaScript's BigInt, written for the tracer's sandbox: the function's source is evaluated inside
 * the sandbox's context (it must not refer to anything outside itself).
 */

/* eslint-disable */
export function sandboxBigInt(): unknown {
  function toBig(v: any, base?: any): bigint {
    if (v instanceof (Big as any)) return v.v;
    if (typeof v === 'bigint') return v;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new Error('Invalid integer: ' + v);
      return BigInt(Math.trunc(v));
    }
    if (v === undefined) return 0n;
    let s = String(v).trim();
    let neg = false;
    if (s[0] === '-') {
      neg = true;
      s = s.slice(1);
    } else if (s[0] === '+') s = s.slice(1);
    const b = base === undefined ? 10 : Number(base);
    let r: bigint;
    if (b === 10) {
      if (!/^\d+$/.test(s)) {
        if (/^0[xX][0-9a-fA-F]+$/.test(s)) r = BigInt(s);
        else throw new Error('Invalid integer: ' + v);
      } else r = BigInt(s);
    } else if (b === 16) {
      if (s.startsWith('0x') || s.startsWith('0X')) s = s.slice(2);
      if (!/^[0-9a-fA-F]+$/.test(s)) throw new Error('Invalid integer: ' + v);
      r = BigInt('0x' + s);
    } else {
      r = 0n;
      const bb = BigInt(b);
      for (const c of s.toLowerCase()) {
        const d = parseInt(c, b);
        if (Number.isNaN(d)) throw new Error('Invalid integer: ' + v);
        r = r * bb + BigInt(d);
      }
    }
    return neg ? -r : r;
  }
  function Big(this: any, v: bigint) {
    this.v = v;
  }
  function make(v: any): any {
    return new (Big as any)(v);
  }
  const P: any = Big.prototype;
  const bin = (f: (a: bigint, b: bigint) => bigint): ((o: any) => any) =>
    function (this: any, o: any) {
      return make(f(this.v, toBig(o)));
    };
  const cmp = (f: (a: bigint, b: bigint) => boolean) =>
    function (this: any, o: any) {
      return f(this.v, toBig(o));
    };
  P.add = P.plus = bin((a, b) => a + b);
  P.subtract = P.minus = bin((a, b) => a - b);
  P.multiply = P.times = bin((a, b) => a * b);
  P.divide = P.over = bin((a, b) => {
    if (b === 0n) throw new Error('Cannot divide by zero');
    return a / b;
  });
  P.mod = P.remainder = bin((a, b) => {
    if (b === 0n) throw new Error('Cannot divide by zero');
    return a % b;
  });
  P.divmod = function (this: any, o: any) {
    const b = toBig(o);
    if (b === 0n) throw new Error('Cannot divide by zero');
    return { quotient: make(this.v / b), remainder: make(this.v % b) };
  };
  P.pow = bin((a, b) => (b < 0n ? (a === 1n ? 1n : a === -1n ? (b % 2n === 0n ? 1n : -1n) : 0n) : a ** b));
  P.modPow = function (this: any, e: any, m: any) {
    let exp = toBig(e);
    const mod = toBig(m);
    if (mod === 0n) throw new Error('Cannot take modPow with modulus 0');
    let base = ((this.v % mod) + mod) % mod;
    let r = 1n;
    while (exp > 0n) {
      if (exp & 1n) r = (r * base) % mod;
      base = (base * base) % mod;
      exp >>= 1n;
    }
    return make(r);
  };
  P.square = function (this: any) {
    return make(this.v * this.v);
  };
  P.abs = function (this: any) {
    return make(this.v < 0n ? -this.v : this.v);
  };
  P.negate = function (this: any) {
    return make(-this.v);
  };
  P.next = function (this: any) {
    return make(this.v + 1n);
  };
  P.prev = function (this: any) {
    return make(this.v - 1n);
  };
  P.and = bin((a: bigint, b: bigint) => a & b);
  P.or = bin((a, b) => a | b);
  P.xor = bin((a, b) => a ^ b);
  P.not = function (this: any) {
    return make(~this.v);
  };
  P.shiftLeft = function (this: any, n: any) {
    const k = BigInt(Math.trunc(Number(toBig(n))));
    return make(k >= 0n ? this.v << k : this.v >> -k);
  };
  P.shiftRight = function (this: any, n: any) {
    const k = BigInt(Math.trunc(Number(toBig(n))));
    return make(k >= 0n ? this.v >> k : this.v << -k);
  };
  P.compare = P.compareTo = function (this: any, o: any) {
    const b = toBig(o);
    return this.v === b ? 0 : this.v > b ? 1 : -1;
  };
  P.compareAbs = function (this: any, o: any) {
    const a = this.v < 0n ? -this.v : this.v;
    let b = toBig(o);
    if (b < 0n) b = -b;
    return a === b ? 0 : a > b ? 1 : -1;
  };
  P.equals = P.eq = cmp((a, b) => a === b);
  P.notEquals = P.neq = cmp((a, b) => a !== b);
  P.greater = P.gt = cmp((a, b) => a > b);
  P.greaterOrEquals = P.geq = cmp((a, b) => a >= b);
  P.lesser = P.lt = cmp((a, b) => a < b);
  P.lesserOrEquals = P.leq = cmp((a, b) => a <= b);
  P.isZero = function (this: any) {
    return this.v === 0n;
  };
  P.isNegative = function (this: any) {
    return this.v < 0n;
  };
  P.isPositive = function (this: any) {
    return this.v > 0n;
  };
  P.isEven = function (this: any) {
    return (this.v & 1n) === 0n;
  };
  P.isOdd = function (this: any) {
    return (this.v & 1n) === 1n;
  };
  P.isUnit = function (this: any) {
    return this.v === 1n || this.v === -1n;
  };
  P.isDivisibleBy = function (this: any, o: any) {
    const b = toBig(o);
    return b !== 0n && this.v % b === 0n;
  };
  P.bitLength = function (this: any) {
    const v: bigint = this.v;
    const a = v < 0n ? -v - 1n : v;
    return make(a === 0n ? 0n : BigInt(a.toString(2).length));
  };
  P.toString = function (this: any, radix?: any) {
    return this.v.toString(radix === undefined ? 10 : Number(radix));
  };
  P.toJSON = function (this: any) {
    return this.v.toString();
  };
  P.toJSNumber = P.valueOf = function (this: any) {
    return Number(this.v);
  };
  P.toArray = function (this: any, radix: any) {
    const r = BigInt(radix);
    let a = this.v < 0n ? -this.v : this.v;
    const out: number[] = [];
    do {
      out.unshift(Number(a % r));
      a /= r;
    } while (a > 0n);
    return { value: out, isNegative: this.v < 0n };
  };
  const bigInt: any = function (v?: any, base?: any) {
    return make(toBig(v, base));
  };
  bigInt.zero = make(0n);
  bigInt.one = make(1n);
  bigInt.minusOne = make(-1n);
  bigInt.isInstance = (x: any) => x instanceof (Big as any);
  bigInt.max = (a: any, b: any) => (toBig(a) >= toBig(b) ? bigInt(a) : bigInt(b));
  bigInt.min = (a: any, b: any) => (toBig(a) <= toBig(b) ? bigInt(a) : bigInt(b));
  bigInt.gcd = (a: any, b: any) => {
    let x = toBig(a);
    let y = toBig(b);
    if (x < 0n) x = -x;
    if (y < 0n) y = -y;
    while (y !== 0n) [x, y] = [y, x % y];
    return make(x);
  };
  bigInt.lcm = (a: any, b: any) => {
    const x = toBig(a);
    const y = toBig(b);
    if (x === 0n || y === 0n) return make(0n);
    const g = toBig(bigInt.gcd(x, y));
    const r = (x * y) / g;
    return make(r < 0n ? -r : r);
  };
  bigInt.fromNative = make;
  bigInt.toNative = (x: any) => toBig(x);
  return bigInt;
}
