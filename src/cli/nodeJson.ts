/**
 * The node's start-up facts as anvil's `--config-out` JSON, for `--config-out <file>` and
 * `--json` (the same object as one stdout line). Field names, value types and the fork variant
 * follow anvil 1.7.1: addresses lowercase, keys 0x-hex, fees and timestamp as decimal strings,
 * fork block number and chain ids as numbers, the fork URL cut to its origin. Added after anvil's
 * fields: `chain_id` on a fresh chain too, and `rpc_url` / `ws_url` (with `--port 0` a launcher
 * learns the port here).
 */
import { bytesToHex } from '@ethereumjs/util';
import type { DevNode } from '../chain/node.js';
import type { RpcServer } from '../server/server.js';
import type { SharedBanner } from './banner.js';

/** `https://user:key@host/v2/KEY?x` → `https://host/`, as anvil redacts a fork URL. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/`;
  } catch {
    return '<redacted>';
  }
}

/** A shared node whose signing is locked (`--public` without `--unlock`) gives out no keys. */
export function nodeJson(node: DevNode, server: RpcServer, shared?: SharedBanner): Record<string, unknown> {
  const c = node.config;
  const keys = shared === undefined || shared.unlock;
  const fork = node.fork;
  const start = node.store.byNumber(fork ? fork.number : 0n)?.block.header ?? node.head.block.header;
  const common = {
    available_accounts: node.accounts.map((a) => a.address.toString()),
    private_keys: keys ? node.accounts.map((a) => bytesToHex(a.privateKey)) : [],
  };
  const wallet = keys ? { mnemonic: c.mnemonic, derivation_path: c.derivationPath } : {};
  const fees = {
    base_fee: String(fork ? (start.baseFeePerGas ?? 0n) : c.baseFee),
    gas_price: String(c.gasPriceFloor),
    gas_limit: String(node.blockGasLimit),
  };
  const urls = { rpc_url: server.url, ws_url: server.wsUrl };
  if (fork) {
    return {
      ...common,
      endpoint: redact(fork.url),
      block_number: Number(fork.number),
      block_hash: fork.hashHex,
      chain_id: Number(c.chainId),
      source_chain_id: Number(fork.chainId),
      wallet,
      ...fees,
      ...urls,
    };
  }
  return { ...common, wallet, ...fees, genesis_timestamp: String(start.timestamp), chain_id: Number(c.chainId), ...urls };
}
