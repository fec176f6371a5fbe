/** The node's terminal log: requests grouped by burst, one line per mined block and transaction. */
import chalk from 'chalk';
import type { MinedTx, StoredBlock } from '../chain/types.js';
import { decodeRevertReason } from '../chain/revert.js';
import type { RpcError } from '../rpc/errors.js';

/** Requests arriving within this window are printed on one line. */
const BURST_MS = 100;

export class RequestLog {
  private counts = new Map<string, number>();
  /** console.log output by transaction hash, printed under the transaction's line. */
  private readonly consoleLines = new Map<string, string[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: (line: string) => void,
    private readonly silent: boolean,
  ) {}

  /** Dispatcher observer. */
  readonly observe = (method: string, error: RpcError | undefined): void => {
    if (error && (!this.silent || error.code === -32603)) {
      this.flush();
      this.out(chalk.red(`${method}: ${error.message}`));
      return;
    }
    if (this.silent) return;
    this.counts.set(method, (this.counts.get(method) ?? 0) + 1);
    this.timer ??= setTimeout(() => this.flush(), BURST_MS);
  };

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.counts.size === 0) return;
    const parts = [...this.counts].map(([m, n]) => (n === 1 ? m : `${m} ${chalk.dim('×' + n)}`));
    this.counts.clear();
    this.out(parts.join(chalk.dim(', ')));
  }

  /** Node `console` event: hold a transaction's console.log lines until its block is printed. */
  console(tx: MinedTx, lines: string[]): void {
    if (!this.silent) this.consoleLines.set(tx.hashHex, lines);
  }

  /** Block and transaction lines. */
  block(b: StoredBlock): void {
    if (this.silent) return;
    this.flush();
    for (const t of b.txs) {
      const r = t.receipt;
      const status = r.status === 1 ? chalk.green('success') : chalk.red(`reverted${reasonSuffix(r.returnValue, r.error)}`);
      const created = r.contractAddress ? `  created ${chalk.cyan(r.contractAddress.toString())}` : '';
      this.out(`    tx ${t.hashHex}  gas ${r.gasUsed}  ${status}${created}`);
      const logged = this.consoleLines.get(t.hashHex);
      if (logged) {
        this.consoleLines.delete(t.hashHex);
        this.out(chalk.dim('      console.log:'));
        // Contract-supplied text: no terminal control sequences.
        for (const line of logged) this.out(`        ${line.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '\uFFFD')}`);
      }
    }
    const h = b.block.header;
    this.out(chalk.dim(`    block #${b.number}  ${b.hashHex}  gas ${h.gasUsed}  txs ${b.txs.length}  time ${h.timestamp}`));
  }
}

function reasonSuffix(data: Uint8Array, error: string | undefined): string {
  if (error && error !== 'revert') return `: ${error}`;
  const reason = decodeRevertReason(data);
  if (reason !== undefined) return `: ${reason}`;
  return data.length >= 4 ? `: custom error 0x${Buffer.from(data.subarray(0, 4)).toString('hex')}` : '';
}
