// Per-session server state of the bundled sites (the shop's cart and a one-shot notice), bounded
// in size: the least recently used session is dropped first. Sessions never share state.

export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

export interface SessionState {
  /** product id → quantity (> 0). Insertion order = order lines were first added. */
  cart: Map<string, number>;
  /** Shown once on the next page render, then cleared. */
  notice: Notice | undefined;
  /** Per-site state of the other bundled sites, keyed by site name (see `siteData`). */
  sites: Map<string, unknown>;
}

export const DEFAULT_MAX_SESSIONS = 10_000;

export class SessionStore {
  readonly #sessions = new Map<string, SessionState>();
  readonly #max: number;

  constructor(maxSessions = DEFAULT_MAX_SESSIONS) {
    this.#max = Math.max(1, maxSessions);
  }

  /** The state of `id`, created empty when unknown; marks it most recently used. */
  get(id: string): SessionState {
    let s = this.#sessions.get(id);
    if (s === undefined) {
      s = { cart: new Map(), notice: undefined, sites: new Map() };
      if (this.#sessions.size >= this.#max) {
        const oldest = this.#sessions.keys().next();
        if (!oldest.done) this.#sessions.delete(oldest.value);
      }
    } else {
      this.#sessions.delete(id);
    }
    this.#sessions.set(id, s);
    return s;
  }

  /** The state of `id` without creating or touching it (verifier reads). */
  peek(id: string): SessionState | undefined {
    return this.#sessions.get(id);
  }

  get size(): number {
    return this.#sessions.size;
  }
}
