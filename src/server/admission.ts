/**
 * One request body's passage through its rate-limit tier. Its `admit` is the CallContext hook the
 * dispatcher calls once per body, before any call runs, with the methods the body calls: the
 * calls are charged to the client's bucket (a batch counts each element, and is refused whole
 * when it does not fit), and the names are kept for the access log.
 */
import { rateHeaders, type Client } from './gate.js';
import type { Metrics } from './metrics.js';

const NONE: readonly string[] = [];

export class Admission {
  /** The methods of the body, as the dispatcher named them. */
  methods: readonly string[] = NONE;
  /** Calls refused by the bucket (0 when admitted). */
  refused = 0;

  constructor(
    private readonly client: Client,
    private readonly metrics: Metrics,
  ) {}

  /** The hook (bound): false when the tier refuses the body. */
  readonly admit = (methods: readonly string[]): boolean => {
    this.methods = methods;
    const { bucket, tier } = this.client;
    if (bucket === undefined || tier === undefined) return true;
    // A body that does not parse, or an empty batch, still costs a call.
    const calls = Math.max(1, methods.length);
    if (bucket.take(calls)) return true;
    this.refused = calls;
    this.metrics.limited(tier, calls);
    return false;
  };
}

/** Rate-limit headers of an answer in a limited tier, and Retry-After when it was refused. */
export function limitHeaders(client: Client | undefined, admission: Admission | undefined): Record<string, string | number> | undefined {
  const bucket = client?.bucket;
  if (bucket === undefined) return undefined;
  const headers: Record<string, string | number> = {};
  rateHeaders(bucket, headers);
  if (admission !== undefined && admission.refused > 0) headers['Retry-After'] = String(Math.max(1, Math.ceil(bucket.waitSeconds(admission.refused))));
  return headers;
}
