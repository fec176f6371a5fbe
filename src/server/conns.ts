/**
 * Open TCP connections per client address (HTTP keep-alive and WebSocket alike), so one client
 * cannot hold every socket the process may open. A connection over the cap is marked rather than
 * cut: its first request is answered 429 (or its upgrade refused) and it is then closed, so the
 * client learns why.
 */
import type { Socket } from 'node:net';
import { normalizeIp } from './clientIp.js';

export class ConnectionCap {
  private readonly open = new Map<string, number>();
  private readonly over = new WeakSet<Socket>();

  constructor(
    readonly max: number,
    /** Peers not capped: trusted proxies carry many clients' connections. */
    private readonly exempt: (peer: string) => boolean,
  ) {}

  /** Count a new socket; sockets past the cap are marked (see `isOver`) and not counted. */
  add(socket: Socket): void {
    const peer = normalizeIp(socket.remoteAddress ?? '?');
    if (this.exempt(peer)) return;
    const n = this.open.get(peer) ?? 0;
    if (n >= this.max) {
      this.over.add(socket);
      return;
    }
    this.open.set(peer, n + 1);
    socket.once('close', () => {
      const left = (this.open.get(peer) ?? 1) - 1;
      if (left <= 0) this.open.delete(peer);
      else this.open.set(peer, left);
    });
  }

  isOver(socket: Socket): boolean {
    return this.over.has(socket);
  }
}
