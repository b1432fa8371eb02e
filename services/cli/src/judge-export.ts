// `owrl judge export`: reads the scored trajectories of a run (or all runs) from OWRL_SCORED with an
// ordered consumer and writes one judge record per line (judge-records.ts), up to what the stream
// held when the export started.
import fs from 'node:fs';
import { connectBus, STREAM_SCORED, SUBJECT_SCORED, scoredSubject, type NatsSettings } from '@owrl/bus';
import { decode, ScoredTrajectorySchema } from '@owrl/proto';
import { recordFromScored, type JudgeRecord } from './judge-records.js';

export interface ExportOptions {
  nats: NatsSettings;
  /** Only this run's scored trajectories; all runs when empty. */
  runId: string;
  /** Output file; stdout when empty. */
  out: string;
  /** Keep only records with a label (programmatic verdicts). */
  labelledOnly: boolean;
  /** Keep excluded (not trainable) trajectories too. */
  includeExcluded: boolean;
}

export interface ExportSummary {
  read: number;
  written: number;
  labelled: number;
  undecodable: number;
}

/** Exports and returns counts. @throws BusError when NATS or the stream cannot be reached. */
export async function exportJudgeRecords(o: ExportOptions, write: (line: string) => void = (l) => process.stdout.write(l)): Promise<ExportSummary> {
  const bus = await connectBus({ servers: o.nats.servers, auth: o.nats.auth, name: 'owrl-judge-export', timeoutMs: 5000 });
  const file = o.out === '' ? undefined : fs.openSync(o.out, 'w');
  const emit = (rec: JudgeRecord): void => {
    const line = JSON.stringify(rec) + '\n';
    if (file !== undefined) fs.writeSync(file, line);
    else write(line);
  };
  const summary: ExportSummary = { read: 0, written: 0, labelled: 0, undecodable: 0 };
  try {
    const filter = o.runId === '' ? `${SUBJECT_SCORED}.>` : scoredSubject(o.runId);
    const consumer = await bus.js.consumers.get(STREAM_SCORED, { filter_subjects: filter });
    let pending = (await consumer.info()).num_pending;
    while (pending > 0) {
      const batch = await consumer.fetch({ max_messages: Math.min(256, pending), expires: 5000 });
      let got = 0;
      for await (const m of batch) {
        got++;
        summary.read++;
        pending = m.info.pending;
        let rec: JudgeRecord;
        try {
          rec = recordFromScored(decode(ScoredTrajectorySchema, m.data));
        } catch {
          summary.undecodable++;
          continue;
        }
        if (!o.includeExcluded && rec.excluded_reason !== '') continue;
        if (o.labelledOnly && rec.label === null) continue;
        if (rec.label !== null) summary.labelled++;
        emit(rec);
        summary.written++;
      }
      if (got === 0) break; // the stream shrank under us (limits): nothing more to read
    }
  } finally {
    if (file !== undefined) fs.closeSync(file);
    await bus.close();
  }
  return summary;
}
