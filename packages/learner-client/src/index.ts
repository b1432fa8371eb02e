// The one gRPC client of the learner (owrl.v1.Learner and the standard health service), for the
// CLI, the console and the tests: the queries, the control calls with a bearer token (the learner
// checks it), WatchRun as a pull-based subscription (`watchRun`) or as a follower that reconnects
// with backoff and resumes from the last resource version it saw (`follow`).
import * as grpc from '@grpc/grpc-js';
import {
  GetRunStateRequestSchema,
  GetTrajectoryRequestSchema,
  grpcServiceDefinition,
  health,
  Learner,
  ListGroupsRequestSchema,
  make,
  PauseRunRequestSchema,
  ResumeRunRequestSchema,
  WatchRunRequestSchema,
  type ListGroupsResponse,
  type RunEvent,
  type RunState,
  type ScoredTrajectory,
} from '@owrl/proto';

type Callback<T> = (err: grpc.ServiceError | null, res: T) => void;
type UnaryMethod<T> = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback<T>) => void;
interface RawLearner extends grpc.Client {
  getRunState: UnaryMethod<RunState>;
  listGroups: UnaryMethod<ListGroupsResponse>;
  getTrajectory: UnaryMethod<ScoredTrajectory>;
  pauseRun: UnaryMethod<RunState>;
  resumeRun: UnaryMethod<RunState>;
  watchRun(req: unknown, md: grpc.Metadata, opts?: grpc.CallOptions): grpc.ClientReadableStream<RunEvent>;
}
interface RawHealth extends grpc.Client {
  check: UnaryMethod<health.HealthCheckResponse>;
  watch(req: unknown, md: grpc.Metadata, opts?: grpc.CallOptions): grpc.ClientReadableStream<health.HealthCheckResponse>;
}

const LearnerCtor = grpc.makeGenericClientConstructor(grpcServiceDefinition(Learner) as unknown as grpc.ServiceDefinition, 'Learner');
const HealthCtor = grpc.makeGenericClientConstructor(grpcServiceDefinition(health.Health) as unknown as grpc.ServiceDefinition, 'Health');

/** A gRPC error, optionally of one status code. */
export function isGrpcError(e: unknown, code?: grpc.status): e is grpc.ServiceError {
  return typeof e === 'object' && e !== null && typeof (e as grpc.ServiceError).code === 'number' && (code === undefined || (e as grpc.ServiceError).code === code);
}

/** A WatchRun subscription: events until `close()`, the end of the stream or an error. */
export interface RunWatch {
  /** The next event; null when the stream ended. Rejects with the stream's error. */
  next(): Promise<RunEvent | null>;
  close(): void;
}

export interface WatchHandlers {
  onEvent(ev: RunEvent): void;
  /** The stream broke (learner down or restarting); the follower reconnects by itself. */
  onDisconnect?(err: unknown): void;
}

/** Client of one learner address; close() when done. */
export class LearnerClient {
  private readonly raw: RawLearner;
  private readonly health: RawHealth;

  constructor(readonly address: string) {
    this.raw = new LearnerCtor(address, grpc.credentials.createInsecure()) as unknown as RawLearner;
    this.health = new HealthCtor(address, grpc.credentials.createInsecure()) as unknown as RawHealth;
  }

