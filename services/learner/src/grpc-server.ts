// gRPC server of the learner: owrl.v1.Learner (run state queries and control) and the standard
// grpc.health.v1 service. Mutating calls need the control token (metadata `authorization:
// Bearer <token>`).
import * as grpc from '@grpc/grpc-js';
import {
  grpcServiceDefinition,
  health,
  Learner,
  make,
  RunEventSchema,
  type GetTrajectoryRequest,
  type ListGroupsRequest,
  type ListGroupsResponse,
  type PauseRunRequest,
  type RunEvent,
  type RunState,
  type ScoredTrajectory,
  type WatchRunRequest,
} from '@owrl/proto';
import type { Logger } from '@owrl/telemetry';
import type { RunStateStore } from './run-state-store.js';

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
}

type Unary<Req, Res> = grpc.handleUnaryCall<Req, Res>;

function statusError(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });
}

export class LearnerGrpcServer {
  private readonly server = new grpc.Server({ 'grpc.keepalive_permit_without_calls': 1 });
  private healthStatus: health.HealthCheckResponse_ServingStatus = health.HealthCheckResponse_ServingStatus.NOT_SERVING;
  private readonly healthWatchers = new Set<grpc.ServerWritableStream<health.HealthCheckRequest, health.HealthCheckResponse>>();
  port = 0;

  constructor(
    private readonly store: RunStateStore,
    private readonly control: LearnerControl,
    private readonly opts: LearnerGrpcOptions,
  ) {
    this.server.addService(grpcServiceDefinition(Learner) as unknown as grpc.ServiceDefinition, this.learnerImpl());
    this.server.addService(grpcServiceDefinition(health.Health) as unknown as grpc.ServiceDefinition, this.healthImpl());
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

  private learnerImpl(): grpc.UntypedServiceImplementation {
    const getRunState: Unary<unknown, RunState> = (_call, cb) => cb(null, this.store.get());
    const watchRun = (call: grpc.ServerWritableStream<WatchRunRequest, RunEvent>): void => {
      const send = (kind: string) => {
        const state = this.store.get();
        call.write(make(RunEventSchema, { resourceVersion: state.resourceVersion, state, kind }));
      };
      const since = call.request.sinceResourceVersion;
      if (since === 0n || this.store.get().resourceVersion > since) send('snapshot');
      const off = this.store.onChange((kind) => send(kind));
      call.on('cancelled', off);
      call.on('close', off);
    };
    const listGroups: Unary<ListGroupsRequest, ListGroupsResponse> = (call, cb) => cb(null, this.control.listGroups(Number(call.request.round)));
    const getTrajectory: Unary<GetTrajectoryRequest, ScoredTrajectory> = (call, cb) => {
      const t = this.control.getTrajectory(call.request.trajectoryId);
      if (!t) cb(statusError(grpc.status.NOT_FOUND, `trajectory ${JSON.stringify(call.request.trajectoryId)} is not held by the learner (unknown id or an old round)`));
      else cb(null, t);
    };
    const pauseRun: Unary<PauseRunRequest, RunState> = (call, cb) => {
      const err = this.authorize(call);
      if (err) return cb(err);
      this.control.pause(call.request.reason);
      this.opts.logger.info({ reason: call.request.reason }, 'run paused over gRPC');
      cb(null, this.store.get());
    };
    const resumeRun: Unary<unknown, RunState> = (call, cb) => {
      const err = this.authorize(call);
      if (err) return cb(err);
      this.control.resume();
      this.opts.logger.info({}, 'run resumed over gRPC');
      cb(null, this.store.get());
    };
    return { getRunState, watchRun, listGroups, getTrajectory, pauseRun, resumeRun } as unknown as grpc.UntypedServiceImplementation;
  }

  private healthImpl(): grpc.UntypedServiceImplementation {
    const known = (service: string) => service === '' || service === 'owrl.v1.Learner';
    const check: Unary<health.HealthCheckRequest, health.HealthCheckResponse> = (call, cb) => {
      if (!known(call.request.service)) return cb(statusError(grpc.status.NOT_FOUND, `unknown service ${call.request.service}`));
      cb(null, make(health.HealthCheckResponseSchema, { status: this.healthStatus }));
    };
    const watch = (call: grpc.ServerWritableStream<health.HealthCheckRequest, health.HealthCheckResponse>): void => {
      const status = known(call.request.service) ? this.healthStatus : health.HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN;
      call.write(make(health.HealthCheckResponseSchema, { status }));
      this.healthWatchers.add(call);
      call.on('cancelled', () => this.healthWatchers.delete(call));
    };
    return { check, watch } as unknown as grpc.UntypedServiceImplementation;
  }
}
