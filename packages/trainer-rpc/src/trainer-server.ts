// The owrl.v1.Trainer gRPC service in front of any PolicyTrainer (the built-in pointer trainer as
// its own process, or anything else implementing the TypeScript contract), plus grpc.health.v1.
// Train is client-streaming: the header chunk first, then one chunk per group; the request is
// checked before the trainer sees it, updates run one at a time, and a retry of an update still
// running (same batch_id and base_version, e.g. after a client deadline) waits for that run
// instead of starting another. An optional token guards every call.
import * as grpc from '@grpc/grpc-js';
import { EPISODE_BUCKETS, noopMeter, Secret, silentLogger, type Counter, type Histogram, type Logger, type Meter } from '@owrl/core';
import { clone, health, make, Trainer, TrainerInfoSchema, type GetTrainerInfoRequest, type TrainChunk, type TrainerInfo, type TrainGroup, type TrainHeader, type TrainResult } from '@owrl/proto';
import type { PolicyTrainer } from '@owrl/rl';
import { toServiceError, TrainerError, TrainerErrorCode } from './errors.js';
import { validateTrainRequest, validateTrainResult } from './train-validate.js';
import { addTypedService, type ServiceImplementation } from './typed-service.js';

export const TRAINER_SERVICE = 'owrl.v1.Trainer';
/** Default largest message (one TrainGroup chunk) the server accepts. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 << 20;

export interface TrainerServerOptions {
  host?: string;
  /** 0 = any free port. */
  port?: number;
  /** When set, calls must carry `authorization: Bearer <token>`. */
  token?: Secret | string;
  maxMessageBytes?: number;
  logger?: Logger;
  meter?: Meter;
}

export class TrainerServer {
  private readonly server: grpc.Server;
  private readonly log: Logger;
  private readonly maxBytes: number;
  private readonly token: Secret;
  private readonly updates: Counter<'outcome'>;
  private readonly updateSeconds: Histogram;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly inflight = new Map<string, Promise<TrainResult>>();
  private healthStatus = health.HealthCheckResponse_ServingStatus.SERVING;
  private readonly healthWatchers = new Set<grpc.ServerWritableStream<health.HealthCheckRequest, health.HealthCheckResponse>>();
  port = 0;

  constructor(
    private readonly trainer: PolicyTrainer,
    private readonly opts: TrainerServerOptions = {},
  ) {
    this.log = opts.logger ?? silentLogger;
    this.maxBytes = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.token = typeof opts.token === 'string' ? new Secret(opts.token) : (opts.token ?? new Secret(''));
    const meter = opts.meter ?? noopMeter;
    this.updates = meter.counter({ name: 'owrl_trainer_updates_total', help: 'Train calls by outcome (trained, replayed, refused, failed).', labelNames: ['outcome'] });
    this.updateSeconds = meter.histogram({ name: 'owrl_trainer_update_seconds', help: 'Wall time of an update in the trainer.', buckets: EPISODE_BUCKETS });
    this.server = new grpc.Server({ 'grpc.max_receive_message_length': this.maxBytes, 'grpc.keepalive_permit_without_calls': 1 });
    addTypedService(this.server, Trainer, this.trainerImpl());
    addTypedService(this.server, health.Health, this.healthImpl());
  }

  /** Binds and serves; resolves with the port. */
  async start(): Promise<number> {
    const addr = `${this.opts.host ?? '127.0.0.1'}:${this.opts.port ?? 0}`;
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(addr, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
    );
    this.log.info({ address: addr, port: this.port }, 'trainer service listening');
    return this.port;
  }

  setServing(serving: boolean): void {
    this.healthStatus = serving ? health.HealthCheckResponse_ServingStatus.SERVING : health.HealthCheckResponse_ServingStatus.NOT_SERVING;
    for (const w of this.healthWatchers) w.write(make(health.HealthCheckResponseSchema, { status: this.healthStatus }));
  }

