// Child process of `npm run bench -- watch` (bench/src/watch.ts); not a test file itself: the learner's gRPC server (the real LearnerGrpcServer and
// RunStateStore) holding a fleet-sized run state, measured alone so that its CPU is the server's.
// Protocol on stdio: prints {"port":N} once listening; on a line "go" it changes the state `rate`
// times a second for `seconds` seconds (a counter and an actor's heartbeat each time, as ingestion
// and the fleet view do), then prints one JSON line of its figures and exits.
import readline from 'node:readline';
import { make, ActorInfoSchema, RunPhase, ListGroupsResponseSchema } from '@owrl/proto';
import { silentLogger } from '@owrl/core';
import { LearnerGrpcServer } from '../src/grpc-server.js';
import { RunStateStore } from '../src/run-state-store.js';

const [actors = 2000, rate = 200, seconds = 10] = process.argv.slice(2).map(Number);

const store = new RunStateStore('bench-watch', 500, 'async');
store.change('fleet', (s) => {
  s.phase = RunPhase.RUNNING;
  for (let i = 0; i < actors; i++) {
    s.actors.push(make(ActorInfoSchema, { actorId: `actor-${i}-${'x'.repeat(12)}`, slots: 16, busy: 12, policyVersion: 40n, rssBytes: 2_000_000_000n, episodes: BigInt(i * 7), updatedAtMs: BigInt(Date.now()) }));
  }
});
const control = {
  listGroups: () => make(ListGroupsResponseSchema, {}),
  getTrajectory: () => undefined,
  pause: () => {},
  resume: () => {},
};
const server = new LearnerGrpcServer(store, control, { port: 0, host: '127.0.0.1', controlToken: '', logger: silentLogger });
const port = await server.start();
server.setServing(true);
process.stdout.write(JSON.stringify({ port }) + '\n');

const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  if (line.trim() !== 'go') continue;
  const sent0 = server.watchStats.sent;
  const coalesced0 = server.watchStats.coalesced;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let changes = 0;
  await new Promise<void>((resolve) => {
    const every = 1000 / rate;
    const tick = setInterval(() => {
      const due = Math.min(rate * seconds, Math.floor((performance.now() - t0) / every));
      while (changes < due) {
        const i = changes % actors;
        store.change(i % 10 === 0 ? 'fleet' : 'progress', (s) => {
          s.counters!.scoredIngested += 1n;
          s.actors[i]!.updatedAtMs = BigInt(Date.now());
        });
        changes++;
      }
      if (changes >= rate * seconds) {
        clearInterval(tick);
        resolve();
      }
    }, 5);
  });
  const wallMs = performance.now() - t0;
  // Let the last events drain before reading the counters.
  await new Promise((r) => setTimeout(r, 300));
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(
    JSON.stringify({
      changes,
      wall_ms: wallMs,
      cpu_pct: ((cpu.user + cpu.system) / 1000 / wallMs) * 100,
      sent: server.watchStats.sent - sent0,
      coalesced: server.watchStats.coalesced - coalesced0,
      rss_mib: process.memoryUsage().rss / 2 ** 20,
    }) + '\n',
  );
  await server.close();
  process.exit(0);
}
