// Plan builders and page readers the scripted solvers share: targets by role and accessible name,
// a task's metadata, and texts read from the observation (answers are read from the page, never
// from the site's data).
import type { PlanCall, PolicyInput } from '@owrl/browser-env';
import type { Task } from '@owrl/proto';

export function meta(task: Task, key: string): string {
  const v = task.metadata[key];
  if (v === undefined) throw new Error(`${task.id}: metadata.${key} is missing`);
  return v;
}

/**
 * Group 1 (or the match) of the first observed text matching `re` whose container includes `near`
 * (a string) or satisfies it (a predicate of the container text).
 */
export function readText(input: PolicyInput, re: RegExp, near?: string | ((context: string) => boolean)): string {
  const inside = near === undefined ? () => true : typeof near === 'string' ? (c: string) => c.includes(near) : near;
  const t = input.observation.texts.find((x) => re.test(x.text) && inside(x.context));
  if (t === undefined) {
    const where = typeof near === 'string' ? ` near ${JSON.stringify(near)}` : '';
    throw new Error(`no text like ${String(re)}${where} on ${input.observation.url}: ${input.observation.texts.map((x) => x.text).join(' | ')}`);
  }
  const m = re.exec(t.text);
  return m?.[1] ?? m?.[0] ?? t.text;
}

export const link = (name: string | RegExp): PlanCall => ({ click: { role: 'link', name } });
export const button = (name: string, context?: string): PlanCall => ({ click: { role: 'button', name, ...(context !== undefined ? { context } : {}) } });
export const radio = (name: string): PlanCall => ({ click: { role: 'radio', name } });
export const checkbox = (name: string): PlanCall => ({ click: { role: 'checkbox', name } });
export const write = (text: string, name: string, role: string | string[] = 'textbox'): PlanCall => ({ write: text, into: { role, name } });
export const finish: PlanCall = { done: 'ok' };
