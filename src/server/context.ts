/** What a connection offers the handlers of the calls it carries; the transport makes one per connection. */
/** Per-connection context handed to handlers (subscriptions need to push on their connection). */
export interface CallContext {
  readonly transport: 'http' | 'ws';
  /**
   * The connection the calls come over, where one context serves several (each HTTP socket); the
   * context itself stands for its connection otherwise. Changes queued by different connections
   * take turns.
   */
  readonly client?: object;
  /** Push a message to this connection (WebSocket only). */
  send?(message: string): void;
  /** Register cleanup for when the connection closes (WebSocket only). */
  onClose?(fn: () => void): void;
  /**
   * Set by the transport when it rate-limits or logs requests. Called once per request body, before
   * any of its calls runs and before the handler first awaits, with the method of each call (one
   * per batch element, `''` where an element names none; none for a body that does not parse or a
   * batch over the size cap). False refuses the body whole: each call is answered -32005.
   */
  admit?(methods: readonly string[]): boolean;
}
