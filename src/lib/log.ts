/** The node's terminal log: requests grouped by burst, one line per mined block and transaction. */
import chalk from 'chalk';
import { bytesToHex } from '@ethereumjs/util';
import { formatDecoded, type Artifacts } from '../artifacts/artifacts.js';
import type { MinedTx, StoredBlock } from '../chain/core/types.js';
import type { SourceStack } from '../chain/core/sources.js';
import { decodeRevertReason, revertMessage } from '../chain/exec/revertData.js';
import { failureHeadline, frameText } from '../chain/exec/explain.js';
import type { RpcError } from '../rpc/errors.js';

/** Requests arriving within this window are printed on one line. */
const BURST_MS = 100;

export class RequestLog {
  private counts = new Map<string, number>();
  /** console.log output by transaction hash, printed under the transaction's line. */
  private readonly consoleLines = new Map<string, string[]>();
  private timer: NodeJS.Timeout | undefined;
  /** With artifacts, lines wait for contract names (a code lookup) and go out in order. */
  private tail: Promise<void> | undefined;
  /** Contract name by address, from the code there (set with `codeAt`). */
  private readonly names = new Map<string, Promise<string | undefined>>();
  /** Reads the code at an address; set by the caller once the node runs. */
  codeAt: ((address: string) => Promise<Uint8Array>) | undefined;
  /** The Solidity stack of a failed mined transaction (a replay); set by the caller when source maps are loaded. */
  stackOf: ((tx: MinedTx) => Promise<SourceStack | undefined>) | undefined;

  constructor(
    private readonly out: (line: string) => void,
    private readonly silent: boolean,
    private readonly artifacts?: Artifacts,
  ) {}

  /** Dispatcher observer. */
  readonly observe = (method: string, error: RpcError | undefined): void => {
    if (error && (!this.silent || error.code === -32603)) {
      this.flush();
      this.out(chalk.red(`${method}: ${error.message}`));
      if (error.sourceStack) for (const line of sourceLines(error.sourceStack)) this.out(line);
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
    this.emit(parts.join(chalk.dim(', ')));
  }

  /** Resolves when every line handed to the log has been written. */
  async idle(): Promise<void> {
    while (this.tail !== undefined) await this.tail;
  }

  private emit(line: string): void {
    if (this.tail === undefined) this.out(line);
    else this.later(() => this.out(line));
  }

  private later(task: () => void | Promise<void>): void {
    const next: Promise<void> = (this.tail ?? Promise.resolve()).then(task).catch(() => undefined).then(() => {
      if (this.tail === next) this.tail = undefined;
    });
    this.tail = next;
  }

  private contractName(address: string): Promise<string | undefined> {
    let name = this.names.get(address);
    if (name === undefined) {
      const read = this.codeAt;
      name = read === undefined ? Promise.resolve(undefined) : read(address).then((code) => (code.length ? this.artifacts?.match(bytesToHex(code))?.name : undefined)).catch(() => undefined);
      this.names.set(address, name);
    }
    return name;
  }

  /** `Token.transfer(0x7099…, 1e18)` for a call into a known contract; undefined otherwise. */
  private async describe(t: MinedTx): Promise<string | undefined> {
    const a = this.artifacts;
    const to = t.tx.to?.toString();
    if (a === undefined || a.size === 0 || to === undefined || t.tx.data.length < 4) return undefined;
    const name = await this.contractName(to);
    const call = a.decodeCall(bytesToHex(t.tx.data), name);
    if (call === undefined) return name;
    return `${name ?? call.contract ?? '?'}.${formatDecoded(call)}`;
  }

  /** Node `console` event: hold a transaction's console.log lines until its block is printed. */
  console(tx: MinedTx, lines: string[]): void {
    if (!this.silent) this.consoleLines.set(tx.hashHex, lines);
  }

  /** Block and transaction lines. */
  block(b: StoredBlock): void {
    if (this.silent) return;
    this.flush();
    if (this.artifacts === undefined || this.artifacts.size === 0) return this.print(b, [], []);
    const described = Promise.all(b.txs.map((t) => this.describe(t)));
    const stacks = Promise.all(b.txs.map((t) => (t.receipt.status === 0 && this.stackOf ? this.stackOf(t).catch(() => undefined) : undefined)));
    this.later(async () => this.print(b, await described, await stacks));
  }

  private print(b: StoredBlock, described: ReadonlyArray<string | undefined>, stacks: ReadonlyArray<SourceStack | undefined>): void {
    for (const [i, t] of b.txs.entries()) {
      const r = t.receipt;
      const stack = stacks[i];
      const locator = this.artifacts?.locator();
      const failure = stack && locator ? failureHeadline(r.error === 'revert' ? revertMessage(r.returnValue) : (r.error ?? 'execution reverted'), stack, locator).replace(/^execution reverted/, '') : undefined;
      const status = r.status === 1 ? chalk.green('success') : chalk.red(`reverted${failure ?? reasonSuffix(r.returnValue, r.error, this.artifacts)}`);
      const created = r.contractAddress ? `  created ${chalk.cyan(r.contractAddress.toString())}` : '';
      const call = described[i] === undefined ? '' : `  ${chalk.cyan(described[i])}`;
      this.out(`    tx ${t.hashHex}${call}  gas ${r.gasUsed}  ${status}${created}`);
      const logged = this.consoleLines.get(t.hashHex);
      if (logged) {
        this.consoleLines.delete(t.hashHex);
        this.out(chalk.dim('      console.log:'));
        // Contract-supplied text: no terminal control sequences.
        for (const line of logged) this.out(`        ${line.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '\uFFFD')}`);
      }
      // After the console.log lines: the revert is the last thing the transaction did.
      if (stack) for (const line of sourceLines(stack)) this.out(line);
    }
    const h = b.block.header;
    this.out(chalk.dim(`    block #${b.number}  ${b.hashHex}  gas ${h.gasUsed}  txs ${b.txs.length}  time ${h.timestamp}`));
  }
}

/** The stack beneath a failure, innermost first, with the source line of the innermost frame. */
export function sourceLines(stack: SourceStack): string[] {
  const out: string[] = [];
  for (const [i, f] of stack.frames.entries()) {
    out.push(chalk.dim(`      ${i === 0 ? 'at' : 'from'} `) + chalk.cyan(frameText(f)));
    const l = f.location;
    if (i === 0 && l) {
      // Source text from the user's files: no terminal control sequences.
      out.push(chalk.dim(`        ${l.line} | `) + l.text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '\uFFFD'));
      out.push(chalk.dim(`        ${' '.repeat(String(l.line).length)} | `) + l.text.slice(0, Math.max(0, l.column - 1)).replace(/[^\t]/g, ' ') + chalk.red('^'));
    }
  }
  return out;
}

function reasonSuffix(data: Uint8Array, error: string | undefined, artifacts: Artifacts | undefined): string {
  if (error && error !== 'revert') return `: ${error}`;
  const reason = decodeRevertReason(data);
  if (reason !== undefined) return `: ${reason}`;
  const custom = artifacts?.decodeError(bytesToHex(data));
  if (custom !== undefined) return `: ${formatDecoded(custom)}`;
  return data.length >= 4 ? `: custom error 0x${Buffer.from(data.subarray(0, 4)).toString('hex')}` : '';
}
