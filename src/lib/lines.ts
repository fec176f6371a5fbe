/**
 * The terminal log's lines, written together: a line goes out at the end of the turn of the event
 * loop it was made in, in one write with the lines made beside it. An automined transaction's
 * lines (the requests, the transaction, the block) were three writes to the terminal before the
 * answer to its sender; now they are one, after it. Lines still waiting when the process exits are
 * written then.
 */

/** Writers with lines waiting, written out if the process exits first. */
const waiting = new Set<() => void>();
let exitHooked = false;

export interface Lines {
  /** Add a line (without its newline). */
  line(text: string): void;
  /** Write the waiting lines now. */
  flush(): void;
}

export function batchedLines(write: (text: string) => void): Lines {
  let pending: string[] = [];
  const flush = (): void => {
    waiting.delete(flush);
    if (pending.length === 0) return;
    const text = pending.join('\n') + '\n';
    pending = [];
    write(text);
  };
  return {
    line(text: string): void {
      pending.push(text);
      if (pending.length > 1) return;
      waiting.add(flush);
      if (!exitHooked) {
        exitHooked = true;
        process.once('exit', () => {
          for (const f of waiting) f();
        });
      }
      setImmediate(flush);
    },
    flush,
  };
}
