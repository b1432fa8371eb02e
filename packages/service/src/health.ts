// Health of a running service as named checks: /healthz answers 200 while none fails and 503
// naming those that do. The startup path adds `started` (false until start() returns and again
// once stopping) and `nats` (the connection is not closed); a service adds its own.

export class Health {
  readonly #checks = new Map<string, () => boolean>();

  /** Adds (or replaces) a check evaluated on each /healthz request. */
  check(name: string, healthy: () => boolean): void {
    this.#checks.set(name, healthy);
  }

  /** Sets a check to a fixed state until it is set again. */
  set(name: string, healthy: boolean): void {
    this.#checks.set(name, () => healthy);
  }

  /** Names of the checks failing now (a check that throws fails), in the order they were added. */
  failing(): string[] {
    const out: string[] = [];
    for (const [name, healthy] of this.#checks) {
      let ok = false;
      try {
        ok = healthy();
      } catch {
        ok = false;
      }
      if (!ok) out.push(name);
    }
    return out;
  }
}
