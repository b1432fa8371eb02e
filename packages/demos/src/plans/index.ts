// Scripted solvers of the bundled sites: one plan per task family (PlanPolicy steps against the
// pages' roles and accessible names), chosen by the task's suite.
import type { PlanStep } from '@owrl/browser-env';
import type { Task } from '@owrl/proto';
import { mailPlan } from './mail.js';
import { shopPlan } from './shop.js';
import { travelPlan } from './travel.js';
import { wikiPlan } from './wiki.js';

export {
  button,
  checkbox,
  finish,
  link,
  meta,
  radio,
  readText,
  write,
} from './common.js';
export {
  mailPlan,
} from './mail.js';
export {
  shopPlan,
} from './shop.js';
export {
  travelPlan,
} from './travel.js';
export {
  hasPopup,
  readFact,
  timelineYear,
  titleOf,
  wikiPlan,
} from './wiki.js';

/** Suites that have a scripted solver for every family. */
export const SOLVER_SUITES: readonly string[] = ['shop', 'travel', 'wiki', 'mail'];

/**
 * The scripted route of `task` (one plan step per step of its family's route).
 * @throws Error when the task's suite or family has no solver.
 */
export function planFor(task: Task): PlanStep[] {
  switch (task.suite) {
    case 'shop':
      return shopPlan(task);
    case 'travel':
      return travelPlan(task);
    case 'wiki':
      return wikiPlan(task);
    case 'mail':
      return mailPlan(task);
    default:
      throw new Error(`${task.id}: no scripted solver for suite ${JSON.stringify(task.suite)} (have: ${SOLVER_SUITES.join(', ')})`);
  }
}
