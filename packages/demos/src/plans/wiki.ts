// Scripted solutions of every wiki family: one PlanPolicy step per step of the family's route,
// navigating by the task's metadata and reading every answer from the observed page.
import type { PlanCall, PlanStep, PolicyInput } from '@owrl/browser-env';
import type { Task } from '@owrl/proto';
import { button, finish, link, meta, readText, write } from './common.js';

/** The value of the infobox row "<label>: <value>" in the observation. */
export function readFact(input: PolicyInput, label: string): string {
  return readText(input, new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\s*(\\S.*)$`));
}

const numberOf = (v: string): number => Number.parseFloat(v.replace(/,/g, ''));
export const titleOf = (slug: string): string => slug.replace(/_/g, ' ');
const search = (title: string): PlanCall[] => [write(title, 'Search Lorewell', 'searchbox'), { press: ['Enter'] }];
const scroll: PlanCall = { scroll: 'down', amount: 0.5 };
export const hasPopup = (input: PolicyInput): boolean => input.observation.elements.some((e) => e.role === 'button' && e.name === 'No thanks');

/** The year cell of the timeline row of `event`. */
export function timelineYear(input: PolicyInput, event: string): { text: string; inViewport: boolean } {
  const t = input.observation.texts.find((x) => /^\d{4}$/.test(x.text) && x.context.includes(event));
  if (t === undefined) throw new Error(`no timeline row "${event}" on ${input.observation.url}`);
  return t;
}

/**
 * The list families: open the list from the main page, sort by the column (twice: descending),
 * then open each candidate row in turn, dismissing the popup when it shows, reading the infobox
 * metric, saving qualifying articles (reading lists), and going back to the list in between.
 */
function listPlan(task: Task): PlanStep[] {
  const candidates = meta(task, 'candidates').split(',').map(titleOf);
  const label = meta(task, 'column_label');
  const metricLabel = meta(task, 'metric_label');
  const saving = task.family !== 'compare_top';
  const dir = meta(task, 'direction');
  const qualifies = (v: number): boolean => (dir === 'gt' ? v > Number(meta(task, 'metric_threshold')) : v < Number(meta(task, 'metric_threshold')));
  const script: PlanCall[] = [link(meta(task, 'list_title')), link(label), link(label)];
  const values: number[] = [];
  let i = 0;
  let opened = false;
  let saved = false;
  const step: PlanStep = (input) => {
    const scripted = script.shift();
    if (scripted !== undefined) return scripted;
    if (!opened) {
      opened = true;
      saved = false;
      return link(candidates[i] ?? '');
    }
    if (hasPopup(input)) return button('No thanks');
    if (values.length === i) values.push(numberOf(readFact(input, metricLabel)));
    if (saving && !saved && qualifies(values[i] ?? NaN)) {
      saved = true;
      return button('Save to reading list');
    }
    if (i < candidates.length - 1) {
      i++;
      opened = false;
      return { back: true };
    }
    if (saving) return finish;
    const best = dir === 'max' ? Math.max(...values) : Math.min(...values);
    return { done: candidates[values.indexOf(best)] ?? '' };
  };
  return Array.from({ length: task.difficulty }, () => step);
}

/** The scripted route of a task's family. */
export function wikiPlan(task: Task): PlanStep[] {
  const title = task.metadata['title'] ?? '';
  const label = task.metadata['label'] ?? '';
  const read: PlanStep = (i) => ({ done: readFact(i, label) });
  switch (task.family) {
    case 'infobox_fact':
      return [read];
    case 'search_fact':
      return [search(title), read];
    case 'linked_fact':
      return [link(title), button('No thanks'), read];
    case 'save_article':
      return [link(title), button('Save to reading list'), finish];
    case 'sort_table':
      return [link(label), link(label), finish];
    case 'toc_section':
      return [link(title), link(meta(task, 'heading')), finish];
    case 'deep_fact':
      return [search(title), link(meta(task, 'heading')), scroll, scroll, (i) => ({ done: timelineYear(i, meta(task, 'event')).text })];
    case 'save_two':
      return [search(title), button('Save to reading list'), search(meta(task, 'title_2')), button('No thanks'), button('Save to reading list'), finish];
    case 'compare_top':
    case 'reading_list':
    case 'reading_list_large':
      return listPlan(task);
    default:
      throw new Error(`no plan for family ${task.family}`);
  }
}
