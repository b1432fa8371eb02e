// A small gRPC client of the learner for tests: run state, health, and the mutating calls with an
// optional control token, over a real socket (the same contract the CLI and the console use).
import * as grpc from '@grpc/grpc-js';
import {
  grpcServiceDefinition,
  health,
  Learner,
  make,
  GetRunStateRequestSchema,
  ListGroupsRequestSchema,
  PauseRunRequestSchema,
  ResumeRunRequestSchema,
  type ListGroupsResponse,
  type RunState,
} from '@owrl/proto';

type Callback<T> = (err: grpc.ServiceError | null, res: T) => void;
type UnaryMethod<T> = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback<T>) => void;
interface RawLearner extends grpc.Client {
  getRunState: UnaryMethod<RunState>;
  listGroups: UnaryMethod<ListGroupsResponse>;
  pauseRun: UnaryMethod<RunState>;
  resumeRun: UnaryMethod<RunState>;
}
interface RawHealth extends grpc.Client {
  check: UnaryMethod<health.HealthCheckResponse>;
}

const LearnerCtor = grpc.makeGenericClientConstructor(grpcServiceDefinition(Learner) as unknown as grpc.ServiceDefinition, 'Learner');
const HealthCtor = grpc.makeGenericClientConstructor(grpcServiceDefinition(health.Health) as unknown as grpc.ServiceDefinition, 'Health');

/** gRPC client of one learner address; close() when done. */
export class LearnerProbe {
  private readonly learner: RawLearner;
  private readonly health: RawHealth;

  constructor(readonly address: string) {
    this.learner = new LearnerCtor(address, grpc.credentials.createInsecure()) as unknown as RawLearner;
    this.health = new HealthCtor(address, grpc.credentials.createInsecure()) as unknown as RawHealth;
  }

  /** GetRunState. @throws grpc.ServiceError (e.g. UNAVAILABLE while the learner is down). */
  getRunState(timeoutMs = 5000): Promise<RunState> {
    return unary(this.learner.getRunState.bind(this.learner), make(GetRunStateRequestSchema, {}), undefined, timeoutMs);
  }

  /** ListGroups of `round` (every group with its trajectory ids and fate). */
  listGroups(round: number, timeoutMs = 5000): Promise<ListGroupsResponse> {
    return unary(this.learner.listGroups.bind(this.learner), make(ListGroupsRequestSchema, { round: BigInt(round) }), undefined, timeoutMs);
  }

  /** PauseRun with `token` as `authorization: Bearer <token>` (none when undefined). */
  pauseRun(reason: string, token?: string, timeoutMs = 5000): Promise<RunState> {
    return unary(this.learner.pauseRun.bind(this.learner), make(PauseRunRequestSchema, { reason }), token, timeoutMs);
  }

  /** ResumeRun with `token` as `authorization: Bearer <token>` (none when undefined). */
  resumeRun(token?: string, timeoutMs = 5000): Promise<RunState> {
    return unary(this.learner.resumeRun.bind(this.learner), make(ResumeRunRequestSchema, {}), token, timeoutMs);
  }

  /** grpc.health.v1 Check of `service` ('' = the server). */
  async healthCheck(service = '', timeoutMs = 5000): Promise<health.HealthCheckResponse_ServingStatus> {
    const res = await unary(this.health.check.bind(this.health), make(health.HealthCheckRequestSchema, { service }), undefined, timeoutMs);
    return res.status;
  }

  close(): void {
    this.learner.close();
    this.health.close();
  }
}

function unary<T>(method: UnaryMethod<T>, req: unknown, token: string | undefined, timeoutMs: number): Promise<T> {
  const md = new grpc.Metadata();
  if (token !== undefined) md.set('authorization', `Bearer ${token}`);
  return new Promise<T>((resolve, reject) => {
    method(req, md, { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}
