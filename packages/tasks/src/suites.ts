// The registry of bundled task suites. Every bundled site has one suite with a seeded generator;
// the sites' `/__owrl/tasks` endpoint, the learner and `owrl tasks sample` all go through here, so a
// new site becomes usable everywhere by adding its suite to SUITES.
import type { Task } from '@owrl/proto';
import { TaskError, TaskErrorCode } from './errors.js';
import type { SuiteDef, SuiteGenerateOptions } from './suite-options.js';
import { generateShopTasks, SHOP_FAMILIES, SHOP_SITE, SHOP_SUITE, shopCheckKind, type ShopFamilyName } from './shop/shop-tasks.js';
import { generateTravelTasks, TRAVEL_FAMILIES, TRAVEL_SITE, TRAVEL_SUITE } from './travel/index.js';
import { MAIL_SUITE_DEF } from './mail/mail-tasks.js';
import { WIKI_SUITE_DEF } from './wiki/wiki-tasks.js';

export const SHOP_SUITE_DEF: SuiteDef = {
  name: SHOP_SUITE,
  site: SHOP_SITE,
  families: SHOP_FAMILIES.map((f) => ({ name: f.name, difficulty: f.difficulty, check: shopCheckKind(f) })),
  generate: (o) => generateShopTasks({ ...o, families: o.families as readonly ShopFamilyName[] | undefined, catalogSeed: o.dataSeed }),
};

/** Every bundled suite. Add a site's suite here to serve it. */
export const SUITES: readonly SuiteDef[] = [
  SHOP_SUITE_DEF,
  { name: TRAVEL_SUITE, site: TRAVEL_SITE, families: TRAVEL_FAMILIES.map(({ name, difficulty, check }) => ({ name, difficulty, check })), generate: generateTravelTasks },
  MAIL_SUITE_DEF,
  WIKI_SUITE_DEF,
];

/** Names of the bundled suites. */
export function suiteNames(): string[] {
  return SUITES.map((s) => s.name);
}

/**
 * The suite called `name`.
 * @throws TaskError TASK_BAD_ARGUMENT naming the known suites when there is none of that name.
 */
export function getSuite(name: string): SuiteDef {
  const s = SUITES.find((x) => x.name === name);
  if (s === undefined) {
    throw new TaskError(TaskErrorCode.BadArgument, `unknown suite ${JSON.stringify(name)} (suites: ${suiteNames().join(', ')})`, { field: 'suite' });
  }
  return s;
}

/** Tasks of suite `name` (see SuiteDef.generate). */
export function generateSuiteTasks(name: string, opts: SuiteGenerateOptions): Task[] {
  return getSuite(name).generate(opts);
}
