/** The start-up banner: what a developer needs to connect and sign. */
import chalk from 'chalk';
import { bytesToHex, toChecksumAddress } from '@ethereumjs/util';
import type { DevNode } from '../chain/node.js';
import type { RpcServer } from '../server/server.js';
import { formatEther } from './units.js';

export function banner(node: DevNode, server: RpcServer, version: string): string {
  const c = node.config;
  const lines: string[] = [];
  const title = (s: string) => lines.push('', chalk.bold(s), chalk.dim('='.repeat(s.length)));
  lines.push(chalk.bold.cyan(`node-rpc v${version}`) + chalk.dim('  local Ethereum development chain'));
  title('Available Accounts');
  node.accounts.forEach((a, i) => lines.push(`(${i}) ${toChecksumAddress(a.address.toString())} (${formatEther(c.balance)} ETH)`));
  title('Private Keys');
  node.accounts.forEach((a, i) => lines.push(`(${i}) ${bytesToHex(a.privateKey)}`));
  title('Wallet');
  lines.push(`Mnemonic:        ${c.mnemonic}`, `Derivation path: ${c.derivationPath}<index>`);
  title('Chain');
  const fork = node.fork;
  if (fork) {
    const start = node.store.byNumber(fork.number)!.block.header;
    lines.push(
      `Chain ID:        ${c.chainId}${c.chainId === fork.chainId ? " (the upstream's)" : ''}`,
      `Hardfork:        ${c.hardfork}`,
      `Gas limit:       ${node.blockGasLimit}`,
      `Base fee:        ${start.baseFeePerGas ?? 0n} wei (fork block)`,
      `Gas price floor: ${c.gasPriceFloor} wei`,
    );
    title('Fork');
    lines.push(
      `Endpoint:        ${fork.url}`,
      `Block number:    ${fork.number}`,
      `Block hash:      ${fork.hashHex}`,
      `Block time:      ${fork.header.timestamp}`,
      `Upstream chain:  ${fork.chainId}`,
    );
    if (fork.cachePath) lines.push(`Cache:           ${fork.cachePath}`);
  } else {
    lines.push(
      `Chain ID:        ${c.chainId}`,
      `Hardfork:        ${c.hardfork}`,
      `Gas limit:       ${c.gasLimit}`,
      `Base fee:        ${c.baseFee} wei (genesis)`,
      `Gas price floor: ${c.gasPriceFloor} wei`,
      `Genesis:         ${node.head.hashHex} at ${node.head.block.header.timestamp}`,
    );
  }
  lines.push('', `Listening on ${chalk.green(server.url)} and ${chalk.green(server.wsUrl)}`, '');
  return lines.join('\n');
}
