/** Call workers in tests: every eth_call sent to the worker, and the kind of each worker reply recorded. */
import type { CallWorkers } from '../../src/chain/exec/offload/pool.js';
import type { CallReply } from '../../src/chain/exec/offload/protocol.js';

/**
 * Record the kind of every reply of `workers` in `replies`; with `always`, send every call to a
 * worker, lone or not (which calls go there on their own is tested in test/eth/callWorkers.test.ts).
 */
export function watchWorkers(workers: CallWorkers, replies: CallReply['kind'][], always: boolean): void {
  if (always) {
    const enter = workers.routing.enter.bind(workers.routing);
    workers.routing.enter = async (key) => {
      await enter(key);
      return true;
    };
  }
  const run = workers.run.bind(workers);
  workers.run = (job) => {
    const p = run(job);
    void p?.then((r) => replies.push(r.kind));
    return p;
  };
}
