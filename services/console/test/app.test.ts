// The console app over real sockets without a browser: a stand-in learner gRPC server (the
// owrl.v1.Learner contract, state held by the test) and a real nats-server. Checks the pages
// render what the API returns, a change reaches an open event stream, pause/resume pass the
// user's token to the learner (refused without it), blacklist edits need the console's token,
// and screenshots are served from the store by sha256.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { Blacklist, connectBus, ensureTopology, ScreenshotStore, type Bus } from '@owrl/bus';
import { silentLogger } from '@owrl/core';
import {
  GroupInfoSchema,
  grpcServiceDefinition,
  BlockedConnectionSchema,
  DiagnosticsSchema,
  Learner,
  ListGroupsResponseSchema,
  make,
  PointSchema,
  RoundSummarySchema,
  RunEventSchema,
  RunPhase,
  RunStateSchema,
  ScoredTrajectorySchema,
  StepSchema,
  TerminationClass,
  TerminationSchema,
  ToolCallSchema,
  ToolResultSchema,
  TrajectorySchema,
  VerdictSchema,
  VerdictSource,
  type ImageRef,
  type RunEvent,
  type RunState,
} from '@owrl/proto';
import { startNatsServer, type NatsServer } from '@owrl/testkit';
import { ConsoleApp } from '../src/app.js';
import { LearnerClient } from '@owrl/learner-client';

const TOKEN = 'tok-123';

/** A stand-in learner: the Learner gRPC contract over a real socket, state set by the test. */
class StandInLearner {
  readonly server = new grpc.Server();
  state: RunState = make(RunStateSchema, { runId: 'run-a', phase: RunPhase.RUNNING, round: 1n, resourceVersion: 1n, mode: 'sync' });
  private readonly watchers = new Set<grpc.ServerWritableStream<unknown, RunEvent>>();
  shotRef: ImageRef | undefined;
  port = 0;

  constructor() {
    const unauth = (call: grpc.ServerUnaryCall<unknown, unknown>): grpc.ServiceError | null =>
      call.metadata.get('authorization')[0] === `Bearer ${TOKEN}` ? null : Object.assign(new Error('wrong token'), { code: grpc.status.UNAUTHENTICATED, details: 'missing or wrong control token', metadata: new grpc.Metadata() });
    const impl = {
      getRunState: (_c: unknown, cb: grpc.sendUnaryData<RunState>) => cb(null, this.state),
      watchRun: (call: grpc.ServerWritableStream<unknown, RunEvent>) => {
        call.write(make(RunEventSchema, { resourceVersion: this.state.resourceVersion, state: this.state, kind: 'snapshot' }));
        this.watchers.add(call);
        call.on('cancelled', () => this.watchers.delete(call));
      },
      listGroups: (_c: unknown, cb: grpc.sendUnaryData<unknown>) =>
        cb(null, make(ListGroupsResponseSchema, { groups: [make(GroupInfoSchema, { round: 1n, group: 0, taskId: 'shop-1', suite: 'shop', instruction: 'Buy the <blue> mug', fate: 'kept', rewards: [1, 0], advantages: [1, -1], trajectoryIds: ['run-a/1/0/0/0', 'run-a/1/0/1/0'] })] })),
      getTrajectory: (call: grpc.ServerUnaryCall<{ trajectoryId: string }, unknown>, cb: grpc.sendUnaryData<unknown>) => {
        const id = call.request.trajectoryId;
        if (!id.startsWith('run-a/1/0/')) return cb(Object.assign(new Error('nf'), { code: grpc.status.NOT_FOUND, details: `trajectory ${id} is not held`, metadata: new grpc.Metadata() }));
        const steps = [0, 1].map((i) =>
          make(StepSchema, {
            index: i,
            reasoning: `thinking ${i}`,
            urlBefore: 'http://shop/',
            results: [make(ToolResultSchema, { call: make(ToolCallSchema, { name: i === 0 ? 'click' : 'done', argsJson: '{"element_id":4}' }), ok: true, points: i === 0 ? [make(PointSchema, { x: 120, y: 45 })] : [] })],
            ...(i === 0 && this.shotRef ? { screenshot: this.shotRef } : {}),
          }),
        );
        cb(
          null,
          make(ScoredTrajectorySchema, {
            trajectoryId: id,
            trainable: true,
            verdict: make(VerdictSchema, { reward: 1, success: true, source: VerdictSource.VERIFIER }),
            trajectory: make(TrajectorySchema, {
              trajectoryId: id,
              steps,
              termination: make(TerminationSchema, { class: TerminationClass.COMPLETED, reason: 'done' }),
              diagnostics: make(DiagnosticsSchema, {
                blocked: [make(BlockedConnectionSchema, { url: 'http://127.0.0.1:4222/<x>', reason: 'private_address', range: 'loopback', detail: '127.0.0.1:4222 is a loopback address' })],
                blockedTotal: 3,
              }),
            }),
          }),
        );
      },
      pauseRun: (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<RunState>) => {
        const e = unauth(call);
        if (e) return cb(e);
        this.change((s) => (s.phase = RunPhase.PAUSED));
        cb(null, this.state);
      },
      resumeRun: (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<RunState>) => {
        const e = unauth(call);
        if (e) return cb(e);
        this.change((s) => (s.phase = RunPhase.RUNNING));
        cb(null, this.state);
      },
    };
    this.server.addService(grpcServiceDefinition(Learner) as unknown as grpc.ServiceDefinition, impl as unknown as grpc.UntypedServiceImplementation);
  }

