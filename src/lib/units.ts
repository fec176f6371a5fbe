/** Ether/wei conversions for flags and the banner. */
import { ETHER } from '../chain/core/config.js';

/** Parse a decimal ether amount ("10000", "0.5") into wei; undefined when malformed. */
export function parseEther(text: string): bigint | undefined {
  const m = /^(\d+)(?:\.(\d{1,18}))?$/.exec(text.trim());
  if (!m) return undefined;
  return BigInt(m[1]) * ETHER + BigInt((m[2] ?? '').padEnd(18, '0'));
}

export function formatEther(wei: bigint): string {
  const whole = wei / ETHER;
  const frac = (wei % ETHER).toString().padStart(18, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}
