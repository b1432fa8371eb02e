// gRPC client of the learner's owrl.v1.Learner service and the standard health service.
import * as grpc from '@grpc/grpc-js';
import {
  grpcServiceDefinition,
  health,
  Learner,
  make,
  GetRunStateRequestSchema,
  GetTrajectoryRequestSchema,
  ListGroupsRequestSchema,
  PauseRunRequestSchema,
  ResumeRunRequestSchema,
  WatchRunRequestSchema,
  type ListGroupsResponse,
  type RunEvent,
  type RunState,
  type ScoredTrajectory,
} from '@owrl/proto';

type Callback<T> = (err: grpc.ServiceError | null, res: T) => void;
type UnaryFn<T> = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback<T>) => void;
interface RawLearnerClient extends grpc.Client {
  getRunState: UnaryFn<RunState>;
  listGroups: UnaryFn<ListGroupsResponse>;
  getTrajectory: UnaryFn<ScoredTrajectory>;
  pauseRun: UnaryFn<RunState>;
  resumeRun: UnaryFn<RunState>;
  watchRun(req: unknown, md: grpc.Metadata, opts: grpc.CallOptions): grpc.ClientReadableStream<RunEvent>;
}
interface RawHealthClient extends grpc.Client {
  check(req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback<health.HealthCheckResponse>): void;
}

const LearnerClient = grpc.makeGenericClientConstructor(grpcServiceDefinition(Learner), 'Learner');
const HealthClient = grpc.makeGenericClientConstructor(grpcServiceDefinition(health.Health), 'Health');

/** A WatchRun subscription: events until `close()`, the end of the stream or an error. */
export interface RunWatch {
  /** The next event; null when the stream ended. Rejects with the stream's error. */
  next(): Promise<RunEvent | null>;
  close(): void;
}

export class LearnerClientHandle {
  private readonly learner: RawLearnerClient;
  private readonly health: RawHealthClient;

  constructor(readonly address: string) {
    this.learner = new LearnerClient(address, grpc.credentials.createInsecure()) as unknown as RawLearnerClient;
    this.health = new HealthClient(address, grpc.credentials.createInsecure()) as unknown as RawHealthClient;
  }

  private unary<T>(fn: UnaryFn<T>, req: unknown, timeoutMs: number, token?: string): Promise<T> {
    const md = new grpc.Metadata();
    if (token) md.set('authorization', `Bearer ${token}`);
    return new Promise((resolve, reject) => {
      fn.call(this.learner, req, md, { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res)));
    });
  }

  getRunState(timeoutMs = 5000): Promise<RunState> {
    return this.unary(this.learner.getRunState, make(GetRunStateRequestSchema, {}), timeoutMs);
  }

  listGroups(round: number, timeoutMs = 10_000): Promise<ListGroupsResponse> {
    return this.unary(this.learner.listGroups, make(ListGroupsRequestSchema, { round: BigInt(round) }), timeoutMs);
  }

  getTrajectory(id: string, timeoutMs = 10_000): Promise<ScoredTrajectory> {
    return this.unary(this.learner.getTrajectory, make(GetTrajectoryRequestSchema, { trajectoryId: id }), timeoutMs);
  }

  pauseRun(token: string, reason: string, timeoutMs = 5000): Promise<RunState> {
    return this.unary(this.learner.pauseRun, make(PauseRunRequestSchema, { reason }), timeoutMs, token);
  }

  resumeRun(token: string, timeoutMs = 5000): Promise<RunState> {
    return this.unary(this.learner.resumeRun, make(ResumeRunRequestSchema, {}), timeoutMs, token);
  }

  /** WatchRun from `sinceResourceVersion` (0: a snapshot first). */
  watchRun(sinceResourceVersion = 0n): RunWatch {
    const call = this.learner.watchRun(make(WatchRunRequestSchema, { sinceResourceVersion }), new grpc.Metadata(), {});
    const queue: RunEvent[] = [];
    let ended = false;
    let failure: Error | null = null;
    let wake: (() => void) | null = null;
    const poke = () => {
      const w = wake;
      wake = null;
      w?.();
    };
    call.on('data', (e: RunEvent) => {
      queue.push(e);
      if (queue.length >= 4) call.pause(); // read as the consumer takes events
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

  healthCheck(service = '', timeoutMs = 5000): Promise<health.HealthCheckResponse_ServingStatus> {
    return new Promise((resolve, reject) => {
      this.health.check(make(health.HealthCheckRequestSchema, { service }), new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res.status)));
    });
  }

  close(): void {
    this.learner.close();
    this.health.close();
  }
}
