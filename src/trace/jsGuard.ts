/**
 * The byte-array bound of a JavaScript tracer's sandbox. Typed arrays and ArrayBuffers live
 * outside the JavaScript heap, so the tracer thread's heap bound does not cover them: the
 * constructors a tracer can reach (the globals, and every prototype's `constructor`) are replaced
 * by ones that count the bytes they allocate, and past `limit` in one trace the allocation throws.
 * The sandbox's own arrays (what the tracer API returns) are made with the constructors captured
 * before, and are not counted.
 *
 * `sandboxByteGuard`'s source is evaluated inside the context (it must not refer to anything
 * outside itself).
 */

/* eslint-disable */
export function sandboxByteGuard(limit: number, message: string): void {
  const g: any = globalThis;
  let allocated = 0;
  const charge = (bytes: number) => {
    if (!(bytes > 0)) return;
    allocated += bytes;
    if (allocated > limit) throw new RangeError(message);
  };
  const names = ['ArrayBuffer', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];
  const AB = ArrayBuffer;
  const proto: any = AB.prototype;
  for (const m of ['transfer', 'transferToFixedLength']) if (m in proto) delete proto[m];
  for (const name of names) {
    const Orig = g[name];
    if (typeof Orig !== 'function') continue;
    const perElement: number = name === 'ArrayBuffer' ? 1 : Orig.BYTES_PER_ELEMENT;
    const Guarded: any = function (this: unknown, ...args: any[]) {
      if (new.target === undefined) throw new TypeError(`Constructor ${name} requires 'new'`);
      const a = args[0];
      if (name === 'ArrayBuffer') {
        const max = args[1] !== null && typeof args[1] === 'object' ? Number(args[1].maxByteLength) : 0;
        charge(Math.max(Number(a) || 0, max || 0));
      } else if (typeof a === 'number' || typeof a === 'bigint' || typeof a === 'string' || typeof a === 'boolean') {
        charge((Number(a) || 0) * perElement);
      } else if (a !== null && typeof a === 'object' && !(a instanceof AB)) {
        // A copy of an array, an array-like or another typed array (a view of a buffer allocates nothing).
        const n = Number(a.length);
        charge((Number.isFinite(n) ? n : 0) * perElement);
      }
      return Reflect.construct(Orig, args, new.target === Guarded ? Orig : new.target);
    };
    Object.setPrototypeOf(Guarded, Object.getPrototypeOf(Orig));
    for (const key of Object.getOwnPropertyNames(Orig)) {
      if (key === 'prototype' || key === 'length' || key === 'name' || key === 'caller' || key === 'arguments') continue;
      Object.defineProperty(Guarded, key, Object.getOwnPropertyDescriptor(Orig, key)!);
    }
    Object.defineProperty(Guarded, 'name', { value: name });
    Guarded.prototype = Orig.prototype;
    Object.defineProperty(Orig.prototype, 'constructor', { value: Guarded, writable: true, configurable: true, enumerable: false });
    Object.defineProperty(g, name, { value: Guarded, writable: true, configurable: true, enumerable: false });
  }
}
