// The ack-pending budgets the learner dispatches within. JetStream hands a consumer no more
// messages than its max_ack_pending: the learner consumer's limits the results the learner may
// hold unacked (every rollout of a pending group, until its group is trained), so it is raised as
// the pending groups grow, or else a learner holding that many partial groups could never finish
// one; the actors consumer's limits the requests the fleet can take at once, so slots beyond it
// stand idle (said once).
import { CONSUMER_ACTORS, STREAM_SCORED, STREAM_TASKS, type Bus } from '@owrl/bus';
import type { Logger } from '@owrl/core';
import { withRetry, type RetryOptions } from './failure-policy.js';

export class AckBudget {
  /** The run's learner consumer and its max_ack_pending. */
  private scoredConsumer = '';
  private scoredMaxAckPending = 0;
  private scoredRaiseFailed = false;
  /** max_ack_pending of the actors consumer (0: unknown) and whether the fleet outgrowing it was logged. */
  private actorsMaxAckPending = 0;
  private actorsWarned = false;

  constructor(
    private readonly bus: Bus,
    private readonly retry: RetryOptions,
    private readonly logger: Logger,
  ) {}

  /** Reads the actors consumer's max_ack_pending; a failure is logged and the fleet is then not checked against it. */
  async readActors(): Promise<void> {
    try {
      this.actorsMaxAckPending = (await this.bus.jsm.consumers.info(STREAM_TASKS, CONSUMER_ACTORS)).config.max_ack_pending ?? 0;
    } catch (e) {
      this.logger.warn({ err: e }, 'reading the actors consumer failed; its max_ack_pending is not checked against the fleet');
    }
  }

  /** The run's learner consumer, created with `maxAckPending`. */
  useScored(consumer: string, maxAckPending: number): void {
    this.scoredConsumer = consumer;
    this.scoredMaxAckPending = maxAckPending;
  }

  /** Says once when the fleet has more slots than the actors consumer lets requests out. */
  checkFleet(slots: number): void {
    if (this.actorsWarned || this.actorsMaxAckPending <= 0 || slots <= this.actorsMaxAckPending) return;
    this.actorsWarned = true;
    this.logger.warn(
      { slots, maxAckPending: this.actorsMaxAckPending },
      'the fleet has more browser slots than the actors consumer max_ack_pending; the rest stay idle: raise OWRL_ACTORS_MAX_ACK_PENDING on every service',
    );
  }

  /**
   * Makes the learner consumer's max_ack_pending at least `held` (raised to 1.5× that, so it is
   * not raised at every top-up); returns what it allows. A failed raise is logged once and the
   * caller dispatches within the current limit.
   */
  async roomForHeld(held: number): Promise<number> {
    if (held <= this.scoredMaxAckPending || this.scoredRaiseFailed) return this.scoredMaxAckPending;
    const next = Math.ceil(held * 1.5);
    try {
      const ci = await withRetry('raise the learner consumer max_ack_pending', () => this.bus.jsm.consumers.update(STREAM_SCORED, this.scoredConsumer, { max_ack_pending: next }), this.retry);
      this.logger.info({ from: this.scoredMaxAckPending, to: ci.config.max_ack_pending, held }, 'raised the learner consumer max_ack_pending: the results it may hold outgrew it');
      this.scoredMaxAckPending = ci.config.max_ack_pending ?? next;
    } catch (e) {
      this.scoredRaiseFailed = true;
      this.logger.warn({ err: e, maxAckPending: this.scoredMaxAckPending, held }, 'raising the learner consumer max_ack_pending failed; dispatch stays within it (raise OWRL_SCORED_MAX_ACK_PENDING)');
    }
    return this.scoredMaxAckPending;
  }
}
