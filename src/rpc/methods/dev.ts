/**
 * Test controls under the names anvil, hardhat and ganache users know (anvil_*, hardhat_*, evm_*):
 * time travel, account cheats, the next blocks' settings, the pool, snapshots and reset (mining
 * modes are in mining.ts, state files in stateFiles.ts, node information in admin.ts). One
 * declaration serves every name of a method; where two peers give the same name different units,
 * the declaration says which it follows.
 */
import { bytesToHex, setLengthLeft } from '@ethereumjs/util';
import type { Calls, ChainReads, Submit, TestControls } from '../../chain/api.js';
import * as cheats from '../../chain/controls/cheats.js';
import { dealErc20, setErc20Allowance } from '../../chain/controls/erc20.js';
import { parseUpstreamUrl } from '../../chain/fork/client.js';
import { Fork } from '../../chain/fork/fork.js';
import type { TxRequest } from '../../chain/core/types.js';
import { hex, qty } from '../../format/hex.js';
import { address, bool, data, hash32, optional, quantity, uint64, type Codec } from '../codecs.js';
import { invalidParams } from '../errors.js';
import { txRequest } from '../params.js';
import { method, type MethodDef } from '../registry.js';
import { count, describe } from './devParams.js';

/** anvil_reorg's `[transaction, blockOffset]` pairs: a raw signed transaction or a request. */
const reorgPairs: Codec<Array<{ tx: Uint8Array | TxRequest; offset: number }>> = {
  type: 'list of [transaction, block offset]',
  parse(value, where) {
    if (!Array.isArray(value)) throw invalidParams(`invalid argument ${where}: expected a list of [transaction, block offset] pairs, got ${describe(value)}`);
    return value.map((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2) throw invalidParams(`invalid argument ${where}[${i}]: expected [transaction, block offset]`);
      const tx = typeof pair[0] === 'string' ? data.parse(pair[0], `${where}[${i}][0]`) : txRequest.parse(pair[0], `${where}[${i}][0]`);
      return { tx, offset: Number(count.parse(pair[1], `${where}[${i}][1]`)) };
    });
  },
};

/** Up to 32 bytes of hex (a storage slot or value); shorter values are left-padded. */
const word: Codec<Uint8Array> = {
  type: '32-byte word',
  parse(value, where) {
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]*$/.test(value)) throw invalidParams(`invalid argument ${where}: expected 0x-prefixed hex, got ${describe(value)}`);
    const digits = value.slice(2).replace(/^0+(?=.)/, '');
    if (digits.length > 64) throw invalidParams(`invalid argument ${where}: more than 32 bytes`);
    return setLengthLeft(Buffer.from(digits.padStart(digits.length + (digits.length % 2), '0'), 'hex'), 32);
  },
};

/** anvil_reset / hardhat_reset options: `{forking: {jsonRpcUrl?, blockNumber?}}` forks (again). */
interface ResetOptions {
  forking?: { jsonRpcUrl?: string; blockNumber?: bigint };
}

const resetOptions: Codec<ResetOptions | undefined> = {
  type: 'reset options',
  optional: true,
  parse(value, where) {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) throw invalidParams(`invalid argument ${where}: expected an object, got ${describe(value)}`);
    const forking = (value as Record<string, unknown>).forking;
    if (forking === undefined || forking === null) return {};
    if (typeof forking !== 'object' || Array.isArray(forking)) throw invalidParams(`invalid argument ${where}.forking: expected an object, got ${describe(forking)}`);
    const f = forking as Record<string, unknown>;
    const out: ResetOptions['forking'] = {};
    if (f.jsonRpcUrl !== undefined && f.jsonRpcUrl !== null) {
      if (typeof f.jsonRpcUrl !== 'string') throw invalidParams(`invalid argument ${where}.forking.jsonRpcUrl: expected a URL string, got ${describe(f.jsonRpcUrl)}`);
      out.jsonRpcUrl = f.jsonRpcUrl;
    }
    if (f.blockNumber !== undefined && f.blockNumber !== null) out.blockNumber = count.parse(f.blockNumber, `${where}.forking.blockNumber`);
    return { forking: out };
  },
};

/** A fork URL (http or https). */
const forkUrl: Codec<string> = {
  type: 'URL',
  parse(value, where) {
    if (typeof value !== 'string') throw invalidParams(`invalid argument ${where}: expected a URL string, got ${describe(value)}`);
    try {
      parseUpstreamUrl(value);
    } catch (err) {
      throw invalidParams(`invalid argument ${where}: ${(err as Error).message}`);
    }
    return value;
  },
};

