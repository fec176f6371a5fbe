/** Small helpers over Maps. */

/**
 * A new map of the first `count` entries of `map`, in its order: cheaper than deleting the rest
 * one by one when the rest is most of it.
 */
export function firstEntries<K, V>(map: Map<K, V>, count: number): Map<K, V> {
  const out = new Map<K, V>();
  if (count <= 0) return out;
  for (const entry of map) {
    out.set(entry[0], entry[1]);
    if (out.size === count) break;
  }
  return out;
}
