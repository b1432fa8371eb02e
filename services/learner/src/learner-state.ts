// What the learner's parts share while a run goes on: the version of the policy in force, the ids
// settled at the last round ends, and whether (and by when) the learner is stopping.
import { SettledIds } from './settled-ids.js';

export class LearnerState {
  /** The version actors run: the last update committed (checkpointed, then published). */
  policyVersion = 0;
  /** Ids the last two round ends settled (their acks may not have landed before a crash). */
  settled = new SettledIds();
  /** stop() was called: no new round starts. */
  stopping = false;
  /** Until when the round in progress may still finish (stop()'s grace). */
  stopDeadline = Infinity;

  /** Stopping and past the grace: the round in progress is left for the next start. */
  get stopDue(): boolean {
    return this.stopping && Date.now() >= this.stopDeadline;
  }
}
