// The run's learner consumer on OWRL_SCORED: scored trajectories are taken off the bus into the
// inbox (inbox.ts), where they are held unacked until the update that used them is checkpointed,
// then acked here.
import { ensureLearnerConsumer, STREAM_SCORED, type Bus, type Delivery } from '@owrl/bus';
import { decodeScoredLazy, ScoredTrajectorySchema, type ScoredTrajectory, type Trajectory } from '@owrl/proto';
import type { Logger } from '@owrl/core';
import type { AckBudget } from './ack-budget.js';
import type { LearnerConfig } from './config.js';
import { withRetry, type RetryOptions } from './failure-policy.js';
import type { Inbox, Pending } from './inbox.js';

/** Scored trajectories asked for per pull (consume's maxInFlight; the handler only queues them). */
const SCORED_PULL_BATCH = 500;

/** Takes a held result's still-encoded steps out of memory until they are read (stream-steps.ts, step-spill.ts). */
export interface HeldSteps {
  /** `seq`: the OWRL_SCORED sequence the result was delivered from. Returns the bytes let go of. */
  hold(traj: Trajectory, seq: number): number;
}

export interface ScoredIntakeDeps {
  bus: Bus;
  config: LearnerConfig;
  inbox: Inbox;
  budget: AckBudget;
  retry: RetryOptions;
  logger: Logger;
  /** Where held results' steps wait until read; absent: in memory. */
  heldSteps?: HeldSteps;
}

export class ScoredIntake {
  private consumer: { stop(): Promise<void> } | null = null;

  constructor(private readonly d: ScoredIntakeDeps) {}

  /**
   * Creates (or finds) the run's learner consumer, makes room for a round's results and starts
   * taking results into the inbox.
   * @throws FatalRunError when the consumer cannot be created under the failure policy.
   */
  async open(): Promise<void> {
    const { bus, config, logger, inbox } = this.d;
    const consumer = await withRetry(
      'create the learner consumer',
      () => ensureLearnerConsumer(bus, config.runId, { ackWaitMs: config.scoredAckWaitMs, maxAckPending: config.scoredMaxAckPending, logger }),
      this.d.retry,
    );
    this.d.budget.useScored(consumer, config.scoredMaxAckPending);
    // Sync mode holds at most a round's groups; async mode raises it as its pending groups grow (top-up).
    await this.d.budget.roomForHeld(config.maxGroupsPerRound * config.groupSize);
    inbox.start();
    this.consumer = await bus.consume({
      stream: STREAM_SCORED,
      consumer,
      schema: ScoredTrajectorySchema,
      // The steps and their policy traces (most of the bytes) stay encoded until read: ingestion
      // reads neither, the update batch takes each kept step's index and trace without decoding
      // them, and the in-process update thread decodes the traces itself.
      decode: decodeScoredLazy,
      // Bounds what one pull asks for: the server sends a pull's messages at once, and each waits
      // in the client's buffer for the loop to decode it with its ack_wait already running. At
      // 10 000 (≈ 600 MB of trajectories) a burst (a fleet's actors stopping and publishing what
      // they hold) outlasted the 60 s ack_wait and came back as redeliveries. What is taken goes
      // to the inbox, whose held deliveries get working() well within ack_wait.
      maxInFlight: SCORED_PULL_BATCH,
      autoAck: false,
      // An ack lost on the way brings the result back, and the learner drops it (settled ids, the
      // ledger's consumed ids); an unconfirmed ack was not sent again either: nothing to wait for.
      confirmAcks: false,
      workingIntervalMs: Math.max(500, Math.floor(config.scoredAckWaitMs / 3)),
      handler: (delivery) => {
        const ev = { scored: delivery.value, delivery };
        this.shedPayload(ev);
        inbox.push(ev);
      },
    });
  }

  /**
   * Acks (plain acks: the consumer does not confirm them, see confirmAcks above) and releases the
   * deliveries from the inbox. A failure (the connection closed) keeps the failure policy.
   */
  async ack(evs: readonly { delivery: Delivery<ScoredTrajectory> }[]): Promise<void> {
    for (const ev of evs) {
      await withRetry('ack a scored trajectory', () => ev.delivery.ack(), this.d.retry);
      this.d.inbox.release(ev.delivery);
    }
  }

  /** Stops taking results in (and the inbox's heartbeats of held ones). */
  async close(): Promise<void> {
    this.d.inbox.stop();
    const c = this.consumer;
    this.consumer = null;
    await c?.stop();
  }

  /**
   * Called as a result arrives, before it waits in the inbox: its steps leave memory
   * (OWRL_HELD_STEPS: to disk, or left in the stream) and its delivery lets go of the bytes, so
   * what the learner keeps per result, while it waits and while it is held until its round's
   * update is checkpointed, is its decoded fields, not its payload. On arrival, not at ingestion:
   * a ~60 KB payload that waited in the inbox (the learner behind its fleet) was promoted to the
   * old generation, and their growth set off a full collection of everything the learner held
   * every ~2 s on the bus bench (docs/sizing.md). A result then dropped (a duplicate, late) has
   * had its steps written for nothing; a spill segment is deleted once every result in it is
   * collected.
   */
  private shedPayload(ev: Pending): void {
    const held = this.d.heldSteps;
    if (!held) return;
    if (ev.scored.trajectory) held.hold(ev.scored.trajectory, ev.delivery.seq);
    ev.delivery.releaseData();
  }
}
