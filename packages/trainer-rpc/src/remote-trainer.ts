// PolicyTrainer over the owrl.v1.Trainer gRPC service: what the learner uses for a trainer in
// another process (`OWRL_TRAINER=host:port`), the built-in one or a GPU trainer. A call has a
// deadline; a lost connection, an unavailable server or a deadline is retried with backoff and
// the SAME request (batch_id, base_version and groups unchanged), which the contract makes
// idempotent: the retry gets the version already produced, or joins the update still running.
// Requests are checked before they are sent, answers when they arrive.
import * as grpc from '@grpc/grpc-js';
import { Secret, silentLogger, type Logger } from '@owrl/core';
import {
  encode,
  grpcServiceDefinition,
  make,
  GetTrainerInfoRequestSchema,
  Trainer,
  TrainChunkSchema,
  type TrainChunk,
  type TrainerInfo,
  type TrainGroup,
  type TrainHeader,
  type TrainResult,
} from '@owrl/proto';
import type { PolicyTrainer } from '@owrl/rl';
import { fromServiceError, TrainerError, TrainerErrorCode } from './errors.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './trainer-server.js';
import { validateTrainRequest, validateTrainResult } from './train-validate.js';

export interface RemoteTrainerOptions {
  /** Sent as `authorization: Bearer <token>`. */
  token?: Secret | string;
  /** Deadline of one Train attempt, ms (default 30 min: a GPU update takes minutes). */
  trainDeadlineMs?: number;
  /** Deadline of GetTrainerInfo, ms (default 10 s). */
  infoDeadlineMs?: number;
  /** Attempts after the first for an unavailable trainer or a deadline (default 5). */
  retries?: number;
  /** First backoff, ms (default 500; doubles up to 15 s). */
  backoffMs?: number;
  /** Largest message sent (default 64 MiB; lowered to the server's max_group_bytes). */
  maxMessageBytes?: number;
  logger?: Logger;
}

type Callback<T> = (err: grpc.ServiceError | null, res?: T) => void;
interface RawTrainerClient extends grpc.Client {
  getTrainerInfo(req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback<TrainerInfo>): grpc.ClientUnaryCall;
  train(md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback<TrainResult>): grpc.ClientWritableStream<TrainChunk>;
}

const TrainerClient = grpc.makeGenericClientConstructor(grpcServiceDefinition(Trainer) as unknown as grpc.ServiceDefinition, 'Trainer');

const RETRYABLE = new Set<grpc.status>([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED, grpc.status.RESOURCE_EXHAUSTED, grpc.status.ABORTED]);

