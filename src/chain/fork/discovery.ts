import { bytesToUnprefixedHex, type Address } from '@ethereumjs/util';
import type { MissLog } from '../engine/upstream.js';

/**
 * What a discovery run (see `withPrefetch`) would have fetched: instead of waiting for each
 * upstream read, the run records it and goes on with an empty value.
 */
export class Discovery implements MissLog {
  readonly accounts = new Map<string, Address>();
  readonly slots = new Map<string, [Address, Uint8Array]>();

  get empty(): boolean {
    return this.accounts.size === 0 && this.slots.size === 0;
  }

  account(a: Address): void {
    this.accounts.set(a.toString(), a);
  }

  slot(a: Address, key: Uint8Array): void {
    this.slots.set(a.toString() + bytesToUnprefixedHex(key), [a, key]);
  }
}
