// A learner gRPC server in its own process for other components' tests (the CLI's): the real
// LearnerGrpcServer over a RunStateStore, with one round of fixture groups and one trajectory.
// Prints {"port":N} on stdout, then applies one JSON command per stdin line and answers
// {"resourceVersion":N}: {"op":"round","round":N} | {"op":"phase","phase":N} | {"op":"message","text":S}.
// Control token: "tok". Not a test file itself (no .test suffix).
import readline from 'node:readline';
import { GroupInfoSchema, ListGroupsResponseSchema, make, RolloutRequestSchema, RunPhase, ScoredTrajectorySchema, TaskSchema, TrajectorySchema, VerdictSchema } from '@owrl/proto';
import { silentLogger } from '@owrl/core';
import { LearnerGrpcServer, type LearnerControl } from '../src/grpc-server.js';
import { RunStateStore } from '../src/run-state-store.js';

export const FIXTURE_TRAJECTORY_ID = 'run-c/0/1/0/0';

const store = new RunStateStore('run-c', 5, 'sync');
const traj = make(ScoredTrajectorySchema, {
  trajectoryId: FIXTURE_TRAJECTORY_ID,
  trainable: true,
  verdict: make(VerdictSchema, { reward: 1, success: true }),
  trajectory: make(TrajectorySchema, {
    trajectoryId: FIXTURE_TRAJECTORY_ID,
    actorId: 'actor-1',
    finalAnswer: '42.00',
    request: make(RolloutRequestSchema, { task: make(TaskSchema, { id: 'shop-price-3', instruction: 'Find the price of the red kettle' }) }),
  }),
});
const control: LearnerControl = {
  listGroups: (round) =>
    make(ListGroupsResponseSchema, {
      groups:
        round === 0
          ? [make(GroupInfoSchema, { round: 0n, group: 1, taskId: 'shop-price-3', rewards: [1, 0], advantages: [0.7, -0.7], fate: 'kept', trajectoryIds: [FIXTURE_TRAJECTORY_ID, 'run-c/0/1/1/0'], difficulty: 2 })]
          : [],
    }),
  getTrajectory: (id) => (id === FIXTURE_TRAJECTORY_ID ? traj : undefined),
  pause: (reason) =>
    store.change('phase', (s) => {
      s.phase = RunPhase.PAUSED;
      s.message = `paused: ${reason}`;
    }),
  resume: () =>
    store.change('phase', (s) => {
      s.phase = RunPhase.RUNNING;
      s.message = '';
    }),
};
const server = new LearnerGrpcServer(store, control, { port: 0, host: '127.0.0.1', controlToken: 'tok', logger: silentLogger });
const port = await server.start();
process.stdout.write(JSON.stringify({ port }) + '\n');
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const cmd = JSON.parse(line) as { op: string; round?: number; phase?: number; text?: string };
  if (cmd.op === 'round') store.change('round', (s) => (s.round = BigInt(cmd.round ?? 0)));
  else if (cmd.op === 'phase') store.change('phase', (s) => (s.phase = cmd.phase ?? RunPhase.RUNNING));
  else if (cmd.op === 'message') store.change('progress', (s) => (s.message = cmd.text ?? ''));
  process.stdout.write(JSON.stringify({ resourceVersion: Number(store.get().resourceVersion) }) + '\n');
});
rl.on('close', () => void server.close().then(() => process.exit(0)));
