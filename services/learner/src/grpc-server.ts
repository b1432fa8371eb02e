// gRPC server of the learner: owrl.v1.Learner (run state queries and control), the standard
// grpc.health.v1 service and server reflection (grpc.reflection.v1, also under the v1alpha name
// older clients ask for). Mutating calls need the control token (metadata `authorization:
// Bearer <token>`). Handlers are typed by the generated service descriptors.
//
// WatchRun sends whole states: a snapshot, then the latest state after each change. A slow
// client never makes the learner buffer a backlog: while `maxBuffered` events wait to be sent,
// further changes only mark the stream dirty and the next event carries the state current at the
// time it is written (latest wins; intermediate versions are skipped, versions only increase).
// Streams are written together, at most once per `watchIntervalMs`, from one encoding of the
// state: the cost of a change does not grow with the number of clients watching.
import * as grpc from '@grpc/grpc-js';
import {
  health,
  Learner,
  make,
  reflection,
  ReflectionIndex,
  RunEventSchema,
  encodeOnce,
  prefetchSteps,
  type ListGroupsResponse,
  type RunEvent,
  type RunState,
  type ScoredTrajectory,
  type WatchRunRequest,
} from '@owrl/proto';
import type { Logger } from '@owrl/core';
import { isControlError } from './errors.js';
import type { ChangeKind, RunStateStore } from './run-state-store.js';
import { addTypedService, type ServiceImplementation } from '@owrl/trainer-rpc';

/** The read side may throw ControlError (a released or unknown round): answered NOT_FOUND with its message. */
export interface LearnerControl {
  listGroups(round: number): ListGroupsResponse;
  getTrajectory(id: string): ScoredTrajectory | undefined;
  pause(reason: string): void;
  resume(): void;
}

export interface LearnerGrpcOptions {
  port: number;
  host: string;
  /** Control token for PauseRun/ResumeRun; when empty those calls are refused. */
  controlToken: string;
  logger: Logger;
  /** WatchRun events a stream may have written but not yet sent before it coalesces; default 2. */
  watchMaxBuffered?: number;
  /**
   * Least time between two WatchRun broadcasts, in ms; default 100. The first change after a quiet
   * interval goes out at once; a learner changing its state hundreds of times a second (a large
   * fleet) sends every client at most 1000 / watchIntervalMs states a second.
   */
  watchIntervalMs?: number;
}

/** Counters of the WatchRun streams (for tests and metrics). */
export interface WatchStats {
  /** Streams open now. */
  open: number;
  /** Events written to clients. */
  sent: number;
  /** Changes folded into a later event because the client was behind. */
  coalesced: number;
  /** Events encoded: one per broadcast (and kind), shared by every stream it is written to. */
  encoded: number;
}

/** One open WatchRun stream. */
interface Watcher {
  call: grpc.ServerWritableStream<WatchRunRequest, RunEvent>;
  /** Events written, not yet handed to the transport. */
  pending: number;
  sentVersion: bigint;
  /** What the next event to this stream reports; null when it is up to date. */
  dirty: ChangeKind | 'snapshot' | null;
  /** Changes the next event folds together. */
  folded: number;
  closed: boolean;
}

function statusError(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });
}

/** Runs a read of the control surface; a ControlError becomes NOT_FOUND, anything else INTERNAL. */
function answer<T>(read: () => T): [grpc.ServiceError | null, T | null] {
  try {
    return [null, read()];
  } catch (e) {
    if (isControlError(e)) return [statusError(grpc.status.NOT_FOUND, e.message), null];
    return [statusError(grpc.status.INTERNAL, `learner error: ${(e as Error).message}`), null];
  }
}

export class LearnerGrpcServer {
  private readonly server = new grpc.Server({ 'grpc.keepalive_permit_without_calls': 1 });
  private healthStatus: health.HealthCheckResponse_ServingStatus = health.HealthCheckResponse_ServingStatus.NOT_SERVING;
  private readonly healthWatchers = new Set<grpc.ServerWritableStream<health.HealthCheckRequest, health.HealthCheckResponse>>();
  port = 0;
  readonly watchStats: WatchStats = { open: 0, sent: 0, coalesced: 0, encoded: 0 };
  private readonly watchers = new Set<Watcher>();
  private readonly watchIntervalMs: number;
  private broadcastTimer: NodeJS.Immediate | NodeJS.Timeout | null = null;
  private lastBroadcast = 0;
  private readonly offStore: () => void;

