// Every scored trajectory a finished run left on OWRL_SCORED (what the judge published, read
// independently of the learner), in stream order.
import { jetstream } from '@nats-io/jetstream';
import { scoredSubject, STREAM_SCORED } from '@owrl/bus';
import { decode, ScoredTrajectorySchema, type ScoredTrajectory } from '@owrl/proto';
import type { OwrlSystem } from './system.js';

export async function readRunScored(sys: OwrlSystem): Promise<ScoredTrajectory[]> {
  const nc = await sys.natsConnection();
  // no subject filter: nats-server 2.9 (CI's) has no filter_subjects; the run's own subject picks its trajectories
  const c = await jetstream(nc).consumers.get(STREAM_SCORED);
  const subject = scoredSubject(sys.runId);
  const out: ScoredTrajectory[] = [];
  // the run is over: everything is on the stream; read until a fetch comes back empty
  for (;;) {
    const batch = await c.fetch({ max_messages: 256, expires: 2000 });
    let got = 0;
    for await (const m of batch) {
      if (m.subject === subject) out.push(decode(ScoredTrajectorySchema, m.data));
      got++;
    }
    if (got === 0) break;
  }
  return out;
}