/** Validates `host:port` (IPv6 in brackets). @throws TrainerError TRAINER_INVALID_REQUEST */
export function parseTrainerAddress(address: string): string {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(address.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 1 || port > 65535) throw new TrainerError(TrainerErrorCode.InvalidRequest, `trainer address ${JSON.stringify(address)} must be host:port`);
  return address.trim();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class RemoteTrainer implements PolicyTrainer {
  private readonly client: RawTrainerClient;
  private readonly log: Logger;
  private readonly retries: number;
  private readonly backoffMs: number;
  private maxBytes: number;
  private readonly token: Secret;
  private closed = false;

  constructor(
    readonly address: string,
    private readonly opts: RemoteTrainerOptions = {},
  ) {
    parseTrainerAddress(address);
    this.log = (opts.logger ?? silentLogger).child({ trainer: address });
    this.retries = opts.retries ?? 5;
    this.backoffMs = opts.backoffMs ?? 500;
    this.maxBytes = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.token = typeof opts.token === 'string' ? new Secret(opts.token) : (opts.token ?? new Secret(''));
    this.client = new TrainerClient(address, grpc.credentials.createInsecure(), {
      'grpc.max_send_message_length': this.maxBytes,
      'grpc.max_receive_message_length': this.maxBytes,
    }) as unknown as RawTrainerClient;
  }

  private metadata(): grpc.Metadata {
    const md = new grpc.Metadata();
    if (this.token.isSet) md.set('authorization', `Bearer ${this.token.reveal()}`);
    return md;
  }

  /** Runs `once` until it succeeds or fails for good; retryable gRPC errors back off and repeat. */
  private async withRetries<T>(what: string, once: () => Promise<T>): Promise<T> {
    let last: grpc.ServiceError | undefined;
    for (let attempt = 1; attempt <= this.retries + 1; attempt++) {
      if (this.closed) throw new TrainerError(TrainerErrorCode.Unavailable, `${what}: the client is closed`);
      if (attempt > 1) {
        const wait = Math.min(15_000, this.backoffMs * 2 ** (attempt - 2));
        this.log.warn({ attempt, status: last ? grpc.status[last.code] : undefined, error: last?.details, waitMs: wait }, `${what} failed; retrying the same request`);
        await sleep(wait);
      }
      try {
        return await once();
      } catch (e) {
        if (e instanceof TrainerError) throw e;
        const se = e as grpc.ServiceError;
        if (typeof se.code !== 'number') throw e;
        if (!RETRYABLE.has(se.code)) throw fromServiceError(se, what);
        last = se;
      }
    }
    const err = last ? fromServiceError(last, `${what} (${this.retries + 1} attempts)`) : new TrainerError(TrainerErrorCode.Unavailable, what);
    throw new TrainerError(TrainerErrorCode.Unavailable, err.message, { cause: last });
  }

  info(): Promise<TrainerInfo> {
    return this.withRetries(
      `GetTrainerInfo at ${this.address}`,
      () =>
        new Promise<TrainerInfo>((resolve, reject) => {
          this.client.getTrainerInfo(make(GetTrainerInfoRequestSchema, {}), this.metadata(), { deadline: Date.now() + (this.opts.infoDeadlineMs ?? 10_000) }, (err, res) =>
            err || !res ? reject(err ?? new Error('no answer')) : resolve(res),
          );
        }),
    );
  }

  /**
   * Sends one update; resolves once the trainer has stored the new version.
   * @throws TrainerError TRAINER_INVALID_REQUEST (before sending, or as the trainer's refusal),
   *   TRAINER_UNKNOWN_BASE_VERSION, TRAINER_UNAUTHENTICATED, TRAINER_FAILED, TRAINER_BAD_RESULT,
   *   TRAINER_UNAVAILABLE after the retries.
   */
  async train(header: TrainHeader, groups: Iterable<TrainGroup> | AsyncIterable<TrainGroup>): Promise<TrainResult> {
    const list: TrainGroup[] = [];
    for await (const g of groups) list.push(g);
    const info = await this.info();
    if (info.maxGroupBytes > 0n && Number(info.maxGroupBytes) < this.maxBytes) this.maxBytes = Number(info.maxGroupBytes);
    validateTrainRequest(header, list, info.traceKinds);
    const chunks = [make(TrainChunkSchema, { kind: { case: 'header', value: header } }), ...list.map((g) => make(TrainChunkSchema, { kind: { case: 'group', value: g } }))];
    chunks.forEach((c, i) => {
      const n = encode(TrainChunkSchema, c).length;
      if (n > this.maxBytes) {
        throw new TrainerError(TrainerErrorCode.InvalidRequest, `groups[${i - 1}] encodes to ${n} bytes; the trainer takes at most ${this.maxBytes} per group`);
      }
    });
    const what = `Train ${header.batchId} (base ${header.baseVersion}) at ${this.address}`;
    const result = await this.withRetries(
      what,
      () =>
        new Promise<TrainResult>((resolve, reject) => {
          const call = this.client.train(this.metadata(), { deadline: Date.now() + (this.opts.trainDeadlineMs ?? 30 * 60_000) }, (err, res) =>
            err || !res ? reject(err ?? new Error('no answer')) : resolve(res),
          );
          call.on('error', () => undefined); // the callback carries the status
          for (const c of chunks) call.write(c);
          call.end();
        }),
    );
    validateTrainResult(header, result);
    return result;
  }

  close(): Promise<void> {
    this.closed = true;
    this.client.close();
    return Promise.resolve();
  }
}
