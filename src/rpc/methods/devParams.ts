/** Parameters the test-control groups share (anvil, hardhat and ganache send numbers in both forms). */
import { quantity, type Codec } from '../codecs.js';
import { invalidParams } from '../errors.js';

export const describe = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

/** A non-negative whole number given as a JSON number or a hex QUANTITY (hardhat sends numbers). */
export const count: Codec<bigint> = {
  type: 'number or QUANTITY',
  parse(value, where) {
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value < 0) throw invalidParams(`invalid argument ${where}: expected a non-negative integer, got ${value}`);
      return BigInt(value);
    }
    if (typeof value === 'string' && value.startsWith('0x')) return quantity.parse(value, where);
    throw invalidParams(`invalid argument ${where}: expected a number or a hex QUANTITY, got ${describe(value)}`);
  },
};
