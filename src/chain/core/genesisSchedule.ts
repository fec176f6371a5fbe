/** A genesis file's fork schedule: geth's `config` keys read into a ForkSchedule (config.ts). */
import { checkSchedule, parseHardfork, type BlobParams, type ForkSchedule, type ForkStart, type SupportedHardfork } from './config.js';
import { isObject, quantity } from './genesisFile.js';

/** geth's config keys of the forks that begin at a block, oldest first (spuriousDragon: eip155Block, as eip158Block). */
const BLOCK_KEYS: Array<[string, SupportedHardfork]> = [
  ['homesteadBlock', 'homestead'],
  ['eip150Block', 'tangerineWhistle'],
  ['eip155Block', 'spuriousDragon'],
  ['byzantiumBlock', 'byzantium'],
  ['constantinopleBlock', 'constantinople'],
  ['petersburgBlock', 'petersburg'],
  ['istanbulBlock', 'istanbul'],
  ['muirGlacierBlock', 'muirGlacier'],
  ['berlinBlock', 'berlin'],
  ['londonBlock', 'london'],
  ['arrowGlacierBlock', 'arrowGlacier'],
  ['grayGlacierBlock', 'grayGlacier'],
];

/** geth's config keys of the forks that begin at a time. */
const TIME_KEYS: Array<[string, SupportedHardfork]> = [
  ['shanghaiTime', 'shanghai'],
  ['cancunTime', 'cancun'],
  ['pragueTime', 'prague'],
  ['osakaTime', 'osaka'],
  ['bpo1Time', 'bpo1'],
  ['bpo2Time', 'bpo2'],
];

/**
 * The fork schedule of a genesis file's `config`, as geth reads it: each fork at its block or time;
 * petersburg with constantinople when not given (geth's rule); paris at `mergeNetsplitBlock` (or
 * `mergeForkBlock`), at genesis when the terminal total difficulty is 0 or passed, or before the
 * first timed fork. Forks that begin together collapse to the newest. A string naming the problem
 * when the schedule cannot be run.
 */
export function scheduleOfGenesis(config: Record<string, unknown>): ForkSchedule | string {
  const at = (key: string): bigint | undefined => quantity(config[key], `config.${key}`);
  if (config.eip155Block !== undefined && config.eip158Block !== undefined && at('eip155Block') !== at('eip158Block')) {
    return 'config.eip155Block and config.eip158Block differ (both begin spuriousDragon)';
  }
  if (config.daoForkSupport === true && config.daoForkBlock !== undefined && config.daoForkBlock !== null) return 'config.daoForkBlock: the DAO fork is not supported';
  const byBlock: Array<{ fork: SupportedHardfork; block: bigint }> = [{ fork: 'chainstart', block: 0n }];
  for (const [key, fork] of BLOCK_KEYS) {
    let block = at(key);
    if (block === undefined && fork === 'spuriousDragon') block = at('eip158Block');
    if (block === undefined && fork === 'petersburg') block = at('constantinopleBlock');
    if (block !== undefined) byBlock.push({ fork, block });
  }
  const ttd = at('terminalTotalDifficulty');
  const timed = TIME_KEYS.flatMap(([key, fork]) => {
    const time = at(key);
    return time === undefined ? [] : [{ fork, time }];
  });
  const merge = at('mergeNetsplitBlock') ?? at('mergeForkBlock');
  if (merge !== undefined) byBlock.push({ fork: 'paris', block: merge });
  else if (ttd === 0n || config.terminalTotalDifficultyPassed === true || timed.length > 0) byBlock.push({ fork: 'paris', block: byBlock[byBlock.length - 1].block });
  const forks: ForkStart[] = [];
  for (const f of byBlock) {
    // A fork beginning with the one before it replaces it.
    if (forks.length > 0 && forks[forks.length - 1].block === f.block) forks.pop();
    forks.push(f);
  }
  for (const f of timed) {
    const last = forks[forks.length - 1];
    if (last.time === f.time || (last.block === 0n && f.time === 0n && forks.length === 1)) forks.pop();
    forks.push(f);
  }
  const blobSchedule: Partial<Record<SupportedHardfork, BlobParams>> = {};
  if (config.blobSchedule !== undefined && config.blobSchedule !== null) {
    if (!isObject(config.blobSchedule)) return 'config.blobSchedule: must be an object of forks to {target, max, baseFeeUpdateFraction}';
    for (const [name, p] of Object.entries(config.blobSchedule)) {
      const fork = parseHardfork(name);
      if (fork === undefined) return `config.blobSchedule.${name}: not a fork`;
      if (!isObject(p)) return `config.blobSchedule.${name}: must be {target, max, baseFeeUpdateFraction}`;
      const [target, max, fraction] = (['target', 'max', 'baseFeeUpdateFraction'] as const).map((k) => quantity(p[k], `config.blobSchedule.${name}.${k}`));
      if (target === undefined || max === undefined || fraction === undefined) return `config.blobSchedule.${name}: needs target, max and baseFeeUpdateFraction`;
      blobSchedule[fork] = { target: Number(target), max: Number(max), baseFeeUpdateFraction: Number(fraction) };
    }
  }
  const schedule: ForkSchedule = {
    forks,
    ...(ttd !== undefined ? { terminalTotalDifficulty: ttd } : {}),
    ...(Object.keys(blobSchedule).length > 0 ? { blobSchedule } : {}),
  };
  return checkSchedule(schedule) ?? schedule;
}
