// gRPC client of the learner's owrl.v1.Learner service for the console: the queries, the control
// calls with the user's token passed through (the learner checks it), and a WatchRun follower that
// reconnects with backoff and resumes from the last resource version it saw.
import * as grpc from '@grpc/grpc-js';
import {
  GetRunStateRequestSchema,
  GetTrajectoryRequestSchema,
  grpcServiceDefinition,
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

const LearnerCtor = grpc.makeGenericClientConstructor(grpcServiceDefinition(Learner) as unknown as grpc.ServiceDefinition, 'Learner');

export function isGrpcError(e: unknown, code?: grpc.status): e is grpc.ServiceError {
  return typeof e === 'object' && e !== null && typeof (e as grpc.ServiceError).code === 'number' && (code === undefined || (e as grpc.ServiceError).code === code);
}

export interface WatchHandlers {
  onEvent(ev: RunEvent): void;
  /** The stream broke (learner down or restarting); the follower reconnects by itself. */
  onDisconnect?(err: unknown): void;
}

export class LearnerClient {
  private readonly raw: RawLearner;

  constructor(readonly address: string) {
    this.raw = new LearnerCtor(address, grpc.credentials.createInsecure()) as unknown as RawLearner;
  }

  private unary<T>(m: UnaryMethod<T>, req: unknown, token: string | undefined, timeoutMs: number): Promise<T> {
    const md = new grpc.Metadata();
    if (token !== undefined && token !== '') md.set('authorization', `Bearer ${token}`);
    return new Promise((resolve, reject) => m.call(this.raw, req, md, { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res))));
  }

  getRunState(timeoutMs = 5000): Promise<RunState> {
    return this.unary(this.raw.getRunState, make(GetRunStateRequestSchema, {}), undefined, timeoutMs);
  }

  listGroups(round: number, timeoutMs = 5000): Promise<ListGroupsResponse> {
    return this.unary(this.raw.listGroups, make(ListGroupsRequestSchema, { round: BigInt(round) }), undefined, timeoutMs);
  }

  /** @throws grpc.ServiceError NOT_FOUND when the learner does not hold it. */
  getTrajectory(trajectoryId: string, timeoutMs = 5000): Promise<ScoredTrajectory> {
    return this.unary(this.raw.getTrajectory, make(GetTrajectoryRequestSchema, { trajectoryId }), undefined, timeoutMs);
  }

  pauseRun(reason: string, token: string, timeoutMs = 5000): Promise<RunState> {
    return this.unary(this.raw.pauseRun, make(PauseRunRequestSchema, { reason }), token, timeoutMs);
  }

  resumeRun(token: string, timeoutMs = 5000): Promise<RunState> {
    return this.unary(this.raw.resumeRun, make(ResumeRunRequestSchema, {}), token, timeoutMs);
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
  }
}
