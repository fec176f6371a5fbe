/** Where two JSON values differ, for differential tests. */
/** Paths at which two JSON values differ (`[]` when equal). */
export function jsonDiff(a: unknown, b: unknown, path = '$', out: string[] = [], max = 20): string[] {
  if (out.length >= max) return out;
  if (a === b) return out;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    out.push(`${path}: ${JSON.stringify(a)?.slice(0, 200)} != ${JSON.stringify(b)?.slice(0, 200)}`);
    return out;
  }
  if (Array.isArray(a) !== Array.isArray(b)) {
    out.push(`${path}: array/object mismatch`);
    return out;
  }
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) out.push(`${path}: length ${a.length} != ${bb.length}`);
    for (let i = 0; i < Math.min(a.length, bb.length); i++) jsonDiff(a[i], bb[i], `${path}[${i}]`, out, max);
    return out;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
    if (!(k in ao)) out.push(`${path}.${k}: missing != ${JSON.stringify(bo[k])?.slice(0, 200)}`);
    else if (!(k in bo)) out.push(`${path}.${k}: ${JSON.stringify(ao[k])?.slice(0, 200)} != missing`);
    else jsonDiff(ao[k], bo[k], `${path}.${k}`, out, max);
    if (out.length >= max) break;
  }
  return out;
}
