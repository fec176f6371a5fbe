/** Fork reads fetched in batches, outside the node's lock. */
import { Discovery } from './discovery.js';
import { Fork } from './fork.js';
import { NodeStateManager } from '../engine/forkState.js';

/** Most discovery runs before the rest runs with plain (waiting) reads. */
const MAX_DISCOVERY_RUNS = 6;

/**
 * Run `fn` (an execution on a VM whose state manager is `sm`, with every effect discarded) so that
 * the upstream reads it needs are fetched in batches rather than one at a time: while a run meets
 * reads the cache cannot answer, it only records them (and sees empty values); they are fetched
 * together, in one burst, and the run is repeated. The first run that needed nothing new is the
 * answer; with everything cached that is the first run, at no extra cost.
 *
 * Each run goes through `exclusive` (the node's lock, for the live state) and the fetches happen
 * between runs, outside it: a slow or dead upstream never holds up requests that the cache can
 * answer.
 */
export async function withPrefetch<T>(sm: unknown, fn: () => Promise<T>, exclusive: <R>(run: () => Promise<R>) => Promise<R> = (run) => run()): Promise<T> {
  if (!(sm instanceof NodeStateManager) || sm.discovery !== undefined) return exclusive(fn);
  // The engine knows the fork as an Upstream; the node's is always a Fork.
  const fork = sm.link.fork;
  if (!(fork instanceof Fork)) return exclusive(fn);
  for (let run = 0; run < MAX_DISCOVERY_RUNS; run++) {
    const d = new Discovery();
    const outcome = await exclusive(async (): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> => {
      sm.discovery = d;
      try {
        return { ok: true, value: await fn() };
      } catch (error) {
        return { ok: false, error };
      } finally {
        sm.discovery = undefined;
      }
    });
    if (d.empty) {
      if (outcome.ok) return outcome.value;
      throw outcome.error;
    }
    await fork.state.prefetch(d.accounts.values(), d.slots.values());
  }
  return exclusive(fn);
}
