// The reading-list spec of the wiki's tasks: what its `/__owrl/verify/wiki` endpoint checks
// (SiteStateCheck spec_json `{"saved":["Velm",...],"exact":true}`). Pure logic.
import { TaskError, TaskErrorCode } from '../errors.js';
import type { VerifyResult } from '../verify-result.js';

/** Articles (slugs) the session's reading list must hold; `exact` forbids any other. */
export interface ReadingListSpec {
  saved: readonly string[];
  exact: boolean;
}

export function readingListSpecJson(spec: ReadingListSpec): string {
  return JSON.stringify({ saved: spec.saved, exact: spec.exact });
}

function bad(message: string): TaskError {
  return new TaskError(TaskErrorCode.BadSpec, message, { field: 'spec_json' });
}

/**
 * Parses `spec_json` of the wiki's site-state check.
 * @throws TaskError TASK_BAD_SPEC naming what is wrong (not JSON, not an object, `saved` not a list
 *   of non-empty strings or holding one twice, `exact` not a boolean).
 */
export function parseReadingListSpec(json: string): ReadingListSpec {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (cause) {
    throw new TaskError(TaskErrorCode.BadSpec, `spec ${JSON.stringify(json)} is not JSON`, { cause, field: 'spec_json' });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw bad('spec must be a JSON object like {"saved":["<article>"],"exact":true}');
  }
  const obj = raw as Record<string, unknown>;
  const saved = obj['saved'];
  if (!Array.isArray(saved)) throw bad(`spec.saved = ${JSON.stringify(saved)} must be a list of article names`);
  const seen = new Set<string>();
  saved.forEach((s: unknown, i) => {
    if (typeof s !== 'string' || s.trim() === '') throw bad(`spec.saved[${i}] = ${JSON.stringify(s)} must be a non-empty string`);
    if (seen.has(s)) throw bad(`spec.saved[${i}] = ${JSON.stringify(s)} is listed twice`);
    seen.add(s);
  });
  const exact = obj['exact'] ?? false;
  if (typeof exact !== 'boolean') throw bad(`spec.exact = ${JSON.stringify(exact)} must be a boolean`);
  return { saved: saved as string[], exact };
}

/**
 * Checks a session's reading list (slugs, in the order saved) against a spec: every listed article
 * is saved; with `exact`, nothing else is.
 */
export function checkReadingList(saved: readonly string[], spec: ReadingListSpec): VerifyResult {
  const have = new Set(saved);
  const missing = spec.saved.filter((s) => !have.has(s));
  const want = new Set(spec.saved);
  const extra = spec.exact ? saved.filter((s) => !want.has(s)) : [];
  if (missing.length > 0 || extra.length > 0) {
    const parts = [
      ...(missing.length > 0 ? [`missing ${missing.join(', ')}`] : []),
      ...(extra.length > 0 ? [`not asked for ${extra.join(', ')}`] : []),
    ];
    return { ok: false, detail: `reading list differs: ${parts.join('; ')} (saved: ${saved.length > 0 ? saved.join(', ') : 'nothing'})` };
  }
  return { ok: true, detail: `reading list matches: ${saved.length > 0 ? saved.join(', ') : '(empty)'}` };
}