  constructor(
    private readonly store: RunStateStore,
    private readonly control: LearnerControl,
    private readonly opts: LearnerGrpcOptions,
  ) {
    this.watchIntervalMs = opts.watchIntervalMs ?? 100;
    if (!Number.isFinite(this.watchIntervalMs) || this.watchIntervalMs < 0) throw new RangeError(`watchIntervalMs ${this.watchIntervalMs}: expected a number >= 0`);
    this.offStore = store.onChange((kind) => this.onStoreChange(kind));
    addTypedService(this.server, Learner, this.learnerImpl());
    addTypedService(this.server, health.Health, this.healthImpl());
    const index = new ReflectionIndex([Learner, health.Health, reflection.ServerReflection]);
    const reflect = this.reflectionImpl(index);
    addTypedService(this.server, reflection.ServerReflection, reflect);
    addTypedService(this.server, reflection.ServerReflection, reflect, 'grpc.reflection.v1alpha.ServerReflection');
  }

  async start(): Promise<number> {
    this.port = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(`${this.opts.host}:${this.opts.port}`, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port)));
    });
    return this.port;
  }

  setServing(serving: boolean): void {
    this.healthStatus = serving ? health.HealthCheckResponse_ServingStatus.SERVING : health.HealthCheckResponse_ServingStatus.NOT_SERVING;
    for (const w of this.healthWatchers) w.write(make(health.HealthCheckResponseSchema, { status: this.healthStatus }));
  }

  async close(): Promise<void> {
    this.offStore();
    if (this.broadcastTimer !== null) {
      clearTimeout(this.broadcastTimer as NodeJS.Timeout);
      clearImmediate(this.broadcastTimer as NodeJS.Immediate);
      this.broadcastTimer = null;
    }
    // The last change goes out before the streams end: a watching client (owrl watch, the
    // console) sees the state the learner stopped in (FAILED with its reason after a fatal error),
    // even when the change fell within the broadcast interval, or its stream was slow.
    this.broadcast(true);
    for (const w of this.watchers) w.call.end();
    for (const w of this.healthWatchers) w.end();
    await new Promise<void>((resolve) => {
      this.server.tryShutdown(() => resolve());
      setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, 2000).unref();
    });
  }

  private authorize(call: grpc.ServerUnaryCall<unknown, unknown>): grpc.ServiceError | null {
    if (!this.opts.controlToken) return statusError(grpc.status.FAILED_PRECONDITION, 'run control is disabled: start the learner with OWRL_CONTROL_TOKEN set');
    const auth = call.metadata.get('authorization')[0];
    if (auth !== `Bearer ${this.opts.controlToken}`) return statusError(grpc.status.UNAUTHENTICATED, 'missing or wrong control token (metadata authorization: Bearer <token>)');
    return null;
  }

  private learnerImpl(): ServiceImplementation<typeof Learner> {
    return {
      getRunState: (_call, cb) => cb(null, this.store.get()),
      watchRun: (call) => this.watch(call),
      listGroups: (call, cb) => {
        const [err, groups] = answer(() => this.control.listGroups(Number(call.request.round)));
        if (err || !groups) cb(err);
        else cb(null, groups);
      },
      getTrajectory: (call, cb) => {
        const [err, t] = answer(() => this.control.getTrajectory(call.request.trajectoryId));
        if (err) return cb(err);
        if (!t) return cb(statusError(grpc.status.NOT_FOUND, `trajectory ${JSON.stringify(call.request.trajectoryId)} is not held by the learner (unknown id)`));
        // A held result's steps may wait in the stream or on disk (OWRL_HELD_STEPS): read back first.
        // Decoded here, not when the answer is encoded: a read-ahead serves one read (the update's
        // batch may take it in between); a decoded trajectory's steps stay decoded.
        prefetchSteps(t.trajectory ? [t.trajectory] : []).then(
          () => {
            const [readErr] = answer(() => t.trajectory?.steps);
            cb(readErr, readErr ? null : t);
          },
          (e: unknown) => cb(statusError(grpc.status.UNAVAILABLE, `the steps of trajectory ${JSON.stringify(call.request.trajectoryId)} could not be read back: ${(e as Error).message}`)),
        );
      },
      pauseRun: (call, cb) => {
        const err = this.authorize(call);
        if (err) return cb(err);
        this.control.pause(call.request.reason);
        this.opts.logger.info({ reason: call.request.reason }, 'run paused over gRPC');
        cb(null, this.store.get());
      },
      resumeRun: (call, cb) => {
        const err = this.authorize(call);
        if (err) return cb(err);
        this.control.resume();
        this.opts.logger.info({}, 'run resumed over gRPC');
        cb(null, this.store.get());
      },
    };
  }

  /**
   * One WatchRun stream. `since_resource_version` = 0 starts with a snapshot; a version the client
   * already holds (the current one) resumes with the next change only; any other version (older,
   * or from before a learner restart) resumes with a snapshot of the current state, since every
   * event carries the whole state.
   */
  private watch(call: grpc.ServerWritableStream<WatchRunRequest, RunEvent>): void {
    const w: Watcher = { call, pending: 0, sentVersion: -1n, dirty: null, folded: 0, closed: false };
    const since = call.request.sinceResourceVersion;
    if (since === 0n || since !== this.store.get().resourceVersion) this.markDirty(w, 'snapshot');
    else w.sentVersion = since;
    this.watchers.add(w);
    this.watchStats.open++;
    const end = () => {
      if (w.closed) return;
      w.closed = true;
      this.watchers.delete(w);
      this.watchStats.open--;
    };
    call.on('cancelled', end);
    call.on('close', end);
    call.on('error', end);
    this.scheduleBroadcast();
  }

  private markDirty(w: Watcher, kind: ChangeKind | 'snapshot'): void {
    if (w.dirty !== null) this.watchStats.coalesced++;
    w.dirty = w.dirty === 'snapshot' ? 'snapshot' : kind;
    w.folded++;
  }

  private onStoreChange(kind: ChangeKind): void {
    if (this.watchers.size === 0) return;
    for (const w of this.watchers) this.markDirty(w, kind);
    this.scheduleBroadcast();
  }

  /**
   * Leading-edge throttle shared by every stream: the first change after a quiet interval goes out
   * in the next turn of the event loop (changes made in one turn go out as one event); later ones
   * at most once per `watchIntervalMs`. All streams are written in the same broadcast, so the
   * state is cloned and encoded once per version (and kind), however many clients watch.
   */
  private scheduleBroadcast(): void {
    if (this.broadcastTimer !== null) return;
    const wait = Math.max(0, this.lastBroadcast + this.watchIntervalMs - Date.now());
    this.broadcastTimer = wait === 0 ? setImmediate(() => this.broadcast()) : setTimeout(() => this.broadcast(), wait);
  }

  /** `final`: the last broadcast before close(), written to slow streams too. */
  private broadcast(final = false): void {
    this.broadcastTimer = null;
    this.lastBroadcast = Date.now();
    const maxBuffered = final ? Infinity : Math.max(1, this.opts.watchMaxBuffered ?? 2);
    let state: RunState | null = null;
    const events = new Map<string, RunEvent>();
    for (const w of this.watchers) {
      if (w.closed || w.dirty === null || w.pending >= maxBuffered) continue; // a slow stream is written when it drains
      state ??= this.store.get();
      const kind = w.folded > 1 ? 'coalesced' : w.dirty;
      w.dirty = null;
      w.folded = 0;
      if (state.resourceVersion <= w.sentVersion) continue;
      w.sentVersion = state.resourceVersion;
      let ev = events.get(kind);
      if (!ev) {
        ev = encodeOnce(RunEventSchema, make(RunEventSchema, { resourceVersion: state.resourceVersion, state, kind }));
        events.set(kind, ev);
        this.watchStats.encoded++;
      }
      w.pending++;
      this.watchStats.sent++;
      w.call.write(ev, () => {
        w.pending--;
        if (w.dirty !== null && !w.closed && !final) this.scheduleBroadcast();
      });
    }
  }

  private healthImpl(): ServiceImplementation<typeof health.Health> {
    const known = (service: string) => service === '' || service === 'owrl.v1.Learner';
    return {
      check: (call, cb) => {
        if (!known(call.request.service)) return cb(statusError(grpc.status.NOT_FOUND, `unknown service ${call.request.service}`));
        cb(null, make(health.HealthCheckResponseSchema, { status: this.healthStatus }));
      },
      watch: (call) => {
        const status = known(call.request.service) ? this.healthStatus : health.HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN;
        call.write(make(health.HealthCheckResponseSchema, { status }));
        this.healthWatchers.add(call);
        call.on('cancelled', () => this.healthWatchers.delete(call));
      },
    };
  }

  private reflectionImpl(index: ReflectionIndex): ServiceImplementation<typeof reflection.ServerReflection> {
    return {
      serverReflectionInfo: (call) => {
        call.on('data', (req: reflection.ServerReflectionRequest) => call.write(index.answer(req)));
        call.on('end', () => call.end());
        call.on('error', () => call.end());
      },
    };
  }
}
