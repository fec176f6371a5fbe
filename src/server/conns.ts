/**
 * Connections with work in progress per client address, as nginx's `limit_conn` counts them: an
 * HTTP connection counts while one of its requests is being served, a WebSocket connection for as
 * long as it is open. Idle keep-alive sockets count for nothing, so a client whose HTTP pool holds
 * many idle sockets can still open a WebSocket. A request over the cap is answered 429 (an upgrade
 * refused with 429); its connection stays usable for the next request.
 */
export class ConnectionCap {
  private readonly busy = new Map<string, number>();

  constructor(readonly max: number) {}

  /** Count one connection of `client` as busy; false (and nothing counted) when it is at the cap. */
  enter(client: string): boolean {
    const n = this.busy.get(client) ?? 0;
    if (n >= this.max) return false;
    this.busy.set(client, n + 1);
    return true;
  }

  /** The busy connection of `client` entered earlier is done. */
  leave(client: string): void {
    const left = (this.busy.get(client) ?? 1) - 1;
    if (left <= 0) this.busy.delete(client);
    else this.busy.set(client, left);
  }

  /** Busy connections of `client` now. */
  count(client: string): number {
    return this.busy.get(client) ?? 0;
  }
}
