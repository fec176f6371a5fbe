/**
 * An owner: the one class that writes one kind of the node's state (the clock, the fees, the pool,
 * the head, …). It alone changes that state, through its methods, and it alone knows how to record
 * it (`snapshot`), put a record back (`restore`) and start over (`reset`). The node registers every
 * owner in an `Owners` list; evm_snapshot, evm_revert and anvil_reset go through that list, so a
 * new owner is covered because it is registered, and a field added to an owner's record is covered
 * because the record is copied whole.
 */
export interface Owner<S = unknown> {
  /** A name for messages and tests. */
  readonly name: string;
  /** Record the state (a snapshot taken in the node's lock order). */
  snapshot(): S | Promise<S>;
  /** Put a record from `snapshot` back. */
  restore(s: S): void | Promise<void>;
  /** Back to the state a fresh node starts with (anvil_reset). */
  reset(): void | Promise<void>;
}

/**
 * An owner whose state is one plain record of values (no nested objects changed in place):
 * `snapshot` copies the record, `restore` puts a copy back, `reset` builds the initial one again.
 * Subclasses read `this.s` and replace its fields; a field added to the record type is snapshotted,
 * restored and reset with the others.
 */
export abstract class RecordOwner<S extends object> implements Owner<S> {
  protected s: S;

  constructor(
    readonly name: string,
    private readonly initial: () => S,
  ) {
    this.s = initial();
  }

  snapshot(): S {
    return { ...this.s };
  }

  restore(s: S): void {
    this.s = { ...s };
    this.restored();
  }

  reset(): void {
    this.s = this.initial();
    this.restored();
  }

  /** The record as it stands (read-only; state files and tests read it). */
  record(): Readonly<S> {
    return this.s;
  }

  /** Called after the record was replaced (restore, reset): owners with timers or caches follow it here. */
  protected restored(): void {}
}

/** An owner of any record type (what the list holds). */
export interface AnyOwner {
  readonly name: string;
  snapshot(): unknown;
  restore(s: never): void | Promise<void>;
  reset(): void | Promise<void>;
}

/** Records of a snapshot, by owner. */
export type OwnerRecords = ReadonlyMap<AnyOwner, unknown>;

/** The node's owners, in registration order (the head first: reverts rewind it before the rest). */
export class Owners {
  private readonly list: Owner[] = [];

  add<O extends AnyOwner>(owner: O): O {
    if (this.list.some((o) => o.name === owner.name)) throw new Error(`owner ${owner.name} registered twice`);
    this.list.push(owner as unknown as Owner);
    return owner;
  }

  all(): readonly Owner[] {
    return this.list;
  }

  /** Every owner's record (caller holds the node's lock). */
  async snapshot(): Promise<OwnerRecords> {
    const out = new Map<AnyOwner, unknown>();
    for (const o of this.list) out.set(o, await o.snapshot());
    return out;
  }

  /** Put back records from `snapshot`, in order; an owner registered since has none and is left as it is (caller holds the node's lock). */
  async restore(records: OwnerRecords): Promise<void> {
    for (const o of this.list) if (records.has(o)) await o.restore(records.get(o));
  }

  /** Reset every owner, in order (caller holds the node's lock). */
  async reset(): Promise<void> {
    for (const o of this.list) await o.reset();
  }
}
