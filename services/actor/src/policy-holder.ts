// Holds the current policy and hot-swaps it when the weights pointer moves: the new artifact is
// fetched, checked and loaded while episodes go on; episodes started before the swap keep the
// policy they started with, and an old policy is released once its last episode ends.
import type { PolicyArtifact } from '@owrl/proto';
import { OnnxPointerPolicy, POLICY_KIND } from '@owrl/policy';
import type { Logger } from '@owrl/telemetry';
import { fetchArtifact } from './artifact-fetch.js';

interface Entry {
  version: number;
  policy: OnnxPointerPolicy;
  users: number;
  retired: boolean;
}

export class PolicyHolder {
  private current: Entry | null = null;
  private loading: Promise<void> = Promise.resolve();
  private readonly waiters = new Set<() => void>();
  swaps = 0;

  constructor(private readonly logger: Logger) {}

  get version(): number {
    return this.current?.version ?? -1;
  }

  /** Called for each pointer value; loads are serialised and never go backwards. */
  offer(a: PolicyArtifact): void {
    this.loading = this.loading.then(async () => {
      const version = Number(a.version);
      if (this.current && version <= this.current.version) return;
      if (a.kind !== POLICY_KIND) {
        this.logger.error({ kind: a.kind, version }, `policy artifact kind ${a.kind} is not supported by this actor (${POLICY_KIND})`);
        return;
      }
      try {
        const bytes = await fetchArtifact(a.uri, a.sha256);
        const policy = await OnnxPointerPolicy.load(bytes, { version });
        const old = this.current;
        this.current = { version, policy, users: 0, retired: false };
        this.swaps++;
        if (old) this.retire(old);
        this.logger.info({ policyVersion: version, bytes: bytes.length }, 'policy swapped');
        for (const w of this.waiters) w();
      } catch (e) {
        this.logger.error({ err: e, policyVersion: version, uri: a.uri }, 'policy artifact rejected');
      }
    });
  }

  private retire(e: Entry): void {
    e.retired = true;
    if (e.users === 0) void e.policy.release();
  }

  /** Waits (bounded) until a policy of at least `minVersion` is loaded. */
  async waitFor(minVersion: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.current === null || this.current.version < minVersion) && Date.now() < deadline) {
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
    if (this.current === null) throw new Error(`no policy loaded after ${timeoutMs} ms: is the learner publishing owrl_weights/latest?`);
  }

  /** Takes the current policy for one episode; call the returned release when the episode ends. */
  acquire(): { policy: OnnxPointerPolicy; version: number; release: () => void } {
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
    await this.loading;
    if (this.current) this.retire(this.current);
    this.current = null;
  }
}
