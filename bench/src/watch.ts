// WatchRun fan-out benchmark: K console clients watching one learner whose run state holds a
// fleet (A actors) and changes C times a second, as it does under fleet load (every ingested
// trajectory and every actor heartbeat is a change). The server is the learner's real gRPC
// server in a child process (services/learner/test/watch-bench-server.ts), so its CPU is measured alone; the
// clients are real grpc-js WatchRun streams over a socket in this process.
// Figures: the server's CPU, events sent per client per second, event size, and the delay from a
// change to its arrival at a decoding client (p50/p99).
// Arguments: --clients K (50) --actors A (2000) --rate C (200) --seconds T (10).
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { toBinary } from '@bufbuild/protobuf';
import { grpcServiceDefinition, Learner, make, RunEventSchema, WatchRunRequestSchema, type RunEvent } from '@owrl/proto';

const SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../services/learner/dist/test/watch-bench-server.js');

function arg(args: string[], name: string, dflt: number): number {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = Number(args[i + 1]);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} ${args[i + 1] ?? ''}: expected a positive number`);
  return v;
}

const pct = (xs: number[], p: number): number => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

interface WatchClient extends grpc.Client {
  watchRun(req: unknown, md: grpc.Metadata, opts: grpc.CallOptions): grpc.ClientReadableStream<RunEvent>;
}
const LearnerClient = grpc.makeGenericClientConstructor(grpcServiceDefinition(Learner), 'Learner') as unknown as new (
  addr: string,
  creds: grpc.ChannelCredentials,
  opts?: grpc.ClientOptions,
) => WatchClient;

export async function watchBench(args: string[]): Promise<Record<string, unknown>> {
  const clients = arg(args, 'clients', 50);
  const actors = arg(args, 'actors', 2000);
  const rate = arg(args, 'rate', 200);
  const seconds = arg(args, 'seconds', 10);
  const child = spawn(process.execPath, [SERVER, String(actors), String(rate), String(seconds)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout });
  const it = lines[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, number>> => {
    const r = await it.next();
    if (r.done) throw new Error('the watch server exited early');
    return JSON.parse(r.value) as Record<string, number>;
  };
  try {
    const { port } = await next();
    process.stderr.write(`bench watch: server on ${port}, ${actors} actors; ${clients} clients, ${rate} changes/s for ${seconds} s\n`);
    let measuring = false;
    const delays: number[] = [];
    const perClient = new Array<number>(clients).fill(0);
    let bytes = 0;
    let events = 0;
    const streams: grpc.ClientReadableStream<RunEvent>[] = [];
    const conns: WatchClient[] = [];
    // Client 0 decodes every event (a console); the others take the bytes only, so that this one
    // process can stand for many consoles without its decoding becoming what is measured.
    const rawDef = grpcServiceDefinition(Learner);
    rawDef['watchRun'] = { ...rawDef['watchRun']!, responseDeserialize: (b: Buffer) => b };
    const RawClient = grpc.makeGenericClientConstructor(rawDef, 'Learner') as unknown as typeof LearnerClient;
    await Promise.all(
      Array.from({ length: clients }, (_, k) => {
        // One channel per client, as separate consoles would have.
        const Ctor = k === 0 ? LearnerClient : RawClient;
        const c = new Ctor(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': 64 << 20, [`owrl.bench.client`]: k });
        conns.push(c);
        const s = c.watchRun(make(WatchRunRequestSchema, {}), new grpc.Metadata(), {});
        streams.push(s);
        return new Promise<void>((resolve, reject) => {
          let first = true;
          s.on('data', (ev: RunEvent | Buffer) => {
            if (first) {
              first = false;
              resolve();
            }
            if (!measuring) return;
            perClient[k]!++;
            events++;
            if (Buffer.isBuffer(ev)) {
              bytes += ev.length;
              return;
            }
            bytes += toBinary(RunEventSchema, ev).length;
            const now = Date.now();
            delays.push(now - Number(ev.state?.updatedAtMs ?? BigInt(now)));
          });
          s.on('error', (e: grpc.ServiceError) => {
            if (e.code !== grpc.status.CANCELLED) reject(e);
          });
        });
      }),
    );
    measuring = true;
    child.stdin.write('go\n');
    const server = await next();
    measuring = false;
    for (const s of streams) s.cancel();
    for (const c of conns) c.close();
    return {
      bench: 'watch',
      clients,
      actors,
      changes_per_s: rate,
      seconds,
      changes: server['changes'],
      events_sent: server['sent'],
      coalesced: server['coalesced'],
      events_received: events,
      event_kib: Math.round(bytes / Math.max(1, events) / 1024),
      client_mib_per_s: Number((bytes / 2 ** 20 / seconds).toFixed(1)),
      events_per_client_per_s: Number((events / clients / seconds).toFixed(2)),
      min_client_events: Math.min(...perClient),
      delay_p50_ms: pct(delays, 50),
      delay_p99_ms: pct(delays, 99),
      server_rss_mib: Math.round(server['rss_mib'] ?? 0),
      server_cpu_pct: Number((server['cpu_pct'] ?? 0).toFixed(1)),
    };
  } finally {
    child.kill();
  }
}
