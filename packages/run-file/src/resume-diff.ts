// What changed between the run file a run started with and the one it is resumed with, split into
// the changes the run cannot absorb (its checkpoint, groups or weights assume the old value) and
// those it takes (fleet size, log level, rounds, …).
import type { RunFile } from './schema.js';
import { schemaKeys } from './service-env.js';

/** Keys a resumed run cannot change, with the value a file that leaves them out means. */
export const FIXED_ON_RESUME: ReadonlyArray<{ key: string; unset: unknown; why: string }> = [
  { key: 'state.run_id', unset: undefined, why: 'it names the run being resumed' },
  { key: 'recipe.group_size', unset: 5, why: 'checkpointed groups and their advantages have the old size' },
  { key: 'policy.kind', unset: 'pointer', why: "the checkpointed versions are the old kind's" },
  { key: 'policy.model', unset: undefined, why: 'the trained versions are adapters of the old base model' },
  { key: 'trainer.kind', unset: 'inprocess', why: "the checkpointed policy versions live with the old trainer" },
];

export interface RunFileChange {
  key: string;
  before: unknown;
  after: unknown;
  why?: string;
}

function get(o: unknown, key: string): unknown {
  let v = o;
  for (const k of key.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

/** Changes from `before` to `after`, refused (FIXED_ON_RESUME) and taken. */
export function resumeChanges(before: RunFile, after: RunFile): { refused: RunFileChange[]; taken: RunFileChange[] } {
  const refused: RunFileChange[] = [];
  const taken: RunFileChange[] = [];
  for (const k of schemaKeys()) {
    if (k.group) continue;
    const key = k.path.join('.');
    const fixed = FIXED_ON_RESUME.find((f) => f.key === key);
    const b = get(before, key) ?? fixed?.unset;
    const a = get(after, key) ?? fixed?.unset;
    if (JSON.stringify(b) === JSON.stringify(a)) continue;
    if (fixed) refused.push({ key, before: b, after: a, why: fixed.why });
    else taken.push({ key, before: b, after: a });
  }
  return { refused, taken };
}