  async start(): Promise<string> {
    this.port = await new Promise<number>((res, rej) => this.server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
    return `127.0.0.1:${this.port}`;
  }

  change(f: (s: RunState) => void): void {
    f(this.state);
    this.state.resourceVersion++;
    for (const w of this.watchers) w.write(make(RunEventSchema, { resourceVersion: this.state.resourceVersion, state: this.state, kind: 'round' }));
  }

  stop(): void {
    this.server.forceShutdown();
  }
}

async function post(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

/** Reads server-sent `state` events until `until` holds for one; returns its data. */
function nextState(url: string, until: (d: { rv: string; html: string }) => boolean, ms = 10_000): Promise<{ rv: string; html: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, (res) => {
      let buf = '';
      res.on('data', (c: Buffer) => {
        buf += c.toString();
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const ev = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = /^event: state\ndata: (.*)$/m.exec(ev)?.[1];
          if (data) {
            const d = JSON.parse(data) as { rv: string; html: string };
            if (until(d)) {
              req.destroy();
              clearTimeout(t);
              resolve(d);
            }
          }
        }
      });
    });
    const t = setTimeout(() => {
      req.destroy();
      reject(new Error('no matching server-sent event'));
    }, ms);
  });
}

void describe('console app', () => {
  let nats: NatsServer;
  let bus: Bus;
  const learner = new StandInLearner();
  let client: LearnerClient;
  let app: ConsoleApp;
  let base = '';
  let shots: ScreenshotStore;
  let jpeg: Uint8Array;

  before(async () => {
    nats = await startNatsServer();
    bus = await connectBus({ servers: nats.url, name: 'console-app-test' });
    await ensureTopology(bus);
    shots = new ScreenshotStore(bus);
    jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0, 200, 1, 64, 1, 1, 0x11, 0, 0xff, 0xd9]);
    learner.shotRef = await shots.put(jpeg);
    client = new LearnerClient(await learner.start());
    app = new ConsoleApp({ learner: client, shots, blacklist: await Blacklist.open(bus), controlToken: TOKEN, logger: silentLogger, pushIntervalMs: 50 });
    base = `http://127.0.0.1:${await app.start(0, '127.0.0.1')}`;
  });
  after(async () => {
    await app.stop();
    client.close();
    learner.stop();
    await bus.close();
    await nats.dispose();
  });

  void it('serves the overview and pushes a finished round to an open event stream', async () => {
    const first = await nextState(`${base}/events`, () => true);
    assert.match(first.html, /Run <code>run-a<\/code>/);
    const pushed = nextState(`${base}/events`, (d) => /href="\/rounds\/1"/.test(d.html));
    learner.change((s) => {
      s.rounds.push(make(RoundSummarySchema, { round: 1n, episodes: 2, successes: 1, successRate: 0.5, terminations: { COMPLETED: 2 } }));
      s.round = 2n;
    });
    const d = await pushed;
    assert.match(d.html, /1\/2 \(50%\)/);
    const page = await (await fetch(`${base}/`)).text();
    assert.match(page, /id="chart-success"/);
    assert.match(page, /<path class="series" data-series="all"/);
  });

  void it('round, group and trajectory pages show what the learner returns, escaped', async () => {
    const round = await (await fetch(`${base}/rounds/1`)).text();
    assert.match(round, /Buy the &lt;blue&gt; mug/);
    assert.match(round, /href="\/rounds\/1\/groups\/0"/);
    const group = await (await fetch(`${base}/rounds/1/groups/0`)).text();
    assert.equal((group.match(/class="rollout"/g) ?? []).length, 2);
    const traj = await fetch(`${base}/trajectory?id=${encodeURIComponent('run-a/1/0/0/0')}`);
    assert.equal(traj.status, 200);
    const html = await traj.text();
    assert.match(html, new RegExp(`data-sha256="${learner.shotRef!.sha256}"`));
    assert.match(html, /<circle class="mark" data-x="120" data-y="45"/);
    assert.match(html, /section class="step" id="step-1" data-step="1" hidden/);
    // the browser fence's refusals, from the trajectory's diagnostics
    assert.match(html, /<summary>the browser fence refused 3 connections<\/summary><ul><li><code>http:\/\/127\.0\.0\.1:4222\/&lt;x&gt;<\/code> private_address \(loopback\): 127\.0\.0\.1:4222 is a loopback address<\/li><\/ul>/);
    const missing = await fetch(`${base}/trajectory?id=nope`);
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /trajectory nope is not held/);
  });

  void it('serves stored screenshots by sha256 and 404s unknown ones', async () => {
    const r = await fetch(`${base}/shots/${learner.shotRef!.sha256}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'image/jpeg');
    assert.deepEqual(new Uint8Array(await r.arrayBuffer()), jpeg);
    assert.equal((await fetch(`${base}/shots/${'0'.repeat(64)}`)).status, 404);
  });

  void it('pause and resume pass the token to the learner; without it they are refused', async () => {
    const refused = await post(`${base}/api/pause`, { token: '' });
    assert.equal(refused.status, 401);
    assert.match(String(refused.json['error']), /token/);
    assert.equal(learner.state.phase, RunPhase.RUNNING);
    assert.equal((await post(`${base}/api/pause`, { token: TOKEN, reason: 'look' })).status, 200);
    assert.equal(learner.state.phase, RunPhase.PAUSED);
    assert.equal((await post(`${base}/api/resume`, { token: TOKEN })).status, 200);
    assert.equal(learner.state.phase, RunPhase.RUNNING);
    const form = await fetch(`${base}/api/pause`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=x' });
    assert.equal(form.status, 415, 'only JSON bodies (no cross-site form posts)');
  });

  void it('blacklist edits need the console token and show up in the overview', async () => {
    const bl = await Blacklist.open(bus);
    assert.equal((await post(`${base}/api/blacklist`, { token: 'wrong', action: 'add', host: 'bad.example:8080' })).status, 401);
    assert.equal(await bl.get('bad.example:8080'), null);
    assert.equal((await post(`${base}/api/blacklist`, { token: TOKEN, action: 'add', host: 'http://x', reason: 'r' })).status, 400);
    const added = await post(`${base}/api/blacklist`, { token: TOKEN, action: 'add', host: 'Bad.Example:8080', reason: 'walls', ttlMinutes: 5 });
    assert.equal(added.status, 200, JSON.stringify(added.json));
    const e = await bl.get('bad.example:8080');
    assert.equal(e?.reason, 'walls');
    assert.ok(e && e.untilMs > Date.now() + 4 * 60_000);
    assert.match(await (await fetch(`${base}/`)).text(), /data-host="bad.example:8080"/);
    assert.equal((await post(`${base}/api/blacklist`, { token: TOKEN, action: 'remove', host: 'bad.example:8080' })).status, 200);
    assert.equal(await bl.get('bad.example:8080'), null);
    assert.equal((await post(`${base}/api/blacklist`, { token: TOKEN, action: 'remove', host: 'bad.example:8080' })).status, 404);
  });
});
