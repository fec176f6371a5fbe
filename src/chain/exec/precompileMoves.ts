/**
 * `movePrecompileToAddress`, the state override that moves a precompile (eth_simulateV1, eth_call,
 * eth_estimateGas, debug_traceCall), with geth's rules: the overrides are taken in address order;
 * a precompile moves to its destination (which keeps its own account; a precompile there is
 * replaced); an account that is overridden in any way stops being a precompile; moving an account
 * that is not a precompile, or moving one to an address that is itself overridden, is refused.
 * The addresses warm from the start of each call stay the fork's precompiles, as in geth.
 */
import type { PrecompileFunc } from '@ethereumjs/evm';
import { toChecksumAddress } from '@ethereumjs/util';
import { ChainError } from '../core/errors.js';
import type { StateOverrides } from '../core/types.js';

/**
 * The precompiles by address (unprefixed lowercase hex, as ethereumjs keys them) once `overrides`
 * apply to the fork's `active` ones; undefined when the overrides touch no precompile and move none.
 */
export function precompilesAfter(active: ReadonlyMap<string, PrecompileFunc>, overrides: StateOverrides | undefined): Map<string, PrecompileFunc> | undefined {
  if (overrides === undefined) return undefined;
  const key = (a: { toString(): string }) => a.toString().slice(2).toLowerCase();
  if (!overrides.some(([a, o]) => o.movePrecompileToAddress !== undefined || active.has(key(a)))) return undefined;
  const out = new Map(active);
  const overridden = new Set(overrides.map(([a]) => key(a)));
  const movedTo = new Set<string>();
  for (const [address, o] of [...overrides].sort(([a], [b]) => (key(a) < key(b) ? -1 : 1))) {
    const at = key(address);
    if (movedTo.has(at)) throw new ChainError(`account ${toChecksumAddress(address.toString())} has already been overridden by a precompile`);
    const precompile = out.get(at);
    if (o.movePrecompileToAddress !== undefined) {
      if (precompile === undefined) throw new ChainError(`account ${toChecksumAddress(address.toString())} is not a precompile`);
      const to = key(o.movePrecompileToAddress);
      if (overridden.has(to)) throw new ChainError(`account ${toChecksumAddress(o.movePrecompileToAddress.toString())} is already overridden`);
      out.set(to, precompile);
      movedTo.add(to);
    }
    if (precompile !== undefined) out.delete(at);
  }
  return out;
}
