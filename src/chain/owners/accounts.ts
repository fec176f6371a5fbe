/**
 * Accounts: the dev accounts and their keys, and the senders eth_sendTransaction accepts without a
 * key (anvil_impersonateAccount, anvil_autoImpersonateAccount). As the impersonation half of
 * anvil's CheatsManager. Impersonation is not part of a snapshot (a revert keeps it, as in anvil
 * and the hardhat node); anvil_reset ends it.
 */
import type { Address } from '@ethereumjs/util';
import type { Owner } from '../core/owner.js';
import type { DevAccount } from '../wallet/accounts.js';

export class Accounts implements Owner<void> {
  readonly name = 'accounts';
  /** Dev accounts by lowercase address. */
  readonly keys: ReadonlyMap<string, DevAccount>;
  private readonly impersonated = new Set<string>();
  private auto = false;

  constructor(readonly list: readonly DevAccount[]) {
    this.keys = new Map(list.map((a) => [a.address.toString(), a]));
  }

  /** The dev account of `address` (lowercase hex), if it is one. */
  key(address: string): DevAccount | undefined {
    return this.keys.get(address);
  }

  /** Whether eth_sendTransaction takes an unsigned transaction from `address` (lowercase hex). */
  canSendUnsigned(address: string): boolean {
    return this.auto || this.impersonated.has(address);
  }

  isImpersonated(address: string): boolean {
    return this.impersonated.has(address);
  }

  get autoImpersonate(): boolean {
    return this.auto;
  }

  impersonate(a: Address, on: boolean): void {
    if (on) this.impersonated.add(a.toString());
    else this.impersonated.delete(a.toString());
  }

  setAutoImpersonate(on: boolean): void {
    this.auto = on;
  }

  /** Impersonation outlives reverts: nothing to record. */
  snapshot(): void {}

  restore(): void {}

  reset(): void {
    this.impersonated.clear();
    this.auto = false;
  }
}
