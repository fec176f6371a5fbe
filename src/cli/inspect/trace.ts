/**
 * `node-rpc trace <txhash>`: a transaction's call tree from the node's callTracer: depth, call
 * type, from → to, value, gas used, decoded selectors and events where known, revert reasons in
 * red, logs in the order they were emitted.
 */
import type { Command } from 'commander';
import { hexToBytes } from '@ethereumjs/util';
import { formatDecoded, type Artifacts } from '../../artifacts/artifacts.js';
import { detectArtifactDirs, loadArtifacts } from '../../artifacts/load.js';
import { decodeRevertReason } from '../../chain/exec/revertData.js';
import { Signatures } from './abi.js';
import { LocalSources, pairFrames, placeText, revertLines, stepLines, type Place, type SourceNode } from './traceSource.js';
import { action, addCommonOptions, big, ether, printJson, RpcClient, safe, styles, write, type InspectFlags } from './client.js';

export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas?: string;
  gasUsed?: string;
  input?: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
  logs?: Array<{ address: string; topics?: string[]; data?: string; position?: string }>;
}

interface TraceFlags extends InspectFlags {
  abi?: string[];
  steps?: boolean;
}

/** Where a frame began and ended in the Solidity source, when known. */
export type FramePlaces = Map<CallFrame, { entry: Place | null; exit: Place | null }>;

/** Compiled contracts and the names of the ones found at the trace's addresses. */
export interface Named {
  artifacts: Artifacts;
  /** Lowercase address → contract name. */
  contracts: Map<string, string>;
}

function revertText(frame: CallFrame, sigs: Signatures, named?: Named): string {
  let text = frame.error ?? 'failed';
  let reason = frame.revertReason;
  const custom = frame.output && reason === undefined ? named?.artifacts.decodeError(frame.output, named.contracts.get(frame.to?.toLowerCase() ?? '')) : undefined;
  if (custom !== undefined) reason = formatDecoded(custom);
  if (reason === undefined && frame.output && frame.output.length >= 10) {
    try {
      reason = decodeRevertReason(hexToBytes(frame.output as `0x${string}`));
    } catch {
      reason = undefined;
    }
    if (reason === undefined) reason = sigs.functions.get(frame.output.slice(0, 10).toLowerCase());
  }
  if (reason !== undefined) text += `: ${safe(reason)}`;
  return text;
}

/** The tree as lines (no trailing newline). */
export function renderCallTree(root: CallFrame, sigs: Signatures, named?: Named, places?: FramePlaces): string[] {
  const c = styles();
  const lines: string[] = [];
  const nameOf = (address: string | undefined) => (address === undefined ? undefined : named?.contracts.get(address.toLowerCase()));
  const who = (address: string | undefined) => {
    const name = nameOf(address);
    return name === undefined ? (address ?? '?') : `${c.bold(name)} ${address}`;
  };
  const visit = (frame: CallFrame, depth: number, lead: string, branch: string) => {
    const parts = [c.dim(String(depth)), c.bold(frame.type), `${who(frame.from)} → ${who(frame.to)}`];
    if (frame.type === 'CREATE' || frame.type === 'CREATE2') parts.push(c.cyan('created'));
    else {
      const decoded = frame.input ? named?.artifacts.decodeCall(frame.input, nameOf(frame.to)) : undefined;
      const call = decoded !== undefined ? formatDecoded(decoded) : sigs.describeCall(frame.input);
      if (call) parts.push(call.startsWith('0x') ? c.dim(call) : c.cyan(call));
    }
    const value = big(frame.value);
    if (value > 0n) parts.push(`value ${ether(value)}`);
    parts.push(`gas used ${big(frame.gasUsed)}`);
    const at = places?.get(frame);
    const shown = at?.entry?.file ? at.entry : at?.exit?.file ? at.exit : undefined;
    if (shown) parts.push(c.dim(`@ ${placeText(shown)}`));
    if (frame.error !== undefined) parts.push(c.red(`✗ ${revertText(frame, sigs, named)}${at?.exit?.file ? ` at ${at.exit.file}:${at.exit.line}:${at.exit.column}` : ''}`));
    lines.push(lead + branch + parts.join('  '));
    const childLead = lead + (branch === '' ? '' : branch === '└─ ' ? '   ' : '│  ');
    const calls = frame.calls ?? [];
    const logs = [...(frame.logs ?? [])].sort((a, b) => Number(big(a.position) - big(b.position)));
    // Interleave: a log at position p was emitted after the frame's first p sub-calls.
    const items: Array<{ log?: (typeof logs)[number]; call?: CallFrame }> = [];
    let li = 0;
    for (let ci = 0; ci <= calls.length; ci++) {
      while (li < logs.length && Number(big(logs[li].position)) <= ci) items.push({ log: logs[li++] });
      if (ci < calls.length) items.push({ call: calls[ci] });
    }
    while (li < logs.length) items.push({ log: logs[li++] });
    items.forEach((item, i) => {
      const b = i === items.length - 1 ? '└─ ' : '├─ ';
      if (item.call) return visit(item.call, depth + 1, childLead, b);
      const log = item.log!;
      const topic0 = log.topics?.[0];
      const decoded = log.topics?.length ? named?.artifacts.decodeLog(log.topics, log.data ?? '0x', nameOf(log.address)) : undefined;
      const name = decoded !== undefined ? formatDecoded(decoded) : topic0 === undefined ? c.dim('anonymous') : (sigs.events.get(topic0.toLowerCase()) ?? c.dim(topic0));
      const dataBytes = log.data && log.data.length > 2 ? (log.data.length - 2) / 2 : 0;
      lines.push(`${childLead}${b}${c.magenta('log')}  ${name}  ${c.dim(`${who(log.address)}  topics ${log.topics?.length ?? 0}  data ${dataBytes} bytes`)}`);
    });
  };
  visit(root, 0, '', '');
  return lines;
}

