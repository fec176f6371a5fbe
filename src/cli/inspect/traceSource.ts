/**
 * Solidity source for `node-rpc trace`: the node's sourceTracer tree lined up with the
 * callTracer's (same frames, same order), locations filled in from the command's own artifacts
 * where the node had none, and `--steps`: every opcode of the struct log beside its source line.
 */
import { hexToBytes } from '@ethereumjs/util';
import type { Artifacts } from '../../artifacts/artifacts.js';
import type { CodeSource } from '../../chain/core/sources.js';
import type { Place } from '../../trace/sourceTracer.js';
import { safe, styles, type RpcClient } from './client.js';

export type { Place };

export interface SourceNode {
  type: string;
  to?: string;
  input?: string;
  contract: string | null;
  entry: Place | null;
  exit: Place | null;
  callSite?: Place;
  calls?: SourceNode[];
  revert?: Failure;
  /** A failure the frame's caller handled (try/catch), with its own Solidity stack. */
  caught?: Failure;
}

interface Failure {
  message: string;
  stack: Place[];
  snippet: Array<{ line: number; text: string }>;
}

/** The source of each frame's code, from the command's artifacts (code read from the node). */
export class LocalSources {
  private readonly byFrame = new Map<SourceNode, CodeSource | undefined>();

  private constructor(private readonly artifacts: Artifacts) {}

  static async of(client: RpcClient, root: SourceNode, artifacts: Artifacts): Promise<LocalSources | undefined> {
    if (artifacts.sources.mapped === 0) return undefined;
    const local = new LocalSources(artifacts);
    const codes = new Map<string, Promise<string>>();
    const visit = async (n: SourceNode): Promise<void> => {
      const create = n.type === 'CREATE' || n.type === 'CREATE2';
      let hex: string | undefined = create ? n.input : undefined;
      if (!create && n.to) {
        const to = n.to.toLowerCase();
        if (!codes.has(to)) codes.set(to, client.call<string>('eth_getCode', [to, 'latest']).catch(() => '0x'));
        hex = await codes.get(to);
      }
      local.byFrame.set(n, hex && hex.length > 2 ? local.artifacts.sources.code(hexToBytes(hex as `0x${string}`), create) : undefined);
      await Promise.all((n.calls ?? []).map(visit));
    };
    await visit(root);
    return local;
  }

  source(n: SourceNode): CodeSource | undefined {
    return this.byFrame.get(n);
  }

  /** `p` as the node gave it, or located here when the node had no source for it. */
  fill(n: SourceNode, p: Place | null | undefined): Place | null {
    if (!p || p.file !== null) return p ?? null;
    const l = this.byFrame.get(n)?.locate(p.pc);
    return l ? { pc: p.pc, contract: l.contract ?? null, function: l.function ?? null, file: l.file, line: l.line, column: l.column, code: l.text } : p;
  }
}

/** Pair every callTracer frame with its sourceTracer node (both trees list the same frames in the same order). */
export function pairFrames<F extends { type: string; calls?: F[] }>(call: F, source: SourceNode | undefined, out = new Map<F, SourceNode>()): Map<F, SourceNode> {
  if (!source || source.type !== call.type) return out;
  out.set(call, source);
  (call.calls ?? []).forEach((c, i) => pairFrames(c, source.calls?.[i], out));
  return out;
}

export const placeText = (p: Place): string => `${p.contract ?? '?'}${p.function ? '.' + p.function : ''} ${p.file}:${p.line}${p.column ? ':' + p.column : ''}`;

function failureLines(r: Failure, label: string): string[] {
  const c = styles();
  const target = r.stack[0]?.line;
  const width = String(r.snippet[r.snippet.length - 1]?.line ?? 0).length;
  return [
    '',
    c.red(label + safe(r.message)),
    ...r.snippet.map((s) => `${s.line === target ? c.red('>') : ' '} ${c.dim(String(s.line).padStart(width) + ' |')} ${safe(s.text)}`),
  ];
}

/** The lines under the tree: each caught failure and the revert, with their messages and the source around them. */
export function revertLines(root: SourceNode): string[] {
  const out: string[] = [];
  const visit = (n: SourceNode) => {
    if (n.caught) out.push(...failureLines(n.caught, 'caught: '));
    n.calls?.forEach(visit);
  };
  visit(root);
  if (root.revert) out.push(...failureLines(root.revert, ''));
  return out;
}

interface StructLog {
  pc: number;
  op: string;
  depth: number;
}

/** `--steps`: each opcode of the struct log, with the source line it belongs to when known. */
export function stepLines(logs: StructLog[], root: SourceNode, local: LocalSources | undefined): string[] {
  const c = styles();
  const frames: Array<{ node: SourceNode; next: number }> = [{ node: root, next: 0 }];
  const out: string[] = [];
  for (const s of logs) {
    while (frames.length > s.depth) frames.pop();
    while (frames.length < s.depth) {
      const top = frames[frames.length - 1]!;
      const child = top.node.calls?.[top.next++];
      if (!child) break;
      frames.push({ node: child, next: 0 });
    }
    const node = frames[frames.length - 1]!.node;
    const l = local?.source(node)?.locate(s.pc);
    const where = l ? `  ${c.dim(`${l.file}:${l.line}`)}  ${safe(l.text.trim())}` : '';
    out.push(`${c.dim(String(s.depth - 1))} ${String(s.pc).padStart(5)}  ${s.op.padEnd(14)}${where}`);
  }
  return out;
}
