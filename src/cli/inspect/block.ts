/** `node-rpc block [number|tag|hash]`: a block's header summary and its transactions. */
import type { Command } from 'commander';
import { action, addCommonOptions, big, ether, gwei, printJson, RpcClient, RpcFailure, styles, table, write, type InspectFlags } from './client.js';

interface BlockTx {
  hash: string;
  from: string;
  to: string | null;
  value: string;
  gas: string;
  transactionIndex: string;
}

export interface BlockJson {
  number: string;
  /** Null for the pending block (not sealed), as geth answers it; its miner too. */
  hash: string | null;
  parentHash: string;
  timestamp: string;
  miner: string | null;
  gasUsed: string;
  gasLimit: string;
  baseFeePerGas?: string;
  stateRoot: string;
  transactions: BlockTx[];
}

interface ReceiptJson {
  transactionHash: string;
  status?: string;
  gasUsed: string;
  contractAddress?: string | null;
}

const TAGS = new Set(['latest', 'earliest', 'pending', 'safe', 'finalized']);

/** The method and first param that fetch the block `ref` names. */
export function blockQuery(ref: string): [string, string] {
  if (TAGS.has(ref)) return ['eth_getBlockByNumber', ref];
  if (/^0x[0-9a-fA-F]{64}$/.test(ref)) return ['eth_getBlockByHash', ref];
  if (/^\d+$/.test(ref)) return ['eth_getBlockByNumber', '0x' + BigInt(ref).toString(16)];
  if (/^0x[0-9a-fA-F]+$/.test(ref)) return ['eth_getBlockByNumber', '0x' + BigInt(ref).toString(16)];
  throw new Error(`not a block number, tag or hash: ${ref} (try 12, 0xc, latest or a block hash)`);
}

async function receiptsOf(client: RpcClient, block: BlockJson): Promise<Map<string, ReceiptJson>> {
  const out = new Map<string, ReceiptJson>();
  if (block.transactions.length === 0) return out;
  let receipts: ReceiptJson[] | null = null;
  try {
    receipts = await client.call<ReceiptJson[] | null>('eth_getBlockReceipts', [block.number]);
  } catch (err) {
    if (!(err instanceof RpcFailure)) throw err;
  }
  // Nodes without eth_getBlockReceipts: one receipt at a time.
  receipts ??= await Promise.all(block.transactions.map((t) => client.call<ReceiptJson>('eth_getTransactionReceipt', [t.hash])));
  for (const r of receipts ?? []) if (r) out.set(r.transactionHash, r);
  return out;
}

export function renderBlock(block: BlockJson, receipts: Map<string, ReceiptJson>): string {
  const c = styles();
  const used = big(block.gasUsed);
  const limit = big(block.gasLimit);
  const pct = limit > 0n ? Number((used * 10000n) / limit) / 100 : 0;
  const time = big(block.timestamp);
  const lines = [
    `${c.bold(`Block #${big(block.number)}`)}  ${block.hash ?? 'pending'}`,
    ...table([
      [c.dim('parent'), block.parentHash],
      [c.dim('timestamp'), `${time} (${new Date(Number(time) * 1000).toISOString()})`],
      [c.dim('miner'), block.miner ?? c.dim('not sealed')],
      [c.dim('gas used'), `${used} / ${limit} (${pct}%)`],
      ...(block.baseFeePerGas !== undefined ? [[c.dim('base fee'), gwei(big(block.baseFeePerGas))]] : []),
      [c.dim('state root'), block.stateRoot],
      [c.dim('transactions'), String(block.transactions.length)],
    ]),
  ];
  if (block.transactions.length > 0) {
    lines.push('');
    const head = ['#', 'HASH', 'FROM', 'TO', 'VALUE', 'GAS USED', 'STATUS'].map((h) => c.dim(h));
    const rows = block.transactions.map((t) => {
      const r = receipts.get(t.hash);
      const status = r?.status === undefined ? c.dim('?') : r.status === '0x1' ? c.green('success') : c.red('reverted');
      const to = t.to ?? (r?.contractAddress ? `${c.cyan('create')} ${r.contractAddress}` : c.cyan('create'));
      return [String(big(t.transactionIndex)), t.hash, t.from, to, ether(big(t.value)), r ? String(big(r.gasUsed)) : c.dim('?'), status];
    });
    lines.push(...table([head, ...rows]));
  }
  return lines.join('\n');
}

export function blockCommand(program: Command): void {
  addCommonOptions(
    program
      .command('block')
      .argument('[block]', 'block number (decimal or 0x), tag (latest, earliest, pending, safe, finalized) or hash', 'latest')
      .description('show a block header summary and its transactions'),
  ).action(
    action(async (ref: string, flags: InspectFlags) => {
      const client = new RpcClient(flags.rpc);
      const [method, id] = blockQuery(ref);
      const block = await client.call<BlockJson | null>(method, [id, true]);
      if (!block) throw new Error(`block ${ref} not found`);
      if (flags.json) return printJson(block);
      write(renderBlock(block, await receiptsOf(client, block)));
    }),
  );
}
