/**
 * The live state's VMs, one per fork of the chain's rules (engine/common.ts `ChainRules`), all
 * over the same state manager: a block runs the VM of its number and time. A chain on one fork
 * keeps its one VM in a field, so the hot paths look nothing up.
 */
import type { Common } from '@ethereumjs/common';
import { createVM, type VM } from '@ethereumjs/vm';
import { ChainRules } from './engine/common.js';
import type { ForkSchedule } from './core/config.js';

export class LiveRules {
  /** The one VM of a chain that runs one fork; undefined on a schedule. */
  readonly single: VM | undefined;

  private constructor(
    readonly rules: ChainRules,
    private readonly vms: Map<Common, VM>,
  ) {
    this.single = rules.single && vms.get(rules.single);
  }

  /** A VM for each Common of `rules` over `state`; `first`, when given, is the one built for the last fork. */
  static async of(rules: ChainRules, state: VM['stateManager'], history: VM['blockchain'], first?: VM): Promise<LiveRules> {
    const vms = new Map<Common, VM>();
    for (const common of rules.commons()) {
      vms.set(common, first !== undefined && common === rules.last ? first : await createVM({ common, stateManager: state, blockchain: history, setHardfork: false }));
    }
    return new LiveRules(rules, vms);
  }

  /** Rules and VMs over the same state for chain id `chainId` and `schedule` (anvil_setChainId, a reset to another upstream). */
  with(chainId: bigint, schedule: ForkSchedule): Promise<LiveRules> {
    const r = this.rules;
    const any = this.vms.values().next().value!;
    return LiveRules.of(new ChainRules(chainId, schedule, r.codeSizeLimit, r.blockRewards), any.stateManager, any.blockchain);
  }

  /** The VM of the rules block `number` at `timestamp` runs. */
  vmAt(number: bigint, timestamp: bigint): VM {
    return this.single ?? this.vms.get(this.rules.at(number, timestamp))!;
  }
}
