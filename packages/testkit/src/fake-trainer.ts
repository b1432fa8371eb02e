// A stand-in for the GPU trainer a user brings (verl, TRL, OpenRLHF behind owrl.v1.Trainer),
// implementing the contract of docs/trainer.md over a real gRPC socket and written apart from
// owrl's own trainer server, so each checks the other: header first, then groups; idempotent on
// (batch_id, base_version); a base version older than the newest is restored first; token traces
// checked (log-probs and loss mask as long as the token ids); the images a request references
// fetched from its image_url and checked against their sha256, a sample with an image it cannot
// get refused and counted (samples_refused), not the update; every update produces a LoRA
// adapter folder (adapter_config.json, adapter_model.safetensors) whose sha256 is that of the
// weights file. Records what it receives; faults can be injected.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import {
  create,
  EpochStatSchema,
  grpcServiceDefinition,
  health,
  PolicyArtifactSchema,
  SCHEMA_VERSION,
  Trainer,
  TrainerInfoSchema,
  TrainGroupSchema,
  TrainResultSchema,
  type PolicyArtifact,
  type TrainChunk,
  type TrainerInfo,
  type TrainGroup,
  type TrainHeader,
  type TrainResult,
} from '@owrl/proto';

export interface FakeTrainerOptions {
  /** Folder the adapter versions are written under (v<N>/). */
  dir: string;
  artifactKind?: string;
  traceKinds?: string[];
  baseModel?: string;
  /** When set, calls must carry `authorization: Bearer <token>`. */
  token?: string;
  /** Each Train waits this long before answering (a slow GPU update). */
  trainDelayMs?: number;
}

export interface ReceivedUpdate {
  header: TrainHeader;
  groups: TrainGroup[];
  /** The answer given (undefined when the call failed). */
  result?: TrainResult;
  /** Images fetched (sha256 checked), and trajectory ids of the samples refused for an image it could not get. */
  imagesFetched?: number;
  refused?: string[];
}

export interface FakeTrainerDouble {
  address: string;
  port: number;
  /** Every Train call that got past the header, in arrival order (replays included). */
  received: ReceivedUpdate[];
  /** Updates that produced a new version. */
  updates: ReceivedUpdate[];
  /** Versions held, newest last. */
  versions: Map<bigint, PolicyArtifact>;
  /** The next Train call fails with this gRPC status after reading its stream. */
  failNext(code: grpc.status, message: string): void;
  /** The next Train call stores its version but the answer is lost (the client sees UNAVAILABLE). */
  dropNextAnswer(): void;
  close(): Promise<void>;
}

function statusError(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });
}

/** A minimal safetensors file holding one float32 tensor. */
function safetensors(name: string, values: Float32Array): Buffer {
  const header = Buffer.from(JSON.stringify({ [name]: { dtype: 'F32', shape: [values.length], data_offsets: [0, values.length * 4] } }), 'utf8');
  const pad = (8 - (header.length % 8)) % 8;
  const h = Buffer.concat([header, Buffer.alloc(pad, 0x20)]);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(h.length));
  return Buffer.concat([len, h, Buffer.from(values.buffer, values.byteOffset, values.byteLength)]);
}