export function traceCommand(program: Command): void {
  addCommonOptions(
    program
      .command('trace')
      .argument('<txhash>', 'hash of a mined transaction')
      .description("show a transaction's call tree (debug_traceTransaction with the callTracer)")
      .option(
        '--abi <path>',
        'ABI or artifact JSON file, or a directory of them (Hardhat artifacts/, Foundry out/), naming contracts, functions, events and errors; repeatable (default: ./artifacts and ./out when present)',
        (value: string, prev: string[] | undefined) => [...(prev ?? []), value],
      )
      .option('--steps', 'also list every opcode (debug_traceTransaction struct log) beside its Solidity source line'),
  ).action(
    action(async (hash: string, flags: TraceFlags) => {
      if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new Error(`not a transaction hash: ${hash}`);
      const client = new RpcClient(flags.rpc);
      const trace = await client.call<CallFrame>('debug_traceTransaction', [hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }]);
      if (flags.json) return printJson(trace);
      const receipt = await client.call<{ status?: string; blockNumber: string; transactionIndex: string; gasUsed: string } | null>('eth_getTransactionReceipt', [hash]);
      const paths = flags.abi ?? detectArtifactDirs();
      const sigs = new Signatures();
      sigs.load(paths);
      const artifacts = loadArtifacts(paths, (line) => process.stderr.write(`warning: ${line}\n`));
      const named = await nameContracts(client, trace, artifacts);
      // Solidity locations: the node's sourceTracer (another node may not have it: no locations).
      const source = await client.call<SourceNode>('debug_traceTransaction', [hash, { tracer: 'sourceTracer' }]).catch(() => undefined);
      const local = source ? await LocalSources.of(client, source, artifacts) : undefined;
      const places: FramePlaces = new Map();
      for (const [frame, node] of pairFrames(trace, source)) places.set(frame, { entry: node.entry, exit: local ? local.fill(node, node.exit) : node.exit });
      const c = styles();
      const status = receipt?.status === '0x0' ? c.red('reverted') : c.green('success');
      const where = receipt ? `block #${big(receipt.blockNumber)}  index ${big(receipt.transactionIndex)}  ` : '';
      const lines = [`${c.bold('Transaction')} ${hash}`, `  ${where}${status}  gas used ${big(receipt?.gasUsed ?? trace.gasUsed)}`, '', ...renderCallTree(trace, sigs, named, places)];
      if (source) lines.push(...revertLines(source));
      if (flags.steps) {
        const steps = await client.call<{ structLogs: Array<{ pc: number; op: string; depth: number }> }>('debug_traceTransaction', [hash, { disableStack: true, disableStorage: true }]);
        lines.push('', c.bold('Steps'), ...stepLines(steps.structLogs, source ?? { type: trace.type, to: trace.to, input: trace.input, contract: null, entry: null, exit: null }, local));
      }
      write(lines.join('\n'));
    }),
  );
}

/** Match the code at every address of the tree against the artifacts. */
async function nameContracts(client: RpcClient, root: CallFrame, artifacts: Artifacts): Promise<Named | undefined> {
  if (artifacts.size === 0) return undefined;
  const addresses = new Set<string>();
  const collect = (f: CallFrame) => {
    for (const a of [f.from, f.to]) if (a) addresses.add(a.toLowerCase());
    f.calls?.forEach(collect);
  };
  collect(root);
  const contracts = new Map<string, string>();
  await Promise.all(
    [...addresses].map(async (a) => {
      const code = await client.call<string>('eth_getCode', [a, 'latest']).catch(() => '0x');
      const match = code.length > 2 ? artifacts.match(code) : undefined;
      if (match) contracts.set(a, match.name);
    }),
  );
  return { artifacts, contracts };
}
