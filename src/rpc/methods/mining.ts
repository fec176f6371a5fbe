/**
 * Mining controls (evm_setAutomine, evm_setIntervalMining, evm_mine, anvil_mine and their other
 * names): automine, interval mining, and blocks mined on request.
 */
import type { TestControls } from '../../chain/api.js';
import { formatBlock } from '../../format/block.js';
import { bool, optional, type Codec } from '../codecs.js';
import { invalidParams } from '../errors.js';
import { method, type MethodDef } from '../registry.js';
import { count } from './devParams.js';

/** Most blocks one mining call may add. */
export const MAX_MINE_COUNT = 10_000_000;

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

const secondsToMs = (s: bigint): number => Number(s) * 1000;

export function miningMethods(node: TestControls): MethodDef[] {
  const checkCount = (n: bigint, where: string) => {
    if (n > BigInt(MAX_MINE_COUNT)) throw invalidParams(`invalid argument ${where}: at most ${MAX_MINE_COUNT} blocks per call`);
    return Number(n);
  };

  return [
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
  ];
}
