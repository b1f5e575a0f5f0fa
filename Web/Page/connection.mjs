// The WebSocket (binary `easel.v1`) between a session and the server:
// bytes in, bytes out, reconnection after the wait the module gives (the
// same jittered backoff the Swift clients wait by). Every protocol rule
// lives in the session, in the WebAssembly module.

/** The socket boot.mjs opened while the module compiled, once, if it is
 * not closing: the first connection takes it over. */
export function takeEarlySocket() {
  const early = /** @type {any} */ (globalThis).easelEarlySocket;
  /** @type {any} */ (globalThis).easelEarlySocket = undefined;
  if (!early) return null;
  if (early.readyState === WebSocket.CONNECTING || early.readyState === WebSocket.OPEN) return early;
  return null;
}

export class Connection {
  /**
   * `delay(failures)`: how long to wait (ms) before connecting again after
   * that many failed connections in a row (`Easel.retryDelay('reconnect', …)`).
   * @param {any} session @param {string} url @param {() => void} changed
   * @param {(failures: number) => number | null} delay
   */
  constructor(session, url, changed, delay) {
    /** @type {((output: { hex: string, reason: string }) => void) | null} */
    this.onPlaceFailed = null;
    /** Called before and after each message is applied (text typed in
     * place goes in first, and then shows what merged). */
    this.beforeReceive = () => {};
    this.afterReceive = () => {};
    this.session = session;
    this.url = url;
    this.changed = changed;
    this.delay = delay;
    this.socket = null;
    this.failures = 0;
    this.online = true;
    /** Time spent taking messages in, for the marks `Web/bench/frames.py` reads. */
    this.receivingMs = 0;
    this.connect();
  }

  /** The document's address; after the server said another node holds
   * it (503 `moved to <node>`), with `?node=<node>`, which the router
   * honours while that node is up. */
  address() {
    const node = this.session.movedTo;
    return node === null ? this.url : `${this.url}?node=${encodeURIComponent(node)}`;
  }

  connect() {
    if (!this.online || this.socket) return;
    const early = takeEarlySocket();
    const socket = early ?? new WebSocket(this.address(), 'easel.v1');
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.onopen = () => {
      if (!performance.getEntriesByName('easel:socket-open').length) performance.mark('easel:socket-open');
      this.failures = 0;
      this.session.connectionOpened();
      this.changed();
    };
    // Taken over already open: the session hears of it now.
    if (early?.readyState === WebSocket.OPEN) socket.onopen(new Event('open'));
    socket.onmessage = (event) => {
      if (event.data instanceof ArrayBuffer) {
        if (!performance.getEntriesByName('easel:first-message').length) performance.mark('easel:first-message');
        const started = performance.now();
        this.beforeReceive();
        this.session.receive(new Uint8Array(event.data));
        this.afterReceive();
        this.receivingMs += performance.now() - started;
      }
      this.changed();
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.session.connectionClosed();
      this.changed();
      if (this.online) {
        this.failures += 1;
        const delay = this.delay(this.failures);
        if (delay !== null) setTimeout(() => this.connect(), delay);
      }
    };
  }

  /** Carries out what the session asks: messages to send, or a close; an
   * image's place undone goes to `onPlaceFailed`. */
  flush() {
    for (const output of this.session.takeOutputs()) {
      if (output.send) {
        if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(output.send);
      } else if (output.disconnect !== undefined) {
        this.socket?.close(1000);
      } else if (output.placeFailed !== undefined) {
        this.onPlaceFailed?.(output);
      }
    }
  }

  /** Offline on purpose (a button, a test): edits wait in the outbox. */
  setOnline(online) {
    this.online = online;
    if (online) this.connect();
    else this.socket?.close(1000);
  }
}
