// The run file as a run started, kept in its folder (`<data_dir>/<run_id>/run.yaml`): what every
// service of the run reads (OWRL_RUN_FILE; inputs as absolute paths, the run id filled in), and
// what `--resume` compares a changed run file against. A change the run cannot absorb is refused
// naming the key; the others are taken and listed.
import fs from 'node:fs';
import path from 'node:path';
import { formatProblem, readRunFile, resolveRunPath, resumeChanges, type LoadedRunFile, type RunFile } from '@owrl/run-file';
import { TrainRefused } from './train-refused.js';

export const STARTED_FILE = 'run.yaml';

/** Paths of inputs the file names, resolved against its folder. */
function absolutePaths(l: LoadedRunFile): Array<{ path: (string | number)[]; value: string | string[] }> {
  const r = l.run;
  const out: Array<{ path: (string | number)[]; value: string | string[] }> = [];
  if (r.tasks.files) out.push({ path: ['tasks', 'files'], value: r.tasks.files.map((f) => resolveRunPath(l, f)) });
  if (r.judge?.model_dir) out.push({ path: ['judge', 'model_dir'], value: resolveRunPath(l, r.judge.model_dir) });
  if (r.nats?.creds_file) out.push({ path: ['nats', 'creds_file'], value: resolveRunPath(l, r.nats.creds_file) });
  if (r.nats?.nkey_seed_file) out.push({ path: ['nats', 'nkey_seed_file'], value: resolveRunPath(l, r.nats.nkey_seed_file) });
  return out;
}

/** The file's contents with its input paths absolute and its data dir resolved (for comparing two files). */
function normalized(l: LoadedRunFile): RunFile {
  const r = structuredClone(l.run);
  for (const p of absolutePaths(l)) {
    let o = r as unknown as Record<string | number, unknown>;
    for (const k of p.path.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
    o[p.path[p.path.length - 1] as string] = p.value;
  }
  if (r.state?.data_dir) r.state.data_dir = path.resolve(r.state.data_dir);
  return r;
}

const show = (v: unknown): string => (v === undefined ? '(unset)' : JSON.stringify(v));

/**
 * Checks that a new run may start in `runDir`, or that `--resume` may take the run up there.
 * @returns lines to print (the changes a resume takes).
 * @throws TrainRefused naming what stands in the way (exit 2).
 */
export function prepareResume(loaded: LoadedRunFile, runDir: string, o: { resume: boolean; runIdGiven: boolean }): { lines: string[] } {
  const started = path.join(runDir, STARTED_FILE);
  const exists = fs.existsSync(started);
  if (!o.resume) {
    if (exists) throw new TrainRefused(`${started} exists: this run has started before; take it up with --resume, or give another state.run_id (--run-id)`);
    return { lines: [] };
  }
  if (!o.runIdGiven) throw new TrainRefused(formatProblem({ where: loaded.where(['state']), key: 'state.run_id', message: '--resume needs the id of the run to take up: set state.run_id (or --run-id)' }), { located: true });
  if (!exists) throw new TrainRefused(`nothing to resume: ${started} does not exist (no run of this id was started with this data_dir)`);
  const before = readRunFile(started);
  const { refused, taken } = resumeChanges(normalized(before), normalized(loaded));
  if (refused.length > 0) {
    throw new TrainRefused(
      refused
        .map((c) => formatProblem({ where: loaded.where(c.key.split('.')), key: c.key, message: `changed from ${show(c.before)} to ${show(c.after)}, which the run cannot take on resume (${c.why ?? ''}); keep it, or start a new run (another state.run_id)` }))
        .join('\n'),
      { located: true },
    );
  }
  return { lines: taken.length === 0 ? [`resuming ${path.basename(runDir)} from ${runDir}`] : [`resuming ${path.basename(runDir)} from ${runDir} with changes: ${taken.map((c) => `${c.key} ${show(c.before)} -> ${show(c.after)}`).join(', ')}`] };
}

/** Writes the file the run's services read; returns its path. */
export function writeStartedFile(loaded: LoadedRunFile, runDir: string, o: { runId: string; dataDir: string }): string {
  fs.mkdirSync(runDir, { recursive: true });
  const doc = loaded.doc.clone();
  doc.setIn(['state', 'run_id'], o.runId);
  doc.setIn(['state', 'data_dir'], o.dataDir);
  for (const p of absolutePaths(loaded)) doc.setIn(p.path, p.value);
  doc.commentBefore = ` The run file ${o.runId} started from (${loaded.file}), with the command line's values and absolute paths:\n what its services read (OWRL_RUN_FILE) and what --resume compares a changed file against.${doc.commentBefore ? `\n${doc.commentBefore}` : ''}`;
  const file = path.join(runDir, STARTED_FILE);
  fs.writeFileSync(file, String(doc));
  return file;
}
