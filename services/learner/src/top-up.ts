// Async mode's top-up sizing (pure): how many groups to dispatch so the rollouts in flight cover
// every actor slot plus one group of queue, without queueing more than a few requests a slot and
// within two budgets — pending groups (the staleness bound's) and the results the learner may
// hold unacked (the learner consumer's max_ack_pending).

/** Groups in flight at most while no actor has been seen (the run's start). */
export const UNSEEN_FLEET_GROUPS = 16;

/** Requests in flight at most per actor slot: past that a queue only waits. */
const REQUESTS_PER_SLOT = 4;

/** Groups' worth of slots the pending-group cap allows besides the staleness bound's. */
const SLOT_COVER = 3;

export interface TopUpInput {
  /** The run's last round: only what the round still needs. */
  lastRound: boolean;
  groupSize: number;
  groupsPerRound: number;
  maxGroupsPerRound: number;
  maxStaleness: number;
  /** Groups of the round kept so far. */
  kept: number;
  /** Groups dispatched and not yet decided. */
  pending: number;
  /** Rollouts dispatched whose results the ledger has not taken in. */
  inFlight: number;
  /** Of those, rollouts known to be finished (results waiting in the inbox): their slots are free. */
  finished: number;
  /** Actor slots of the fleet (0: no actor seen yet). */
  slots: number;
}

/**
 * Groups to dispatch, before the room for held results is counted (withinRoom); zero or less:
 * none.
 *
 * The last round asks only for the groups it still needs. Otherwise the target in flight is a
 * round's worth of rollouts, at least every slot plus one group and at most four requests a slot
 * (before any actor is seen, UNSEEN_FLEET_GROUPS groups); the groups pending stay under a cap of
 * the staleness bound's groups, or three times the slots' worth when that is more: a group stays
 * pending until its slowest rollout is back, so with long-tailed episodes most pending groups
 * hold one or two rollouts in flight, and a cap counted in groups alone left most of a large
 * fleet idle.
 */
export function topUpWant(x: TopUpInput): number {
  if (x.lastRound) return x.groupsPerRound - x.kept - x.pending;
  const roundWorth = x.groupsPerRound * x.groupSize;
  const ceiling = x.slots > 0 ? REQUESTS_PER_SLOT * x.slots : UNSEEN_FLEET_GROUPS * x.groupSize;
  const target = Math.max(x.slots + x.groupSize, Math.min(roundWorth, ceiling));
  const cap = Math.max(x.maxGroupsPerRound * (x.maxStaleness + 1), Math.ceil((SLOT_COVER * x.slots) / x.groupSize));
  return Math.min(Math.ceil((target - (x.inFlight - x.finished)) / x.groupSize), cap - x.pending);
}

/**
 * Results the learner may hold once `want` more groups are out: every rollout of a pending group,
 * and of a round's worth of groups decided but not yet trained, may be held unacked.
 */
export function heldFor(want: number, pending: number, maxGroupsPerRound: number, groupSize: number): number {
  return (pending + want + maxGroupsPerRound) * groupSize;
}

/**
 * `want` cut to what a max_ack_pending of `room` lets the learner hold (heldFor): past it
 * JetStream delivers nothing more and the round could never end.
 */
export function withinRoom(want: number, room: number, pending: number, maxGroupsPerRound: number, groupSize: number): number {
  return Math.min(want, Math.floor(room / groupSize) - pending - maxGroupsPerRound);
}
