/** The node-rpc command line. */
import { Command } from 'commander';
import { devCommand } from './dev.js';
import { inspectCommands } from './inspect/index.js';
import { VERSION } from '../lib/version.js';

/** Run the command line `argv` (process.argv: node, script, then the arguments). */
export function runCli(argv: string[]): void {
  const program = new Command('node-rpc')
    .description('A local Ethereum development chain: JSON-RPC over HTTP and WebSocket, with debug_* tracing and txpool_* inspection')
    .version(VERSION);
  devCommand(program);
  inspectCommands(program);
  program.parseAsync(argv).catch((err: Error) => {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  });
}
