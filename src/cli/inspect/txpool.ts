/** `node-rpc txpool`: the pending and queued transactions of a node, as a table. */
import type { Command } from 'commander';
import { action, addCommonOptions, big, ether, gwei, printJson, RpcClient, styles, table, write, type InspectFlags } from './client.js';

interface PoolTx {
  hash: string;
  from: string;
  to: string | null;
  nonce: string;
  value: string;
  gas: string;
  gasPrice?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
}

type Section = Record<string, Record<string, PoolTx>>;

export interface TxpoolContent {
  pending: Section;
  queued: Section;
}

/** Rows of one section, by sender then nonce. */
function rows(section: Section): PoolTx[] {
  const out: PoolTx[] = [];
  for (const sender of Object.keys(section).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))) {
    const byNonce = section[sender];
    for (const nonce of Object.keys(byNonce).sort((a, b) => Number(BigInt(a) - BigInt(b)))) out.push(byNonce[nonce]);
  }
  return out;
}

export function renderTxpool(content: TxpoolContent): string {
  const c = styles();
  const lines: string[] = [];
  for (const [title, section, colour] of [
    ['Pending', content.pending ?? {}, c.green],
    ['Queued', content.queued ?? {}, c.yellow],
  ] as const) {
    const txs = rows(section);
    lines.push(colour.bold(`${title} (${txs.length})`));
    if (txs.length === 0) {
      lines.push(c.dim('  none'));
      continue;
    }
    const head = ['FROM', 'NONCE', 'TO', 'VALUE', 'GAS', 'PRICE', 'HASH'].map((h) => c.dim(h));
    const body = txs.map((t) => {
      const price = t.maxFeePerGas !== undefined ? `${gwei(big(t.maxFeePerGas))} (tip ${gwei(big(t.maxPriorityFeePerGas))})` : gwei(big(t.gasPrice));
      return [
        t.from,
        String(big(t.nonce)),
        t.to ?? c.cyan('contract creation'),
        ether(big(t.value)),
        String(big(t.gas)),
        price,
        c.dim(t.hash),
      ];
    });
    lines.push(...table([head, ...body]));
  }
  return lines.join('\n');
}

export function txpoolCommand(program: Command): void {
  addCommonOptions(program.command('txpool').description('list the pending and queued transactions of a node (txpool_content)')).action(
    action(async (flags: InspectFlags) => {
      const content = await new RpcClient(flags.rpc).call<TxpoolContent>('txpool_content');
      if (flags.json) printJson(content);
      else write(renderTxpool(content));
    }),
  );
}