export async function startFakeTrainer(opts: FakeTrainerOptions): Promise<FakeTrainerDouble> {
  const artifactKind = opts.artifactKind ?? 'lora-adapter';
  const traceKinds = opts.traceKinds ?? ['tokens'];
  const baseModel = opts.baseModel ?? 'base-model';
  const done = new Map<string, TrainResult>();
  let fault: { code: grpc.status; message: string } | undefined;
  let dropAnswer = false;
  fs.mkdirSync(opts.dir, { recursive: true });

  const double: FakeTrainerDouble = {
    address: '',
    port: 0,
    received: [],
    updates: [],
    versions: new Map(),
    failNext: (code, message) => void (fault = { code, message }),
    dropNextAnswer: () => void (dropAnswer = true),
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
        setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 1000).unref();
      }),
  };
  const latest = (): bigint => [...double.versions.keys()].reduce((a, b) => (b > a ? b : a), 0n);

  const authorized = (md: grpc.Metadata): boolean => opts.token === undefined || md.get('authorization')[0] === `Bearer ${opts.token}`;

  const info = (): TrainerInfo =>
    create(TrainerInfoSchema, {
      schemaVersion: SCHEMA_VERSION,
      name: 'fake-gpu-trainer/1',
      traceKinds,
      artifactKind,
      latestVersion: latest(),
      restorableVersions: [0n, ...double.versions.keys()],
      maxGroupBytes: BigInt(64 << 20),
      baseModel,
    });

  /** The reason a group is not acceptable, or undefined. */
  const checkGroup = (g: TrainGroup, gi: number): string | undefined => {
    if (g.samples.length === 0) return `groups[${gi}] has no samples`;
    for (const [si, s] of g.samples.entries()) {
      if (s.trajectoryId === '') return `groups[${gi}].samples[${si}].trajectory_id is empty`;
      if (!Number.isFinite(s.advantage)) return `groups[${gi}].samples[${si}].advantage is not finite`;
      for (const [ti, st] of s.steps.entries()) {
        const where = `groups[${gi}].samples[${si}].steps[${ti}].trace`;
        const kind = st.trace?.kind.case;
        if (kind === undefined || !traceKinds.includes(kind)) return `${where} is of kind ${kind ?? 'none'}; this trainer takes ${traceKinds.join(', ')}`;
        if (kind === 'tokens') {
          const t = st.trace?.kind.value as { tokenIds: number[]; logprobs: number[]; lossMask: number[] };
          if (t.logprobs.length !== t.tokenIds.length) return `${where}.tokens has ${t.logprobs.length} logprobs for ${t.tokenIds.length} token ids`;
          if (t.lossMask.length !== 0 && t.lossMask.length !== t.tokenIds.length) return `${where}.tokens has ${t.lossMask.length} loss-mask entries for ${t.tokenIds.length} token ids`;
        }
      }
    }
    return undefined;
  };

  const produce = (header: TrainHeader, groups: TrainGroup[]): TrainResult => {
    // restore: a learner that crashed before checkpointing comes back with an older base
    for (const v of [...double.versions.keys()]) if (v > header.baseVersion) double.versions.delete(v);
    let tokens = 0;
    let weighted = 0;
    let samples = 0;
    for (const g of groups) {
      for (const s of g.samples) {
        samples++;
        for (const st of s.steps) {
          if (st.trace?.kind.case !== 'tokens') continue;
          const t = st.trace.kind.value;
          const n = t.lossMask.length === 0 ? t.tokenIds.length : t.lossMask.reduce((a, m) => a + (m ? 1 : 0), 0);
          tokens += n;
          weighted += n * s.advantage;
        }
      }
    }
    const version = header.targetVersion;
    const dir = path.join(opts.dir, `v${version}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'adapter_config.json'), JSON.stringify({ peft_type: 'LORA', base_model_name_or_path: baseModel, r: 8, lora_alpha: 16, target_modules: ['q_proj', 'v_proj'] }));
    const weights = safetensors('base_model.model.lm_head.lora_A.weight', Float32Array.of(Number(version), tokens, weighted));
    fs.writeFileSync(path.join(dir, 'adapter_model.safetensors'), weights);
    const artifact = create(PolicyArtifactSchema, {
      schemaVersion: SCHEMA_VERSION,
      version,
      uri: pathToFileURL(dir).href,
      sha256: createHash('sha256').update(weights).digest('hex'),
      bytes: BigInt(weights.length),
      kind: artifactKind,
      runId: header.runId,
      createdAtMs: BigInt(Date.now()),
      temperature: header.hyper?.temperature ?? 1,
      serveName: `owrl-v${version}`,
      baseModel,
    });
    double.versions.set(version, artifact);
    const epochs = header.hyper?.ppoEpochs || 2;
    return create(TrainResultSchema, {
      schemaVersion: SCHEMA_VERSION,
      batchId: header.batchId,
      version,
      artifact,
      epochs: Array.from({ length: epochs }, (_, e) =>
        create(EpochStatSchema, { epoch: e + 1, loss: tokens > 0 ? 0 - weighted / tokens + 0 : 0, clipFraction: 0, approxKl: 0, gradNorm: 0, meanRatio: 1, learningRate: header.hyper?.learningRate ?? 0, actions: BigInt(tokens) }),
      ),
      replayed: false,
      trainS: 0,
      samples: BigInt(samples),
      actions: BigInt(tokens),
    });
  };

  /** Fetches the images of `groups` from `imageUrl`; returns the samples to train and the ids of those refused. */
  const fetchImages = async (imageUrl: string, groups: TrainGroup[], rec: ReceivedUpdate): Promise<TrainGroup[]> => {
    const got = new Map<string, boolean>();
    const fetchOne = async (sha: string): Promise<boolean> => {
      if (got.has(sha)) return got.get(sha) as boolean;
      let ok = false;
      try {
        const res = await fetch(`${imageUrl}${sha}`, { signal: AbortSignal.timeout(10_000) });
        const bytes = Buffer.from(await res.arrayBuffer());
        ok = res.ok && createHash('sha256').update(bytes).digest('hex') === sha;
      } catch {
        ok = false;
      }
      got.set(sha, ok);
      return ok;
    };
    rec.refused = [];
    const out: TrainGroup[] = [];
    for (const g of groups) {
      const samples = [];
      for (const smp of g.samples) {
        const shas = smp.steps.flatMap((st) => (st.trace?.kind.case === 'tokens' ? st.trace.kind.value.images.map((i) => i.sha256) : []));
        const oks = await Promise.all(shas.map(fetchOne));
        if (oks.every(Boolean)) samples.push(smp);
        else rec.refused.push(smp.trajectoryId);
      }
      if (samples.length > 0) out.push(create(TrainGroupSchema, { ...g, samples }));
    }
    rec.imagesFetched = [...got.values()].filter(Boolean).length;
    return out;
  };

  const train = (call: grpc.ServerReadableStream<TrainChunk, TrainResult>, cb: grpc.sendUnaryData<TrainResult>): void => {
    if (!authorized(call.metadata)) return cb(statusError(grpc.status.UNAUTHENTICATED, 'missing or wrong trainer token'));
    let header: TrainHeader | undefined;
    const groups: TrainGroup[] = [];
    let error: grpc.ServiceError | undefined;
    call.on('data', (chunk: TrainChunk) => {
      if (error) return;
      if (chunk.kind.case === 'header') {
        if (header) error = statusError(grpc.status.INVALID_ARGUMENT, 'a second header arrived');
        else header = chunk.kind.value;
      } else if (chunk.kind.case === 'group') {
        if (!header) error = statusError(grpc.status.INVALID_ARGUMENT, 'the first chunk must be the header');
        else groups.push(chunk.kind.value);
      } else error = statusError(grpc.status.INVALID_ARGUMENT, 'empty chunk');
    });
    call.on('error', () => undefined);
    call.on('end', () => {
      if (error) return cb(error);
      if (!header) return cb(statusError(grpc.status.INVALID_ARGUMENT, 'no header'));
      const h = header;
      const rec: ReceivedUpdate = { header: h, groups };
      double.received.push(rec);
      const finish = async () => {
        if (fault) {
          const f = fault;
          fault = undefined;
          return cb(statusError(f.code, f.message));
        }
        if (h.schemaVersion !== SCHEMA_VERSION) return cb(statusError(grpc.status.INVALID_ARGUMENT, `schema_version ${h.schemaVersion} is not ${SCHEMA_VERSION}`));
        if (h.batchId === '') return cb(statusError(grpc.status.INVALID_ARGUMENT, 'batch_id is empty'));
        if (h.targetVersion !== h.baseVersion + 1n) return cb(statusError(grpc.status.INVALID_ARGUMENT, `target_version ${h.targetVersion} must be base_version + 1 (${h.baseVersion + 1n})`));
        const key = `${h.batchId}@${h.baseVersion}`;
        const prior = done.get(key);
        if (prior && double.versions.get(prior.version)?.sha256 === prior.artifact?.sha256) {
          rec.result = create(TrainResultSchema, { ...prior, replayed: true });
          return cb(null, rec.result);
        }
        if (h.baseVersion !== 0n && !double.versions.has(h.baseVersion)) {
          return cb(statusError(grpc.status.FAILED_PRECONDITION, `base_version ${h.baseVersion} is not held (held: 0, ${[...double.versions.keys()].join(', ')})`));
        }
        for (const [gi, g] of groups.entries()) {
          const bad = checkGroup(g, gi);
          if (bad) return cb(statusError(grpc.status.INVALID_ARGUMENT, bad));
        }
        if (h.groups !== 0 && h.groups !== groups.length) return cb(statusError(grpc.status.INVALID_ARGUMENT, `header announced ${h.groups} groups, ${groups.length} arrived`));
        // the images: a sample whose image cannot be fetched is refused, not the update
        const trained = h.imageUrl !== '' ? await fetchImages(h.imageUrl, groups, rec) : groups;
        const result = produce(h, trained);
        result.samplesRefused = BigInt(rec.refused?.length ?? 0);
        done.set(key, result);
        rec.result = result;
        double.updates.push(rec);
        if (dropAnswer) {
          dropAnswer = false;
          return cb(statusError(grpc.status.UNAVAILABLE, 'connection lost before the answer (injected)'));
        }
        cb(null, result);
      };
      if (opts.trainDelayMs) setTimeout(() => void finish(), opts.trainDelayMs);
      else void finish();
    });
  };

  const server = new grpc.Server({ 'grpc.max_receive_message_length': 64 << 20 });
  server.addService(grpcServiceDefinition(Trainer) as unknown as grpc.ServiceDefinition, {
    getTrainerInfo: (call: grpc.ServerUnaryCall<unknown, TrainerInfo>, cb: grpc.sendUnaryData<TrainerInfo>) => {
      if (!authorized(call.metadata)) return cb(statusError(grpc.status.UNAUTHENTICATED, 'missing or wrong trainer token'));
      cb(null, info());
    },
    train,
  } as unknown as grpc.UntypedServiceImplementation);
  // grpc.health.v1, as a trainer behind the contract serves it (the preflight of owrl train asks).
  server.addService(grpcServiceDefinition(health.Health) as unknown as grpc.ServiceDefinition, {
    check: (_call: unknown, cb: grpc.sendUnaryData<health.HealthCheckResponse>) => cb(null, create(health.HealthCheckResponseSchema, { status: health.HealthCheckResponse_ServingStatus.SERVING })),
    watch: (call: grpc.ServerWritableStream<unknown, health.HealthCheckResponse>) => {
      call.write(create(health.HealthCheckResponseSchema, { status: health.HealthCheckResponse_ServingStatus.SERVING }));
    },
  } as unknown as grpc.UntypedServiceImplementation);
  double.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
  );
  double.address = `127.0.0.1:${double.port}`;
  return double;
}
