// Holds the current policy and hot-swaps it when the weights pointer moves: the new artifact is
// loaded by the actor's backend (pointer: fetched, checked, loaded into onnxruntime; openai: a
// client naming the version's served model) while episodes go on; episodes started before the
// swap keep the policy they started with, and an old policy is released once its last episode
// ends. A newer version of a kind the backend cannot run is refused: it is logged, and episodes
// fail as infrastructure outcomes until a runnable version arrives, never silently running the
// older policy. A load that fails (the learner's artifact server down while it restarts, a
// network error, a bad artifact) is retried with backoff until it loads or a newer version is
// offered: the pointer may not move again for a long time (a restarted learner does not re-publish
// a version the pointer already names).
import type { PolicyArtifact } from '@owrl/proto';
import type { Policy } from '@owrl/policy';
import type { Logger } from '@owrl/core';
import { pointerBackend, type PolicyBackend } from './policy-backends.js';

/** Backoff of a failed load's retries: doubling from the first, capped. */
export interface LoadRetry {
  firstMs: number;
  maxMs: number;
}

const DEFAULT_LOAD_RETRY: LoadRetry = { firstMs: 1000, maxMs: 30_000 };

interface Entry {
  version: number;
  policy: Policy;
  users: number;
  retired: boolean;
}

export class PolicyHolder {
  private current: Entry | null = null;
  private refused: { version: number; reason: string } | null = null;
  private loading: Promise<void> = Promise.resolve();
  private readonly waiters = new Set<() => void>();
  private ended = false;
  /** The newest version offered so far (a failed load's retry stops once a newer one came). */
  private newestOffered = -1;
  private readonly retries = new Set<NodeJS.Timeout>();
  private closed = false;
  swaps = 0;

  constructor(
    private readonly logger: Logger,
    readonly backend: PolicyBackend = pointerBackend(),
    private readonly loadRetry: LoadRetry = DEFAULT_LOAD_RETRY,
  ) {}

  get version(): number {
    return this.current?.version ?? -1;
  }

  /**
   * Whether the loaded policy is older than `minVersion` (none loaded counts as older), while no
   * version at or past it was refused (a refusal fails the episode instead).
   */
  behind(minVersion: number): boolean {
    if (this.refused !== null && this.refused.version >= minVersion) return false;
    return this.version < minVersion;
  }

  /** Called for each pointer value; loads are serialised and never go backwards. */
  offer(a: PolicyArtifact, attempt = 0): void {
    const version = Number(a.version);
    if (attempt === 0) this.newestOffered = Math.max(this.newestOffered, version);
    this.loading = this.loading.then(async () => {
      if (this.closed) return;
      if (this.current && version <= this.current.version) return;
      if (attempt > 0 && version < this.newestOffered) return; // a newer version was offered meanwhile
      if (!this.backend.kinds.includes(a.kind)) {
        const reason = `policy version ${version} is of kind ${JSON.stringify(a.kind)}, which this actor's backend (OWRL_POLICY=${this.backend.name}) cannot run; it runs ${this.backend.kinds.join(', ')}`;
        this.refused = { version, reason };
        this.logger.error({ kind: a.kind, policyVersion: version, backend: this.backend.name }, `${reason}: episodes are refused until a version it can run is published`);
        for (const w of this.waiters) w();
        return;
      }
      try {
        const policy = await this.backend.load(a);
        const old = this.current;
        this.current = { version, policy, users: 0, retired: false };
        if (this.refused && this.refused.version <= version) this.refused = null;
        this.swaps++;
        if (old) this.retire(old);
        this.logger.info({ policyVersion: version, kind: a.kind, bytes: Number(a.bytes), ...(a.serveName ? { serveName: a.serveName } : {}) }, 'policy swapped');
        for (const w of this.waiters) w();
      } catch (e) {
        const retryInMs = Math.min(this.loadRetry.maxMs, this.loadRetry.firstMs * 2 ** attempt);
        this.logger.error({ err: e, policyVersion: version, uri: a.uri, attempt: attempt + 1, retryInMs }, 'policy artifact rejected');
        const t = setTimeout(() => {
          this.retries.delete(t);
          this.offer(a, attempt + 1);
        }, retryInMs);
        t.unref();
        this.retries.add(t);
      }
    });
  }

  private retire(e: Entry): void {
    e.retired = true;
    if (e.users === 0) void e.policy.release();
  }

  /** Whether endWaits() was called: a request behind its policy is then handed back, not waited for. */
  get waitsEnded(): boolean {
    return this.ended;
  }

  /**
   * Ends every wait for a policy now and makes later ones return at once: a stopping actor hands
   * a request whose policy has not loaded back, instead of holding its drain for the whole wait.
   */
  endWaits(): void {
    this.ended = true;
    for (const w of [...this.waiters]) w();
  }

  /** Waits (bounded) until a policy of at least `minVersion` is loaded, or such a version was refused, or endWaits(). */
  async waitFor(minVersion: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const refusedAsked = () => this.refused !== null && this.refused.version >= minVersion;
    while ((this.current === null || this.current.version < minVersion) && !refusedAsked() && !this.ended && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.waiters.delete(done);
          clearTimeout(t);
          resolve();
        };
        const t = setTimeout(done, Math.max(1, deadline - Date.now()));
        this.waiters.add(done);
      });
    }
    if (this.current === null && this.refused === null && !this.ended) throw new Error(`no policy loaded after ${timeoutMs} ms: is the learner publishing owrl_weights/latest?`);
  }

  /**
   * Takes the current policy for one episode; call the returned release when the episode ends.
   * @throws Error when no policy is loaded, or the newest published version was refused.
   */
  acquire(): { policy: Policy; version: number; release: () => void } {
    if (this.refused) throw new Error(`${this.refused.reason}; not running the older version ${this.version}`);
    const e = this.current;
    if (!e) throw new Error('no policy loaded');
    e.users++;
    return {
      policy: e.policy,
      version: e.version,
      release: () => {
        e.users--;
        if (e.retired && e.users === 0) void e.policy.release();
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.retries) clearTimeout(t);
    this.retries.clear();
    await this.loading;
    if (this.current) this.retire(this.current);
    this.current = null;
  }
}
