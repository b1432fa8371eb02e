// SFT records from runs: the successful, trainable scored trajectories in OWRL_SCORED (read with an
// ordered consumer up to what the stream held when the export started), one per task (the first
// read). A trajectory keeps each step's URL, reasoning, calls, effects and the policy's own reply,
// but not the element list it saw, so the rebuilt prompt shows the page by its URL; the assistant
// turn is the policy's reply as it produced it (or rebuilt from reasoning and calls).
import { connectBus, STREAM_SCORED, SUBJECT_SCORED, scoredSubject, type NatsSettings } from '@owrl/bus';
import type { HistoryEntry, Observation, ToolCallSpec } from '@owrl/core';
import type { DemoStep } from '@owrl/demos';
import { sftRecords } from '@owrl/demos';
import { decode, ScoredTrajectorySchema, VerdictSource, type ScoredTrajectory, type Step } from '@owrl/proto';
import { keepTask, type ExportSummary, type SftFilters, type SftWriter } from './sft-writer.js';

export interface RunExportOptions {
  nats: NatsSettings;
  /** One run; all runs when empty. */
  runId: string;
  filters: SftFilters;
  screenshots: number;
}

function callsOf(step: Step): ToolCallSpec[] {
  return step.results.map((r) => {
    let args: Record<string, unknown> = {};
    try {
      args = JSON.parse(r.call?.argsJson || '{}') as Record<string, unknown>;
    } catch {
      args = { unparsed: r.call?.argsJson ?? '' };
    }
    return { name: r.call?.name ?? '', args } as ToolCallSpec;
  });
}

/** The decisions of a scored trajectory as demonstration steps (page shown by URL only). */
export function stepsOfScored(s: ScoredTrajectory): DemoStep[] {
  const t = s.trajectory;
  if (!t) return [];
  const task = t.request?.task;
  const history: HistoryEntry[] = [];
  const out: DemoStep[] = [];
  const maxSteps = Math.max(t.request?.maxSteps ?? 0, t.steps.length);
  t.steps.forEach((st, i) => {
    const prev = t.steps[i - 1];
    const observation: Observation = {
      url: st.urlBefore,
      title: '',
      tabs: [],
      elements: [],
      texts: [],
      scrollY: 0,
      scrollMaxY: 0,
      viewport: { width: 1280, height: 720 },
      lastEffects: prev ? prev.results.flatMap((r) => r.effects.map((e) => e.line)) : [],
      screenshots: [],
    };
    const calls = callsOf(st);
    out.push({ input: { instruction: task?.instruction ?? '', observation, history: [...history], step: i, maxSteps }, reasoning: st.reasoning, calls, ...(st.rawOutput ? { raw: st.rawOutput } : {}) });
    history.push({ step: i, reasoning: st.reasoning, calls, effects: st.results.flatMap((r) => r.effects.map((e) => e.line)), url: st.urlBefore, ...(st.rawOutput ? { raw: st.rawOutput } : {}) });
  });
  return out;
}

function verdictSourceName(v: VerdictSource): string {
  return v === VerdictSource.VERIFIER ? 'verifier' : v === VerdictSource.MODEL ? 'model' : VerdictSource[v]?.toLowerCase() ?? String(v);
}

export async function exportRunRecords(o: RunExportOptions, w: SftWriter): Promise<ExportSummary> {
  const bus = await connectBus({ servers: o.nats.servers, auth: o.nats.auth, name: 'owrl-sft-export', timeoutMs: 5000 });
  const summary: ExportSummary = { tasks: 0, trajectories: 0, records: 0, failed: [] };
  const seen = new Set<string>();
  const render = w.renderOptions(o.screenshots);
  try {
    const filter = o.runId === '' ? `${SUBJECT_SCORED}.>` : scoredSubject(o.runId);
    const consumer = await bus.js.consumers.get(STREAM_SCORED, { filter_subjects: filter });
    let pending = (await consumer.info()).num_pending;
    while (pending > 0) {
      const batch = await consumer.fetch({ max_messages: Math.min(256, pending), expires: 5000 });
      let got = 0;
      for await (const m of batch) {
        got++;
        pending = m.info.pending;
        let s: ScoredTrajectory;
        try {
          s = decode(ScoredTrajectorySchema, m.data);
        } catch (e) {
          summary.failed.push(`message ${m.seq}: undecodable (${(e as Error).message})`);
          continue;
        }
        const task = s.trajectory?.request?.task;
        if (!task || !s.trainable || !s.verdict?.success || s.trajectory?.calledDone !== true) continue;
        const source = verdictSourceName(s.verdict.source);
        if (o.filters.verdictSource !== 'any' && source !== o.filters.verdictSource) continue;
        if (!keepTask(task, o.filters)) continue;
        if (!seen.has(task.id)) summary.tasks++;
        if (seen.has(task.id)) continue;
        seen.add(task.id);
        const recs = sftRecords(task, stepsOfScored(s), { source: `run:${s.trajectory?.request?.runId ?? ''}`, verdictSource: source }, { ...render, images: 'none' });
        w.write(recs);
        summary.trajectories++;
        summary.records += recs.length;
      }
      if (got === 0) break;
    }
  } finally {
    await bus.close();
  }
  return summary;
}