export function devMethods(node: ChainReads & Calls & Submit & TestControls): MethodDef[] {
  return [
    // ------------------------------------------------------------ time
    /** Move the clock forward by `seconds`; answers the total offset in seconds. */
    method('evm_increaseTime', [count], (seconds) => node.controls.increaseTime(seconds), { aliases: ['anvil_increaseTime'] }),
    /** Timestamp of the next block; it must be later than the latest block's. */
    method('evm_setNextBlockTimestamp', [count], async (t) => {
      await node.controls.setNextTimestamp(t);
      return null;
    }, { aliases: ['anvil_setNextBlockTimestamp'] }),
    /** Set the clock to `timestamp` (blocks still never go back in time); answers the seconds it moved forward. */
    method('evm_setTime', [count], (t) => node.controls.setTime(t), { aliases: ['anvil_setTime'] }),
    /** Every next block `seconds` after its parent, whatever the clock says. */
    method('anvil_setBlockTimestampInterval', [count], async (seconds) => {
      if (seconds < 1n) throw invalidParams('invalid argument 0: the interval must be at least 1 second');
      await node.controls.setTimestampInterval(seconds);
      return null;
    }),
    /** The same in milliseconds, as viem's hardhat mode sends it (whole seconds are used). */
    method('hardhat_setBlockTimestampInterval', [count], async (ms) => {
      const seconds = ms / 1000n;
      if (seconds < 1n) throw invalidParams('invalid argument 0: the interval must be at least 1000 ms');
      await node.controls.setTimestampInterval(seconds);
      return null;
    }),
    /** Back to the clock; answers whether an interval was set. */
    method('anvil_removeBlockTimestampInterval', [], () => node.controls.setTimestampInterval(undefined), { aliases: ['hardhat_removeBlockTimestampInterval'] }),

    // ------------------------------------------------------------ accounts
    /** eth_sendTransaction from `address` needs no key until stopped. */
    method('anvil_impersonateAccount', [address], async (a) => {
      await node.controls.impersonate(a, true);
      return null;
    }, { aliases: ['hardhat_impersonateAccount'] }),
    method('anvil_stopImpersonatingAccount', [address], async (a) => {
      await node.controls.impersonate(a, false);
      return null;
    }, { aliases: ['hardhat_stopImpersonatingAccount'] }),
    /** Impersonate every sender (true) or only the listed ones (false). */
    method('anvil_autoImpersonateAccount', [bool], async (on) => {
      await node.controls.autoImpersonate(on);
      return null;
    }, { aliases: ['hardhat_autoImpersonateAccount'] }),
    /** Send from an impersonated account without a signature; answers the hash. */
    method('eth_sendUnsignedTransaction', [txRequest], async (req) => {
      if (!req.from) throw invalidParams('invalid argument 0: missing "from"');
      return hex(await node.intake.sendUnsigned(req));
    }),
    method('anvil_setBalance', [address, quantity], async (a, wei) => {
      await cheats.setBalance(node, a, wei);
      return null;
    }, { aliases: ['hardhat_setBalance', 'evm_setAccountBalance'] }),
    method('anvil_addBalance', [address, quantity], async (a, wei) => {
      await cheats.addBalance(node, a, wei);
      return null;
    }),
    method('anvil_setCode', [address, data], async (a, code) => {
      await cheats.setCode(node, a, code);
      return null;
    }, { aliases: ['hardhat_setCode', 'evm_setAccountCode'] }),
    method('anvil_setNonce', [address, count], async (a, nonce) => {
      await cheats.setNonce(node, a, nonce);
      return null;
    }, { aliases: ['hardhat_setNonce', 'evm_setAccountNonce'] }),
    /** Write one storage slot: address, slot (QUANTITY or 32 bytes), value (up to 32 bytes). */
    method('anvil_setStorageAt', [address, word, word], async (a, slot, value) => {
      await cheats.setStorageAt(node, a, slot, value);
      return true;
    }, { aliases: ['hardhat_setStorageAt', 'evm_setAccountStorageAt'] }),
    /** anvil's order: account, token, amount; the token's balance slot is found by probing (chain/controls/erc20.ts). */
    method('anvil_dealERC20', [address, address, count], async (account, token, amount) => {
      await dealErc20(node, account, token, amount);
      return null;
    }, { aliases: ['hardhat_dealERC20', 'anvil_setERC20Balance'] }),
    /** anvil's order: owner, spender, token, amount. */
    method('anvil_setERC20Allowance', [address, address, address, count], async (owner, spender, token, amount) => {
      await setErc20Allowance(node, owner, spender, token, amount);
      return null;
    }),

    // ------------------------------------------------------------ block settings
    /** Beneficiary of the next blocks (and eth_coinbase). */
    method('anvil_setCoinbase', [address], async (a) => {
      await node.controls.setCoinbase(a);
      return null;
    }, { aliases: ['hardhat_setCoinbase'] }),
    /** Floor for eth_gasPrice and for the fee eth_sendTransaction fills in, in wei. */
    method('anvil_setMinGasPrice', [quantity], async (wei) => {
      await node.controls.setMinGasPrice(wei);
      return null;
    }, { aliases: ['hardhat_setMinGasPrice'] }),
    /** Base fee of the next block only. */
    method('anvil_setNextBlockBaseFeePerGas', [quantity], async (wei) => {
      await node.controls.setNextBaseFee(wei);
      return null;
    }, { aliases: ['hardhat_setNextBlockBaseFeePerGas'] }),
    method('evm_setBlockGasLimit', [uint64], async (gas) => {
      if (gas < 21_000n) throw invalidParams('invalid argument 0: the block gas limit must be at least 21000');
      await node.controls.setBlockGasLimit(gas);
      return true;
    }, { aliases: ['anvil_setBlockGasLimit'] }),
    /** prevRandao (mixHash) of the next blocks. */
    method('hardhat_setPrevRandao', [hash32], async (r) => {
      await node.controls.setPrevRandao(r);
      return null;
    }, { aliases: ['anvil_setPrevRandao'] }),

    // ------------------------------------------------------------ pool
    /** Remove a waiting transaction; answers its hash, or null when the pool does not hold it. */
    method('anvil_dropTransaction', [hash32], async (h) => {
      const dropped = await cheats.dropTransaction(node, bytesToHex(h));
      return dropped ? dropped.hashHex : null;
    }, { aliases: ['hardhat_dropTransaction'] }),
    method('anvil_dropAllTransactions', [], async () => {
      await cheats.dropAllTransactions(node);
      return null;
    }, { aliases: ['hardhat_dropAllTransactions'] }),

    // ------------------------------------------------------------ snapshots and reset
    /** Snapshot id (QUANTITY) to revert to: state, blocks, pool, time and mining settings. */
    /** Drop the last `depth` blocks (default 1); their logs are reported removed. */
    method('anvil_rollback', [optional(count)], async (depth) => {
      await node.history.rollback(depth ?? 1n);
      return null;
    }),
    /** Replace the last `depth` blocks with new ones holding `[tx, blockOffset]` pairs (raw or request). */
    method('anvil_reorg', [count, reorgPairs], async (depth, pairs) => {
      await node.history.reorg(depth, pairs);
      return null;
    }),
    method('evm_snapshot', [], () => qty(node.history.snapshot()), { aliases: ['anvil_snapshot'] }),
    /** Back to the snapshot; it and later ones are used up. False for unknown ids. */
    method('evm_revert', [count], (id) => node.history.revert(id), { aliases: ['anvil_revert'] }),
    /**
     * A fresh genesis with the configured accounts. With `{forking: {jsonRpcUrl?, blockNumber?}}`
     * the genesis is that fork point (URL default: the current upstream; block default: its
     * latest); without, any fork is dropped.
     */
    method('anvil_reset', [resetOptions], async (opts) => {
      const forking = opts?.forking;
      if (forking === undefined) {
        await node.history.reset();
        return null;
      }
      const current = node.fork?.options;
      const url = forking.jsonRpcUrl ?? current?.url;
      if (url === undefined) throw invalidParams('invalid argument 0.forking: jsonRpcUrl is required (this node does not fork yet)');
      const fork = await Fork.open({ ...current, url, blockNumber: forking.blockNumber, chainId: undefined });
      await node.history.reset(fork).catch((err: unknown) => {
        fork.close();
        throw err;
      });
      return null;
    }, { aliases: ['hardhat_reset'] }),
    /** Read the fork's state and history from another URL from now on (same chain; caches kept). No-op without a fork, as in anvil. */
    method('anvil_setRpcUrl', [forkUrl], (url) => {
      node.fork?.setUrl(url);
      return null;
    }),
  ];
}
