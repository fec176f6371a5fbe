/**
 * Test controls under the names anvil, hardhat and ganache users know (anvil_*, hardhat_*, evm_*):
 * mining modes, time travel, account cheats, snapshots, reset and state dumps. One declaration
 * serves every name of a method; where two peers give the same name different units, the
 * declaration says which it follows.
 */
import { bytesToHex, setLengthLeft } from '@ethereumjs/util';
import { ANVIL_NAMES } from '../../chain/core/config.js';
import * as cheats from '../../chain/controls/cheats.js';
import { dealErc20, setErc20Allowance } from '../../chain/controls/erc20.js';
import { parseUpstreamUrl } from '../../chain/fork/client.js';
import { Fork } from '../../chain/fork/fork.js';
import type { DevNode } from '../../chain/node.js';
import type { TxRequest } from '../../chain/core/types.js';
import { applyState, decodeStateBlob, dumpStateText, encodeStateBlob, parseState } from '../../chain/controls/stateFile.js';
import { formatBlock } from '../../format/block.js';
import { addr, hex, qty } from '../../format/hex.js';
import { address, bool, data, hash32, optional, quantity, uint64, type Codec } from '../codecs.js';
import { invalidParams } from '../errors.js';
import { txRequest } from '../params.js';
import { method, type MethodDef } from '../registry.js';

/** Most blocks one mining call may add. */
export const MAX_MINE_COUNT = 10_000_000;

const describe = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

/** A non-negative whole number given as a JSON number or a hex QUANTITY (hardhat sends numbers). */
const count: Codec<bigint> = {
  type: 'number or QUANTITY',
  parse(value, where) {
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value < 0) throw invalidParams(`invalid argument ${where}: expected a non-negative integer, got ${value}`);
      return BigInt(value);
    }
    if (typeof value === 'string' && value.startsWith('0x')) return quantity.parse(value, where);
    throw invalidParams(`invalid argument ${where}: expected a number or a hex QUANTITY, got ${describe(value)}`);
  },
};

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

/** evm_mine's argument: a timestamp (number or QUANTITY) or ganache's `{ timestamp, blocks }`. */
interface MineOptions {
  timestamp?: bigint;
  blocks?: bigint;
}
const mineOptions: Codec<MineOptions> = {
  type: 'mine options',
  optional: true,
  parse(value, where) {
    if (value === undefined || value === null) return {};
    if (typeof value === 'object' && !Array.isArray(value)) {
      const o = value as Record<string, unknown>;
      return {
        timestamp: o.timestamp === undefined || o.timestamp === null ? undefined : count.parse(o.timestamp, `${where}.timestamp`),
        blocks: o.blocks === undefined || o.blocks === null ? undefined : count.parse(o.blocks, `${where}.blocks`),
      };
    }
    return { timestamp: count.parse(value, where) };
  },
};

/**
 * evm_setIntervalMining's argument. Hardhat gives milliseconds (or a [min, max] range), anvil
 * gives seconds under the same name: a range or a value of 100 or more is read as milliseconds,
 * a smaller one as seconds, so both kinds of test suite get what they mean.
 */