  /** Stops taking calls, lets a running update finish (bounded), then closes. */
  async close(graceMs = 5000): Promise<void> {
    this.setServing(false);
    for (const w of this.healthWatchers) w.end();
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      t.unref();
      this.server.tryShutdown(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  private authorized(md: grpc.Metadata): boolean {
    return !this.token.isSet || md.get('authorization')[0] === `Bearer ${this.token.reveal()}`;
  }

  private unauthenticated(): grpc.ServiceError {
    return toServiceError(new TrainerError(TrainerErrorCode.Unauthenticated, 'missing or wrong trainer token (metadata authorization: Bearer <token>)'));
  }

  private async info(): Promise<TrainerInfo> {
    const out = clone(TrainerInfoSchema, await this.trainer.info());
    const limit = BigInt(this.maxBytes);
    if (out.maxGroupBytes === 0n || out.maxGroupBytes > limit) out.maxGroupBytes = limit;
    return out;
  }

  /** Runs an update after the previous one, or joins the same update already running. */
  private run(header: TrainHeader, groups: TrainGroup[]): Promise<TrainResult> {
    const key = `${header.batchId}@${header.baseVersion}`;
    const running = this.inflight.get(key);
    if (running) {
      this.log.info({ batch: header.batchId, base: Number(header.baseVersion) }, 'update already running; the retry waits for it');
      return running;
    }
    const p = this.chain.then(async () => {
      const t0 = performance.now();
      const r = await this.trainer.train(header, groups);
      validateTrainResult(header, r);
      this.updateSeconds.observe((performance.now() - t0) / 1000);
      this.log.info(
        { batch: header.batchId, base: Number(header.baseVersion), version: Number(r.version), groups: groups.length, replayed: r.replayed, ms: Math.round(performance.now() - t0) },
        'update done',
      );
      return r;
    });
    this.chain = p.catch(() => undefined);
    this.inflight.set(key, p);
    void p.finally(() => this.inflight.delete(key)).catch(() => undefined);
    return p;
  }

  private trainerImpl(): ServiceImplementation<typeof Trainer> {
    const getTrainerInfo = (call: grpc.ServerUnaryCall<GetTrainerInfoRequest, TrainerInfo>, cb: grpc.sendUnaryData<TrainerInfo>) => {
      if (!this.authorized(call.metadata)) return cb(this.unauthenticated());
      this.info().then(
        (i) => cb(null, i),
        (e: unknown) => cb(toServiceError(e)),
      );
    };
    const train = (call: grpc.ServerReadableStream<TrainChunk, TrainResult>, cb: grpc.sendUnaryData<TrainResult>) => {
      if (!this.authorized(call.metadata)) return cb(this.unauthenticated());
      let header: TrainHeader | undefined;
      const groups: TrainGroup[] = [];
      let error: TrainerError | undefined;
      const refuse = (msg: string) => (error ??= new TrainerError(TrainerErrorCode.InvalidRequest, msg));
      call.on('data', (chunk: TrainChunk) => {
        if (error) return;
        if (chunk.kind.case === 'header') {
          if (header) refuse('a second TrainHeader arrived; an update has exactly one, first');
          else header = chunk.kind.value;
        } else if (chunk.kind.case === 'group') {
          if (!header) refuse('the first chunk must be the TrainHeader, a TrainGroup came first');
          else groups.push(chunk.kind.value);
        } else refuse('a TrainChunk carries neither header nor group');
      });
      call.on('error', (e) => this.log.warn({ err: e }, 'train stream failed'));
      call.on('end', () => {
        if (error) {
          this.updates.inc({ outcome: 'refused' });
          return cb(toServiceError(error));
        }
        if (!header) return cb(toServiceError(new TrainerError(TrainerErrorCode.InvalidRequest, 'the stream ended without a TrainHeader')));
        const h = header;
        this.trainer
          .info()
          .then((info) => {
            validateTrainRequest(h, groups, info.traceKinds);
            return this.run(h, groups);
          })
          .then(
            (r) => {
              this.updates.inc({ outcome: r.replayed ? 'replayed' : 'trained' });
              cb(null, r);
            },
            (e: unknown) => {
              const refused = e instanceof TrainerError && (e.code === TrainerErrorCode.InvalidRequest || e.code === TrainerErrorCode.UnknownBaseVersion);
              this.updates.inc({ outcome: refused ? 'refused' : 'failed' });
              this.log.warn({ batch: h.batchId, err: e }, 'update refused or failed');
              cb(toServiceError(e));
            },
          );
      });
    };
    return { getTrainerInfo, train };
  }

  private healthImpl(): ServiceImplementation<typeof health.Health> {
    const known = (s: string) => s === '' || s === TRAINER_SERVICE;
    const check = (call: grpc.ServerUnaryCall<health.HealthCheckRequest, health.HealthCheckResponse>, cb: grpc.sendUnaryData<health.HealthCheckResponse>) => {
      if (!known(call.request.service)) return cb(Object.assign(new Error(`unknown service ${call.request.service}`), { code: grpc.status.NOT_FOUND, details: `unknown service ${call.request.service}`, metadata: new grpc.Metadata() }));
      cb(null, make(health.HealthCheckResponseSchema, { status: this.healthStatus }));
    };
    const watch = (call: grpc.ServerWritableStream<health.HealthCheckRequest, health.HealthCheckResponse>) => {
      call.write(make(health.HealthCheckResponseSchema, { status: known(call.request.service) ? this.healthStatus : health.HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN }));
      this.healthWatchers.add(call);
      call.on('cancelled', () => this.healthWatchers.delete(call));
    };
    return { check, watch };
  }
}
