/** The start-up banner: what a developer needs to connect and sign. */
import chalk from 'chalk';
import { bytesToHex } from '@ethereumjs/util';
import { checksummed } from '../lib/checksum.js';
import type { DevNode } from '../chain/node.js';
import { LATEST_HARDFORK, forkAt } from '../chain/core/config.js';
import { knownChainName } from '../chain/engine/common.js';
import type { RpcServer } from '../server/server.js';
import { formatEther } from '../lib/units.js';

/** How a shared node (--public) is locked: it prints no keys unless signing is unlocked. */
export interface SharedBanner {
  unlock: boolean;
  allowCheats: boolean;
}

export function banner(node: DevNode, server: RpcServer, version: string, shared?: SharedBanner): string {
  const c = node.config;
  const lines: string[] = [];
  const title = (s: string) => lines.push('', chalk.bold(s), chalk.dim('='.repeat(s.length)));
  lines.push(chalk.bold.cyan(`node-rpc v${version}`) + chalk.dim('  local Ethereum development chain'));
  title('Available Accounts');
  node.accounts.forEach((a, i) => lines.push(`(${i}) ${checksummed(a.address.toString())} (${formatEther(c.balance)} ETH)`));
  if (shared === undefined || shared.unlock) {
    title('Private Keys');
    node.accounts.forEach((a, i) => lines.push(`(${i}) ${bytesToHex(a.privateKey)}`));
    title('Wallet');
    lines.push(`Mnemonic:        ${c.mnemonic}`, `Derivation path: ${c.derivationPath}<index>`);
  }
  if (shared !== undefined) {
    title('Shared node');
    lines.push(
      `Signing:         ${shared.unlock ? 'unlocked: eth_sendTransaction and eth_sign* sign with the accounts above (--unlock)' : 'locked: send transactions signed by the client (eth_sendRawTransaction); --unlock opens eth_sendTransaction, eth_sign*, impersonation'}`,
      `Test controls:   ${shared.allowCheats ? 'allowed (--allow-cheats)' : 'locked: anvil_*, hardhat_*, evm_* that change the chain are refused; --allow-cheats opens them'}`,
    );
  }
  title('Chain');
  const fork = node.fork;
  if (fork) {
    const start = node.store.byNumber(fork.number)!.block.header;
    lines.push(
      `Chain ID:        ${c.chainId}${c.chainId === fork.chainId ? " (the upstream's)" : ''}`,
      `Hardfork:        ${forkRulesLine(node, fork.chainId)}`,
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
  if (c.codeSizeLimit !== undefined) lines.push(`Code size limit: ${Number.isFinite(c.codeSizeLimit) ? `${c.codeSizeLimit} bytes (init code ${2 * c.codeSizeLimit})` : 'none'}`);
  lines.push('', `Listening on ${chalk.green(server.url)} and ${chalk.green(server.wsUrl)}`, '');
  return lines.join('\n');
}

/**
 * The rules of a fork: a known chain's schedule (the fork block's fork, and the chain's forks after
 * it, which local blocks follow), or the fork picked, saying when it is only the default.
 */
function forkRulesLine(node: DevNode, upstreamChainId: bigint): string {
  const c = node.config;
  const fork = node.fork!;
  const name = knownChainName(upstreamChainId);
  if (c.schedule !== undefined) {
    const at = forkAt(c.schedule, fork.number, fork.header.timestamp);
    return `${at} at the fork block; local blocks follow ${name ?? 'the chain'}'s fork schedule (now ${node.hardfork})`;
  }
  if (name === undefined && c.hardfork === LATEST_HARDFORK) return `${c.hardfork} (the default: chain ${upstreamChainId}'s forks are not known here; --hardfork picks another)`;
  return c.hardfork;
}
