// Commands on a running learner over gRPC: `owrl watch` (live view over WatchRun, resuming from
// the last resource version when the stream drops), `owrl pause` / `owrl resume` (control token),
// `owrl groups ROUND`, `owrl trajectory ID`; each with --json for scripts.
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { RunPhase, ScoredTrajectorySchema, terminationClassName, toJson, type RunEvent, type RunState } from '@owrl/proto';
import { formatState, phaseName } from './format.js';
import { LearnerClient } from '@owrl/learner-client';
import { UsageError } from './usage.js';

export const RUN_COMMANDS = ['watch', 'pause', 'resume', 'groups', 'trajectory'] as const;

export interface RunCommandIo {
  out: (line: string) => void;
  /** The learner address when --learner is not given. */
  defaultLearner: () => string;
  env?: Record<string, string | undefined>;
  /** True when out is an interactive terminal (watch redraws the screen). */
  tty?: boolean;
}

/** JSON of a protobuf-es message with bigints as numbers. */
export function jsonLine(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x instanceof Uint8Array ? Buffer.from(x).toString('base64') : x));
}

const done = (s: RunState | undefined) => s !== undefined && (s.phase === RunPhase.FINISHED || s.phase === RunPhase.FAILED);

function describe(e: unknown, addr: string): Error {
  const g = e as grpc.ServiceError;
  if (g && typeof g.code === 'number') {
    const what = g.code === grpc.status.UNAVAILABLE ? `no learner reachable at ${addr}` : g.details || g.message;
    return new Error(`${what} (gRPC ${grpc.status[g.code] ?? g.code})`, { cause: e });
  }
  return e instanceof Error ? e : new Error(String(e));
}

export async function runRunCommand(cmd: (typeof RUN_COMMANDS)[number], args: string[], io: RunCommandIo): Promise<number> {
  const env = io.env ?? process.env;
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      learner: { type: 'string' },
      json: { type: 'boolean' },
      token: { type: 'string' },
      reason: { type: 'string' },
      since: { type: 'string' },
      count: { type: 'string' },
      reconnect: { type: 'string' },
    },
  });
  const addr = values.learner ?? env['OWRL_LEARNER'] ?? io.defaultLearner();
  const client = new LearnerClient(addr);
  try {
    switch (cmd) {
      case 'watch':
        return await watch(client, values, io);
      case 'pause':
      case 'resume': {
        const token = values.token ?? env['OWRL_CONTROL_TOKEN'] ?? '';
        if (!token) throw new UsageError(`owrl ${cmd} needs the learner's control token: --token T or OWRL_CONTROL_TOKEN`);
        const s = cmd === 'pause' ? await client.pauseRun(values.reason ?? '', token) : await client.resumeRun(token);
        io.out(values.json ? jsonLine(s) : `run ${s.runId}: phase ${phaseName(s.phase)}${s.message ? ` (${s.message})` : ''}, round ${s.round}/${s.roundsTotal}`);
        return 0;
      }
      case 'groups': {
        const raw = positionals[0];
        const round = Number(raw);
        if (raw === undefined || !Number.isInteger(round) || round < 0) throw new UsageError(`usage: owrl groups ROUND [--json] (ROUND: a round number >= 0, got ${JSON.stringify(raw ?? '')})`);
        const r = await client.listGroups(round);
        if (values.json) {
          io.out(jsonLine(r.groups));
          return 0;
        }
        if (r.groups.length === 0) {
          io.out(`round ${round}: no groups held by the learner (not started yet, or an old round)`);
          return 0;
        }
        io.out(`round ${round}: ${r.groups.length} groups`);
        for (const g of r.groups) {
          const rewards = g.rewards.map((x) => x.toFixed(2)).join(' ');
          const adv = g.advantages.length ? `  advantages ${g.advantages.map((x) => x.toFixed(2)).join(' ')}` : '';
          io.out(`  group ${String(g.group).padStart(3)}  ${g.fate.padEnd(16)}  task ${g.taskId} (d${g.difficulty})  rewards ${rewards || '-'}${adv}`);
          for (const id of g.trajectoryIds) io.out(`      ${id}`);
        }
        return 0;
      }
      case 'trajectory': {
        const id = positionals[0];
        if (!id) throw new UsageError('usage: owrl trajectory ID [--json]');
        const t = await client.getTrajectory(id);
        if (values.json) {
          io.out(JSON.stringify(toJson(ScoredTrajectorySchema, t)));
          return 0;
        }
        const tr = t.trajectory;
        io.out(`trajectory ${t.trajectoryId}`);
        io.out(`  task ${tr?.request?.task?.id ?? '?'}: ${tr?.request?.task?.instruction ?? ''}`);
        io.out(`  actor ${tr?.actorId ?? '?'}  policy v${tr?.policyVersion ?? 0n}  steps ${tr?.steps.length ?? 0}`);
        io.out(`  termination ${terminationClassName(tr?.termination?.class)}${tr?.termination?.reason ? ` (${tr.termination.reason})` : ''}`);
        io.out(`  reward ${t.verdict?.reward ?? 0}${t.trainable ? '' : `  excluded: ${t.excludedReason}`}${t.verdict?.detail ? `  (${t.verdict.detail})` : ''}`);
        for (const st of tr?.steps ?? []) {
          io.out(`  step ${st.index}  ${st.urlBefore}`);
          if (st.reasoning) io.out(`    reasoning: ${st.reasoning.replace(/\s+/g, ' ').slice(0, 200)}`);
          for (const r of st.results) {
            const eff = r.effects.map((e) => e.line).join('; ');
            io.out(`    ${r.call?.name ?? '?'}(${r.call?.argsJson ?? ''}) ${r.ok ? 'ok' : `failed ${r.errorCode}`}${eff ? ` -> ${eff}` : ''}`);
          }
        }
        if (tr?.finalAnswer) io.out(`  answer: ${tr.finalAnswer}`);
        return 0;
      }
    }
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw describe(e, addr);
  } finally {
    client.close();
  }
}

/**
 * Prints the run as it changes until it finishes (or --count events). With --json one RunEvent per
 * line; otherwise the state, redrawn on a terminal. A dropped stream is reopened from the last
 * resource version seen (--reconnect attempts, default 10).
 */
async function watch(client: LearnerClient, values: { json?: boolean; since?: string; count?: string; reconnect?: string }, io: RunCommandIo): Promise<number> {
  const num = (name: string, v: string | undefined, def: number) => {
    if (v === undefined) return def;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be an integer >= 0, got ${JSON.stringify(v)}`);
    return n;
  };
  const count = num('count', values.count, 0);
  let attempts = num('reconnect', values.reconnect, 10);
  let since = BigInt(num('since', values.since, 0));
  let seen = 0;
  let last: RunState | undefined;
  const show = (e: RunEvent) => {
    if (values.json) io.out(jsonLine({ resourceVersion: e.resourceVersion, kind: e.kind, state: e.state }));
    else if (e.state) io.out((io.tty ? '\x1b[2J\x1b[H' : `--- v${e.resourceVersion} ${e.kind}\n`) + formatState(e.state));
  };
  for (;;) {
    const w = client.watchRun(since);
    try {
      for (;;) {
        const e = await w.next();
        if (!e) break;
        since = e.resourceVersion;
        last = e.state;
        show(e);
        seen++;
        if ((count > 0 && seen >= count) || done(last)) return 0;
      }
    } catch (e) {
      if (attempts-- <= 0) throw e;
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      w.close();
    }
    if (done(last)) return 0;
  }
}