const miningInterval: Codec<{ ms: number; maxMs?: number }> = {
  type: 'mining interval',
  parse(value, where) {
    if (Array.isArray(value)) {
      if (value.length !== 2) throw invalidParams(`invalid argument ${where}: a range is [min, max] in milliseconds`);
      const min = Number(count.parse(value[0], `${where}[0]`));
      const max = Number(count.parse(value[1], `${where}[1]`));
      if (max < min) throw invalidParams(`invalid argument ${where}: range maximum ${max} is below its minimum ${min}`);
      return { ms: min, maxMs: max };
    }
    const n = Number(count.parse(value, where));
    return { ms: n >= 100 ? n : n * 1000 };
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

const secondsToMs = (s: bigint): number => Number(s) * 1000;

export function devMethods(node: DevNode, version: string, client: string): MethodDef[] {
  const checkCount = (n: bigint, where: string) => {
    if (n > BigInt(MAX_MINE_COUNT)) throw invalidParams(`invalid argument ${where}: at most ${MAX_MINE_COUNT} blocks per call`);
    return Number(n);
  };

  return [
    // ------------------------------------------------------------ mining modes
    /** Mine on every transaction (on) or only on request / interval (off); turning it on mines what waits. */
    method('evm_setAutomine', [bool], async (on) => {
      await node.miner.setAutomine(on);
      return null;
    }, { aliases: ['anvil_setAutomine'] }),
    method('anvil_getAutomine', [], () => node.mining.auto, { aliases: ['hardhat_getAutomine'] }),
    /** Interval mining, hardhat units: milliseconds or [min, max] (small values: seconds, see miningInterval). 0 turns it off. */
    method('evm_setIntervalMining', [miningInterval], async ({ ms, maxMs }) => {
      await node.inOrder(() => node.miner.setIntervalMining(ms, maxMs));
      return null;
    }),
    /** Interval mining, anvil units: a block every `seconds`, automine off (0 turns the interval off). */
    method('anvil_setIntervalMining', [count], async (seconds) => {
      await node.controls.intervalMining(secondsToMs(seconds));
      return null;
    }),
    /** Seconds between interval-mined blocks, or null when interval mining is off. */
    method('anvil_getIntervalMining', [], () => (node.mining.intervalMs === undefined ? null : node.mining.intervalMs / 1000)),
    /** Mine one block (optionally at `timestamp`), or ganache's `{ timestamp, blocks }`. */
    method('evm_mine', [mineOptions], async (o) => {
      await node.miner.mineBlocks(checkCount(o.blocks ?? 1n, '0.blocks'), { timestamp: o.timestamp });
      return '0x0';
    }),
    /**
     * Mine `count` blocks (default 1), `interval` seconds apart after the first. Long runs of empty
     * blocks are recorded at once and built when asked for.
     */
    method('anvil_mine', [optional(count, 1n), optional(count, 0n)], async (n, interval) => {
      await node.miner.mineBlocks(checkCount(n, '0'), { interval: interval > 0n ? interval : undefined });
      return null;
    }, { aliases: ['hardhat_mine'] }),
    /** Like evm_mine, answering with the mined blocks (full transactions). */
    method('anvil_mine_detailed', [mineOptions], async (o) => {
      const blocks = await node.miner.mineBlocks(checkCount(o.blocks ?? 1n, '0.blocks'), { timestamp: o.timestamp, detailed: true });
      return blocks.map((b) => formatBlock(b, true));
    }, { aliases: ['evm_mine_detailed'] }),

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
    method('anvil_setChainId', [count], async (id) => {
      if (id < 1n || id > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidParams('invalid argument 0: chain id out of range');
      await node.setChainId(id);
      return null;
    }),
    /** Request and block logging of the CLI. */
    method('anvil_setLoggingEnabled', [bool], (on) => {
      node.controls.setLogging(on);
      return null;
    }, { aliases: ['hardhat_setLoggingEnabled'] }),

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

    // ------------------------------------------------------------ state dumps
    /**
     * The whole chain (accounts and history) in anvil's format, gzip-compressed JSON as 0x-hex.
     * anvil's optional flag (keep historical states) is accepted; older states are never held here.
     */
    method('anvil_dumpState', [optional(bool)], async () => encodeStateBlob(await dumpStateText(node, `node-rpc/${version}`)), { aliases: ['hardhat_dumpState'] }),
    /**
     * Load a dump (gzip or plain JSON as 0x-hex; anvil's dumps give their accounts): accounts are
     * written over the live state; the history replaces the chain when it is longer.
     */
    method('anvil_loadState', [data], async (blob) => {
      await applyState(node, await parseState(node, decodeStateBlob(blob)));
      return true;
    }, { aliases: ['hardhat_loadState'] }),

    // ------------------------------------------------------------ node info
    method('anvil_nodeInfo', [], () => {
      const head = node.head;
      const h = head.block.header;
      return {
        currentBlockNumber: qty(head.number),
        currentBlockTimestamp: Number(h.timestamp),
        currentBlockHash: head.hashHex,
        hardFork: ANVIL_NAMES[node.config.hardfork],
        transactionOrder: node.mining.order,
        environment: {
          baseFee: qty(node.nextBaseFee()),
          chainId: Number(node.config.chainId),
          gasLimit: qty(node.blockGasLimit),
          gasPrice: qty(node.gasPrice()),
        },
        forkConfig: { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
      };
    }),
    /** Client, chain and snapshot facts (hardhat_metadata's shape, plus anvil's snapshots). */
    method('anvil_metadata', [], async () => {
      const snapshots: Record<string, [number, string]> = {};
      for (const id of node.history.snapshotIds()) {
        const n = await node.history.snapshotBlock(id);
        const b = n === undefined ? undefined : node.store.byNumber(n);
        if (b) snapshots[qty(id)] = [Number(b.number), b.hashHex];
      }
      const head = node.head;
      return {
        clientVersion: client,
        chainId: Number(node.config.chainId),
        instanceId: node.instanceId,
        latestBlockNumber: Number(head.number),
        latestBlockHash: head.hashHex,
        forkedNetwork: null,
        snapshots,
        coinbase: addr(node.coinbase),
      };
    }, { aliases: ['hardhat_metadata'] }),
  ];
}
