// gRPC client of the learner's owrl.v1.Learner service and the standard health service.
import * as grpc from '@grpc/grpc-js';
import { grpcServiceDefinition, health, Learner, make, GetRunStateRequestSchema, type RunState } from '@owrl/proto';

type Callback<T> = (err: grpc.ServiceError | null, res: T) => void;
interface RawLearnerClient extends grpc.Client {
  getRunState(req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback<RunState>): void;
}
interface RawHealthClient extends grpc.Client {
  check(req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback<health.HealthCheckResponse>): void;
}

const LearnerClient = grpc.makeGenericClientConstructor(grpcServiceDefinition(Learner) as unknown as grpc.ServiceDefinition, 'Learner');
const HealthClient = grpc.makeGenericClientConstructor(grpcServiceDefinition(health.Health) as unknown as grpc.ServiceDefinition, 'Health');

export class LearnerClientHandle {
  private readonly learner: RawLearnerClient;
  private readonly health: RawHealthClient;

  constructor(readonly address: string) {
    this.learner = new LearnerClient(address, grpc.credentials.createInsecure()) as unknown as RawLearnerClient;
    this.health = new HealthClient(address, grpc.credentials.createInsecure()) as unknown as RawHealthClient;
  }

  getRunState(timeoutMs = 5000): Promise<RunState> {
    return new Promise((resolve, reject) => {
      this.learner.getRunState(make(GetRunStateRequestSchema, {}), new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res)));
    });
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
