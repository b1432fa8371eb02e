// Shared helpers of the bus tests: a connected Bus per suite on its own real nats-server,
// rollout fixtures, and event-driven waiting.
import { trajectoryId } from '@owrl/core';
import { make, RolloutRequestSchema, TaskSchema, type MessageInitShape, type RolloutRequest } from '@owrl/proto';
import { startNatsServer, type NatsServer, type NatsServerOptions } from '@owrl/nats-server';
import { connectBus, type Bus } from '../src/index.js';

export { startNatsServer };

export interface Suite {
  server: NatsServer;
  bus: Bus;
  close(): Promise<void>;
}

export async function startSuite(name: string, nats: NatsServerOptions = {}): Promise<Suite> {
  const server = await startNatsServer(nats);
  const bus = await connectBus({ servers: server.url, name, reconnectTimeWaitMs: 100 });
  return {
    server,
    bus,
    close: async () => {
      await bus.close();
      await server.dispose();
    },
  };
}

export function rollout(runId: string, sample: number, extra: Omit<MessageInitShape<typeof RolloutRequestSchema>, '$typeName'> = {}): RolloutRequest {
  const key = { runId, round: 1, group: 0, sample, attempt: 0 };
  return make(RolloutRequestSchema, {
    runId,
    round: 1n,
    group: 0,
    sample,
    attempt: 0,
    trajectoryId: trajectoryId(key),
    maxSteps: 15,
    task: make(TaskSchema, { id: `t${sample}`, site: 'shop', startUrl: 'http://127.0.0.1:1/', instruction: 'buy a lamp' }),
    ...extra,
  });
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(v: T): void;
  reject(e: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Rejects when `p` does not settle within `ms` (so a broken test fails instead of hanging). */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, rej) => {
    t = setTimeout(() => rej(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(t);
  }
}

/** Polls `check` (for state that changes without an event, like TTL expiry) until true. */
export async function until(check: () => Promise<boolean> | boolean, ms: number, what: string, everyMs = 100): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
