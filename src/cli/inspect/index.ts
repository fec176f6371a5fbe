/** Inspection commands: they speak plain JSON-RPC to a node (by default the local dev node). */
import type { Command } from 'commander';
import { blockCommand } from './block.js';
import { traceCommand } from './trace.js';
import { txpoolCommand } from './txpool.js';

export function inspectCommands(program: Command): void {
  txpoolCommand(program);
  traceCommand(program);
  blockCommand(program);
}