  private unary<T>(client: grpc.Client, m: UnaryMethod<T>, req: unknown, token: string | undefined, timeoutMs: number): Promise<T> {
    const md = new grpc.Metadata();
    if (token !== undefined && token !== '') md.set('authorization', `Bearer ${token}`);
    return new Promise((resolve, reject) => m.call(client, req, md, { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res))));
  }

  getRunState(timeoutMs = 5000): Promise<RunState> {
    return this.unary(this.raw, this.raw.getRunState, make(GetRunStateRequestSchema, {}), undefined, timeoutMs);
  }

  listGroups(round: number, timeoutMs = 10_000): Promise<ListGroupsResponse> {
    return this.unary(this.raw, this.raw.listGroups, make(ListGroupsRequestSchema, { round: BigInt(round) }), undefined, timeoutMs);
  }

  /** @throws grpc.ServiceError NOT_FOUND when the learner does not hold it. */
  getTrajectory(trajectoryId: string, timeoutMs = 10_000): Promise<ScoredTrajectory> {
    return this.unary(this.raw, this.raw.getTrajectory, make(GetTrajectoryRequestSchema, { trajectoryId }), undefined, timeoutMs);
  }

  /** `token`: the run's control token (none: the learner refuses unless control is open). */
  pauseRun(reason: string, token?: string, timeoutMs = 5000): Promise<RunState> {
    return this.unary(this.raw, this.raw.pauseRun, make(PauseRunRequestSchema, { reason }), token, timeoutMs);
  }

  resumeRun(token?: string, timeoutMs = 5000): Promise<RunState> {
    return this.unary(this.raw, this.raw.resumeRun, make(ResumeRunRequestSchema, {}), token, timeoutMs);
  }

  /** The standard health check of `service` ('' = the server as a whole). */
  async healthCheck(service = '', timeoutMs = 5000): Promise<health.HealthCheckResponse_ServingStatus> {
    const res = await this.unary(this.health, this.health.check, make(health.HealthCheckRequestSchema, { service }), undefined, timeoutMs);
    return res.status;
  }

  /**
   * The standard health Watch of `service` ('' = the server as a whole): every status the learner
   * sends goes to `onStatus` (the current one first) until `close()` or the end of the stream
   * (`onEnd`, with the stream's error unless it ended cleanly or was closed).
   */
  watchHealth(onStatus: (status: health.HealthCheckResponse_ServingStatus) => void, onEnd?: (err: grpc.ServiceError | null) => void, service = ''): { close(): void } {
    const call = this.health.watch(make(health.HealthCheckRequestSchema, { service }), new grpc.Metadata());
    let ended = false;
    const end = (err: grpc.ServiceError | null): void => {
      if (ended) return;
      ended = true;
      onEnd?.(err);
    };
    call.on('data', (r: health.HealthCheckResponse) => onStatus(r.status));
    call.on('end', () => end(null));
    call.on('error', (e: grpc.ServiceError) => end(e.code === grpc.status.CANCELLED ? null : e));
    return {
      close: () => {
        ended = true;
        call.cancel();
      },
    };
  }

  /** WatchRun from `sinceResourceVersion` (0: a snapshot first), read as the caller takes events. */
  watchRun(sinceResourceVersion = 0n): RunWatch {
    const call = this.raw.watchRun(make(WatchRunRequestSchema, { sinceResourceVersion }), new grpc.Metadata(), {});
    const queue: RunEvent[] = [];
    let ended = false;
    let failure: Error | null = null;
    let wake: (() => void) | null = null;
    const poke = (): void => {
      const w = wake;
      wake = null;
      w?.();
    };
    call.on('data', (e: RunEvent) => {
      queue.push(e);
      if (queue.length >= 4) call.pause(); // a slow reader slows the stream (the learner coalesces)
      poke();
    });
    call.on('end', () => {
      ended = true;
      poke();
    });
    call.on('error', (e: grpc.ServiceError) => {
      if (e.code !== grpc.status.CANCELLED) failure = e;
      ended = true;
      poke();
    });
    return {
      next: async () => {
        for (;;) {
          const e = queue.shift();
          if (e) {
            if (queue.length < 2) call.resume();
            return e;
          }
          if (failure) throw failure;
          if (ended) return null;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      },
      close: () => {
        ended = true;
        call.cancel();
        poke();
      },
    };
  }

  /**
   * Follows WatchRun until stopped: every event goes to `h.onEvent`; a broken stream is reopened
   * after a backoff (0.5 s doubling to 5 s) from the last resource version seen.
   */
  follow(h: WatchHandlers): { stop(): void } {
    let since = 0n;
    let stopped = false;
    let call: grpc.ClientReadableStream<RunEvent> | null = null;
    let timer: NodeJS.Timeout | null = null;
    let backoff = 500;
    const open = (): void => {
      if (stopped) return;
      const c = this.raw.watchRun(make(WatchRunRequestSchema, { sinceResourceVersion: since }), new grpc.Metadata());
      call = c;
      let ended = false;
      const retry = (err: unknown): void => {
        if (ended) return;
        ended = true;
        if (stopped) return;
        h.onDisconnect?.(err);
        timer = setTimeout(open, backoff);
        timer.unref();
        backoff = Math.min(5000, backoff * 2);
      };
      c.on('data', (ev: RunEvent) => {
        backoff = 500;
        if (ev.resourceVersion > since) since = ev.resourceVersion;
        h.onEvent(ev);
      });
      c.on('error', (e) => retry(e));
      c.on('end', () => retry(new Error('WatchRun stream ended')));
    };
    open();
    return {
      stop: () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        call?.cancel();
      },
    };
  }

  close(): void {
    this.raw.close();
    this.health.close();
  }
}
