/**
 * Counters for `GET /metrics`, in the Prometheus text format. Kept in every mode: recording a call
 * is a map lookup and a few additions. Method names come from clients, so at most MAX_METHODS
 * distinct names are kept; calls to others count under `other` (a client inventing names cannot
 * grow the node's memory). Numbers the transport does not own (blocks, pool, subscriptions) are
 * handed in at render time as gauges by whoever started the server.
 */

/** Histogram bounds of a call's duration, in seconds. */
const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const MAX_METHODS = 512;
const OTHER = 'other';

/** A number read at render time: `noderpc_<name>` with its help line. */
export interface Gauge {
  readonly name: string;
  readonly help: string;
  readonly value: number;
}

/** Rate-limit tiers, as named in metrics, logs and headers. */
export type Tier = 'ip' | 'ws' | 'key';

interface MethodStats {
  calls: number;
  /** Counts per bound, the last one for slower calls (+Inf). */
  readonly buckets: number[];
  seconds: number;
  readonly errors: Map<number, number>;
}

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export class Metrics {
  private readonly methods = new Map<string, MethodStats>();
  private readonly statuses = new Map<number, number>();
  private readonly limitedCalls: Record<Tier, number> = { ip: 0, ws: 0, key: 0 };
  private wsMessages = 0;
  private readonly started = Date.now();

  /** Called once, when the first JSON-RPC call has been answered (then cleared). */
  onFirstAnswer: (() => void) | undefined;

  /** One JSON-RPC call answered (`errorCode` set when it failed), taking `ms`. */
  call(method: string, errorCode: number | undefined, ms: number): void {
    let s = this.methods.get(method);
    if (s === undefined) {
      if (this.methods.size >= MAX_METHODS) return this.call(OTHER, errorCode, ms);
      this.methods.set(method, (s = { calls: 0, buckets: new Array<number>(BOUNDS.length + 1).fill(0), seconds: 0, errors: new Map() }));
    }
    if (this.onFirstAnswer !== undefined) {
      const first = this.onFirstAnswer;
      this.onFirstAnswer = undefined;
      first();
    }
    s.calls++;
    const seconds = ms / 1000;
    s.seconds += seconds;
    let i = 0;
    while (i < BOUNDS.length && seconds > BOUNDS[i]) i++;
    s.buckets[i]++;
    if (errorCode !== undefined) s.errors.set(errorCode, (s.errors.get(errorCode) ?? 0) + 1);
  }

  /** One HTTP response sent with `status`. */
  response(status: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }

  /** One WebSocket message received. */
  message(): void {
    this.wsMessages++;
  }

  /** `calls` refused by a tier's rate limit. */
  limited(tier: Tier, calls: number): void {
    this.limitedCalls[tier] += calls;
  }

  render(gauges: readonly Gauge[]): string {
    const out: string[] = [];
    const head = (name: string, type: string, help: string) => out.push(`# HELP noderpc_${name} ${help}`, `# TYPE noderpc_${name} ${type}`);
    const sorted = [...this.methods].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

    head('rpc_requests_total', 'counter', 'JSON-RPC calls answered, by method (batch elements count one each).');
    for (const [m, s] of sorted) out.push(`noderpc_rpc_requests_total{method="${escapeLabel(m)}"} ${s.calls}`);
    head('rpc_errors_total', 'counter', 'JSON-RPC calls answered with an error, by method and error code.');
    for (const [m, s] of sorted) for (const [code, n] of [...s.errors].sort((a, b) => a[0] - b[0])) out.push(`noderpc_rpc_errors_total{method="${escapeLabel(m)}",code="${code}"} ${n}`);
    head('rpc_duration_seconds', 'histogram', 'Time to answer a JSON-RPC call, by method.');
    for (const [m, s] of sorted) {
      const label = escapeLabel(m);
      let cumulative = 0;
      BOUNDS.forEach((b, i) => {
        cumulative += s.buckets[i];
        out.push(`noderpc_rpc_duration_seconds_bucket{method="${label}",le="${b}"} ${cumulative}`);
      });
      out.push(`noderpc_rpc_duration_seconds_bucket{method="${label}",le="+Inf"} ${s.calls}`);
      out.push(`noderpc_rpc_duration_seconds_sum{method="${label}"} ${s.seconds}`);
      out.push(`noderpc_rpc_duration_seconds_count{method="${label}"} ${s.calls}`);
    }
    head('http_responses_total', 'counter', 'HTTP responses, by status (429: over a rate limit or the connection cap).');
    for (const [status, n] of [...this.statuses].sort((a, b) => a[0] - b[0])) out.push(`noderpc_http_responses_total{status="${status}"} ${n}`);
    head('ws_messages_total', 'counter', 'WebSocket messages received.');
    out.push(`noderpc_ws_messages_total ${this.wsMessages}`);
    head('rate_limited_total', 'counter', 'Calls refused by a rate limit (-32005), by tier: ip, ws (per connection) or key.');
    for (const tier of ['ip', 'ws', 'key'] as const) out.push(`noderpc_rate_limited_total{tier="${tier}"} ${this.limitedCalls[tier]}`);
    head('uptime_seconds', 'gauge', 'Seconds since the server started.');
    out.push(`noderpc_uptime_seconds ${Math.floor((Date.now() - this.started) / 1000)}`);
    for (const g of gauges) {
      head(g.name, 'gauge', g.help);
      out.push(`noderpc_${g.name} ${g.value}`);
    }
    return out.join('\n') + '\n';
  }
}
