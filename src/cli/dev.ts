/** `node-rpc dev`: boot the chain, serve it, log requests and blocks, shut down cleanly. */
import type { Command } from 'commander';
import { defaultConfig, GWEI, type ChainConfig, type SupportedHardfork } from '../chain/config.js';
import { banner } from './banner.js';
import { bigUint, derivationPath, ether, hardfork, intIn, mnemonic } from './flags.js';
import { RequestLog } from './log.js';
import { startDev } from './start.js';
import { VERSION } from './version.js';

interface DevFlags {
  port: number;
  host: string;
  chainId: number;
  accounts: number;
  balance: bigint;
  mnemonic: string;
  derivationPath: string;
  gasLimit: bigint;
  baseFee?: bigint;
  gasPrice: bigint;
  hardfork: SupportedHardfork;
  silent?: boolean;
}

export function devCommand(program: Command): void {
  const d = defaultConfig();
  program
    .command('dev')
    .description('start an instant-mining local chain serving JSON-RPC over HTTP and WebSocket')
    .option('-p, --port <port>', 'port to listen on (0 = any free port)', intIn(0, 65535, 'port'), 8545)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--chain-id <id>', 'chain id', intIn(1, Number.MAX_SAFE_INTEGER, 'chain id'), Number(d.chainId))
    .option('-a, --accounts <n>', 'number of dev accounts', intIn(0, 10_000, 'accounts'), d.accounts)
    .option('--balance <ether>', 'balance of each dev account, in ether', ether, d.balance)
    .option('-m, --mnemonic <words>', 'BIP-39 mnemonic the dev accounts derive from', mnemonic, d.mnemonic)
    .option('--derivation-path <path>', 'derivation path prefix; the account index is appended', derivationPath, d.derivationPath)
    .option('--gas-limit <gas>', 'block gas limit', bigUint('gas limit', 21_000n), d.gasLimit)
    .option('--base-fee <wei>', 'base fee of the genesis block, in wei (default 1 gwei)', bigUint('base fee'))
    .option('--block-base-fee-per-gas <wei>', 'alias of --base-fee', bigUint('base fee'))
    .option('--gas-price <wei>', 'floor for eth_gasPrice, in wei', bigUint('gas price'), 7n * GWEI)
    .option('--hardfork <name>', 'hardfork rules: shanghai, cancun or prague', hardfork, d.hardfork)
    .option('--silent', 'print only errors')
    .action(async (flags: DevFlags & { blockBaseFeePerGas?: bigint }) => {
      const chain: Partial<ChainConfig> = {
        chainId: BigInt(flags.chainId),
        accounts: flags.accounts,
        balance: flags.balance,
        mnemonic: flags.mnemonic,
        derivationPath: flags.derivationPath,
        gasLimit: flags.gasLimit,
        baseFee: flags.baseFee ?? flags.blockBaseFeePerGas ?? d.baseFee,
        gasPriceFloor: flags.gasPrice,
        hardfork: flags.hardfork,
      };
      const out = (line: string) => process.stdout.write(line + '\n');
      const log = new RequestLog(out, flags.silent === true);
      let running;
      try {
        running = await startDev({ host: flags.host, port: flags.port, chain, observe: log.observe });
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        const why = e.code === 'EADDRINUSE' ? `port ${flags.port} on ${flags.host} is already in use (try --port 0 or another port)` : e.message;
        process.stderr.write(`error: cannot start: ${why}\n`);
        process.exit(1);
      }
      running.node.events.on('block', (b) => log.block(b));
      if (!flags.silent) out(banner(running.node, running.server, VERSION));
      let stopping = false;
      const stop = async () => {
        if (stopping) return;
        stopping = true;
        log.flush();
        await running.close();
        process.exit(0);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
}
