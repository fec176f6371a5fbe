/**
 * OpenEthereum's `stateDiff` from the prestate tracer's diff mode: per account and field, `"="`
 * when unchanged, `{"+": v}` when born, `{"-": v}` when gone, `{"*": {from, to}}` when changed.
 */
type Account = { balance?: string; nonce?: number; code?: string; storage?: Record<string, string> };
type Diff = '=' | { '+': string } | { '-': string } | { '*': { from: string; to: string } };

const ZERO_WORD = '0x' + '0'.repeat(64);
const nonceHex = (n: number | undefined) => '0x' + (n ?? 0).toString(16);

function field(pre: string | undefined, post: string | undefined, born: boolean, dead: boolean, zero: string): Diff {
  if (born) return { '+': post ?? zero };
  if (dead) return { '-': pre ?? zero };
  if (post === undefined || post === pre) return '=';
  return { '*': { from: pre ?? zero, to: post } };
}

export function parityStateDiff(diff: { pre?: Record<string, Account>; post?: Record<string, Account> }): Record<string, Record<string, unknown>> {
  const pre = diff.pre ?? {};
  const post = diff.post ?? {};
  const out: Record<string, Record<string, unknown>> = {};
  for (const address of [...new Set([...Object.keys(pre), ...Object.keys(post)])].sort()) {
    const a = pre[address];
    const b = post[address];
    const born = a === undefined;
    const dead = b === undefined;
    const storage: Record<string, Diff> = {};
    for (const k of [...new Set([...Object.keys(a?.storage ?? {}), ...Object.keys(b?.storage ?? {})])].sort()) {
      const d = field(a?.storage?.[k], b?.storage?.[k], born, dead, ZERO_WORD);
      if (d !== '=') storage[k] = d;
    }
    out[address] = {
      balance: field(a?.balance, b?.balance, born, dead, '0x0'),
      code: field(a?.code ?? (born ? undefined : '0x'), b?.code, born, dead, '0x'),
      nonce: field(a === undefined ? undefined : nonceHex(a.nonce), b?.nonce === undefined ? undefined : nonceHex(b.nonce), born, dead, '0x0'),
      storage,
    };
  }
  return out;
}
