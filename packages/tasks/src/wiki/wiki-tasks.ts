// Seeded task generator of the bundled wiki (suite `wiki`). Every task is determined by the data
// seed, its family and an index into the family's enumerated tasks (what its id
// `wiki/<family>/<nnnn>` encodes); the task seed only chooses which tasks are drawn and in what
// order. Families and routes are in wiki-families.ts.
import { DEFAULT_DATA_SEED, normalizeBaseUrl, selectFamilies, siteVerifyPath, type SuiteDef, type SuiteGenerateOptions } from '../suite-options.js';
import { mulberry32 } from '@owrl/core';
import { make, TaskSchema, VerifierSchema, type Task, type Verifier } from '@owrl/proto';
import { TaskError, TaskErrorCode } from '../errors.js';
import { shuffled } from '../shuffle.js';
import { buildWiki, formatNumber, wikiFact, wikiNumber, type WikiArticle, type WikiData, type WikiFactKey } from './wiki-data.js';
import {
  ANSWER_FACTS,
  COMPARE_TOP,
  CONDITION_PHRASE,
  factQuestion,
  INFOBOX_METRICS,
  KIND_CATEGORY,
  KIND_NOUN,
  LIST_METRICS,
  ONE_WORD_KINDS,
  OVER_PHRASE,
  READING_LIST_SIZES,
  SUPERLATIVE,
  TOP_PHRASE,
  WIKI_FAMILIES,
  type WikiFamily,
  type WikiFamilyName,
} from './wiki-families.js';
import { findColumn, listOfKind, sortedRows, type WikiList } from './wiki-lists.js';
import { TIMELINE_ROWS, timelineSectionHeading } from './wiki-text.js';
import { readingListSpecJson } from './wiki-verify.js';
import { WIKI_KINDS, type WikiKind } from './wiki-world.js';

export const WIKI_SUITE = 'wiki';
export const WIKI_SITE = 'wiki';
/** Path of the wiki's site-state verifier, relative to the site origin. */
export const WIKI_VERIFY_PATH = siteVerifyPath(WIKI_SITE);
/** Timeline rows deep_fact asks about (the last ones, farthest down the page). */
export const DEEP_FACT_ROWS = 3;

/** Options of the generator (dataSeed defaults to DEFAULT_DATA_SEED). */
export type GenerateWikiTasksOptions = SuiteGenerateOptions;

/** A task before it gets its origin and id. */
interface Draft {
  /** Start path under the origin, e.g. `/wiki/Velm`. */
  start: string;
  instruction: string;
  verifier: { answer: string[] } | { saved: string[] } | { expression: string };
  metadata: Record<string, string>;
}

const page = (slug: string): string => `/wiki/${slug}`;

/** Accepted answers of a fact: as displayed, and without its unit. */
function factAnswers(a: WikiArticle, key: WikiFactKey): string[] {
  const f = wikiFact(a, key);
  if (f === undefined) throw new Error(`article ${a.slug} has no fact ${key}`);
  const bare = f.unit ? f.display.slice(0, -(f.unit.length + 1)) : f.display;
  return bare === f.display ? [f.display] : [f.display, bare];
}

function factDraft(a: WikiArticle, key: WikiFactKey, start: string, instruction: string, extra: Record<string, string> = {}): Draft {
  const f = wikiFact(a, key);
  if (f === undefined) throw new Error(`article ${a.slug} has no fact ${key}`);
  const answers = factAnswers(a, key);
  return {
    start,
    instruction,
    verifier: { answer: answers },
    metadata: { ...extra, article: a.slug, title: a.title, fact: key, label: f.label, answer: answers[0] ?? '' },
  };
}

/** Links of an article's lead to one-word articles (cities, rivers, inventions), first occurrence order. */
function leadLinks(data: WikiData, a: WikiArticle): WikiArticle[] {
  const out: WikiArticle[] = [];
  for (const p of a.lead) {
    for (const s of p) {
      if (typeof s === 'string') continue;
      const t = data.bySlug.get(s.slug);
      if (t && t !== a && ONE_WORD_KINDS.includes(t.kind) && !out.includes(t)) out.push(t);
    }
  }
  return out;
}

const STEPS = [1e6, 5e5, 1e5, 5e4, 1e4, 5e3, 1e3, 500, 100, 50, 10, 5, 1];

/** The roundest X with lo ≤ X < hi (so "> X" keeps hi and drops lo); `scale` 10 for one decimal. */
function roundAtLeast(lo: number, hi: number, scale: number): number {
  const [l, h] = [Math.round(lo * scale), Math.round(hi * scale)];
  for (const s of STEPS) {
    const c = Math.ceil(l / s) * s;
    if (c < h) return c / scale;
  }
  return lo;
}

/** The roundest Y with lo < Y ≤ hi (so "< Y" keeps lo and drops hi). */
function roundAbove(lo: number, hi: number, scale: number): number {
  const [l, h] = [Math.round(lo * scale), Math.round(hi * scale)];
  for (const s of STEPS) {
    const c = Math.floor(h / s) * s;
    if (c > l) return c / scale;
  }
  return hi;
}

const DECIMAL_FACTS: ReadonlySet<WikiFactKey> = new Set(['weight']);
const YEAR_FACTS: ReadonlySet<WikiFactKey> = new Set(['founded', 'firstCharted', 'born', 'died', 'introduced']);

function formatThreshold(key: WikiFactKey, v: number): string {
  return YEAR_FACTS.has(key) ? String(v) : formatNumber(v, DECIMAL_FACTS.has(key) ? 1 : 0);
}

function phrase(table: Readonly<Partial<Record<WikiFactKey, string>>>, key: WikiFactKey): string {
  const p = table[key];
  if (p === undefined) throw new Error(`no phrase for ${key}`);
  return p;
}

/** One list/metric combination of the list families. */
interface ListCombo {
  kind: WikiKind;
  list: WikiList;
  column: WikiFactKey;
  metric: WikiFactKey;
  dir: 'gt' | 'lt';
}

function listCombos(): ListCombo[] {
  const out: ListCombo[] = [];
  for (const kind of WIKI_KINDS) {
    const list = listOfKind(kind);
    for (const column of LIST_METRICS[kind]) {
      for (const metric of INFOBOX_METRICS[kind]) {
        for (const dir of ['gt', 'lt'] as const) out.push({ kind, list, column, metric, dir });
      }
    }
  }
  return out;
}

function columnLabel(list: WikiList, key: WikiFactKey): string {
  const c = findColumn(list, key);
  if (c === undefined) throw new Error(`list ${list.slug} has no column ${key}`);
  return c.label;
}

function factLabel(a: WikiArticle, key: WikiFactKey): string {
  return wikiFact(a, key)?.label ?? key;
}

function compareDraft(data: WikiData, c: ListCombo): Draft {
  const top = sortedRows(data, c.list, c.column, 'desc').slice(0, COMPARE_TOP);
  const sign = c.dir === 'gt' ? 1 : -1;
  const winner = top.reduce((best, a) => (sign * (wikiNumber(a, c.metric) - wikiNumber(best, c.metric)) > 0 ? a : best));
  const sup = SUPERLATIVE[c.metric];
  if (sup === undefined) throw new Error(`no superlative for ${c.metric}`);
  return {
    start: page(''),
    instruction: `Among ${phrase(TOP_PHRASE, c.column)} in the "${c.list.title}", which one ${c.dir === 'gt' ? sup.max : sup.min}? Answer with its name.`,
    verifier: { answer: [winner.title] },
    metadata: {
      list: c.list.slug,
      list_title: c.list.title,
      column: c.column,
      column_label: columnLabel(c.list, c.column),
      metric: c.metric,
      metric_label: factLabel(top[0] as WikiArticle, c.metric),
      direction: c.dir === 'gt' ? 'max' : 'min',
      candidates: top.map((a) => a.slug).join(','),
      answer: winner.title,
    },
  };
}

function readingListDraft(data: WikiData, c: ListCombo, size: { candidates: number; qualifying: number }): Draft {
  const rows = sortedRows(data, c.list, c.column, 'desc');
  const cand = rows.slice(0, size.candidates);
  const scale = DECIMAL_FACTS.has(c.column) ? 10 : 1;
  const x = roundAtLeast(wikiNumber(rows[size.candidates] as WikiArticle, c.column), wikiNumber(cand[size.candidates - 1] as WikiArticle, c.column), scale);
  const byMetric = cand.slice().sort((a, b) => wikiNumber(a, c.metric) - wikiNumber(b, c.metric));
  const mScale = DECIMAL_FACTS.has(c.metric) ? 10 : 1;
  const q = size.qualifying;
  let y: number;
  let chosen: WikiArticle[];
  if (c.dir === 'lt') {
    y = roundAbove(wikiNumber(byMetric[q - 1] as WikiArticle, c.metric), wikiNumber(byMetric[q] as WikiArticle, c.metric), mScale);
    chosen = cand.filter((a) => wikiNumber(a, c.metric) < y);
  } else {
    const desc = byMetric.slice().reverse();
    y = roundAtLeast(wikiNumber(desc[q] as WikiArticle, c.metric), wikiNumber(desc[q - 1] as WikiArticle, c.metric), mScale);
    chosen = cand.filter((a) => wikiNumber(a, c.metric) > y);
  }
  const cond = CONDITION_PHRASE[c.metric];
  if (cond === undefined) throw new Error(`no condition phrase for ${c.metric}`);
  const over = phrase(OVER_PHRASE, c.column).replace('{x}', formatThreshold(c.column, x));
  const second = cond[c.dir].replace('{y}', formatThreshold(c.metric, y));
  return {
    start: page(''),
    instruction: `Save to your reading list every ${KIND_NOUN[c.kind]} in the "${c.list.title}" that ${over} and ${second}. Save nothing else.`,
    verifier: { saved: chosen.map((a) => a.slug) },
    metadata: {
      list: c.list.slug,
      list_title: c.list.title,
      column: c.column,
      column_label: columnLabel(c.list, c.column),
      threshold: String(x),
      metric: c.metric,
      metric_label: factLabel(cand[0] as WikiArticle, c.metric),
      direction: c.dir,
      metric_threshold: String(y),
      candidates: cand.map((a) => a.slug).join(','),
      saved: chosen.map((a) => a.slug).join(','),
    },
  };
}

function sortExpression(list: WikiList, key: WikiFactKey, first: string): string {
  return (
    `(() => { const t = document.getElementById('list-table'); if (!t || location.pathname !== ${JSON.stringify(page(list.slug))}) return false; ` +
    `const th = t.querySelector('thead th[aria-sort="descending"]'); const cell = t.querySelector('tbody tr > *'); ` +
    `return !!th && th.getAttribute('data-col') === ${JSON.stringify(key)} && !!cell && cell.textContent.trim() === ${JSON.stringify(first)}; })()`
  );
}

/** Every distinct task of a family, in a fixed order (the index of a task id). */
function familyDrafts(family: WikiFamilyName, data: WikiData): Draft[] {
  const arts = data.articles;
  switch (family) {
    case 'infobox_fact':
      return arts.flatMap((a) =>
        ANSWER_FACTS[a.kind].map((k) => factDraft(a, k, page(a.slug), factQuestion(k, factLabel(a, k), a.title))),
      );
    case 'search_fact':
      return arts
        .filter((a) => ONE_WORD_KINDS.includes(a.kind))
        .flatMap((a) => ANSWER_FACTS[a.kind].map((k) => factDraft(a, k, page(''), `Search for "${a.title}" and report its "${factLabel(a, k)}".`)));
    case 'linked_fact':
      return arts.flatMap((from) =>
        leadLinks(data, from).flatMap((to) =>
          ANSWER_FACTS[to.kind].map((k) =>
            factDraft(to, k, page(from.slug), `Follow the link to "${to.title}" and report its "${factLabel(to, k)}".`, { from: from.slug }),
          ),
        ),
      );
    case 'save_article':
      return arts.map((a) => ({
        start: page(KIND_CATEGORY[a.kind]),
        instruction: `Save "${a.title}" to your reading list.`,
        verifier: { saved: [a.slug] },
        metadata: { article: a.slug, title: a.title, category: KIND_CATEGORY[a.kind] },
      }));
    case 'sort_table':
      return WIKI_KINDS.flatMap((kind) => {
        const list = listOfKind(kind);
        return LIST_METRICS[kind].map((key) => {
          const label = columnLabel(list, key);
          const first = sortedRows(data, list, key, 'desc')[0]?.title ?? '';
          const order = YEAR_FACTS.has(key) ? 'latest first' : 'largest first';
          return {
            start: page(list.slug),
            instruction: `Sort the table by "${label}" in descending order (${order}).`,
            verifier: { expression: sortExpression(list, key, first) },
            metadata: { list: list.slug, column: key, label, first },
          };
        });
      });
    case 'toc_section':
      return arts.flatMap((a) =>
        a.sections.map((s) => ({
          start: page(KIND_CATEGORY[a.kind]),
          instruction: `Open "${a.title}" and go to its "${s.heading}" section.`,
          verifier: { expression: `location.pathname === ${JSON.stringify(page(a.slug))} && location.hash === ${JSON.stringify(`#${s.id}`)}` },
          metadata: { article: a.slug, title: a.title, section: s.id, heading: s.heading, category: KIND_CATEGORY[a.kind] },
        })),
      );
    case 'deep_fact':
      return arts.flatMap((a) =>
        a.timeline.slice(TIMELINE_ROWS - DEEP_FACT_ROWS).map((e) => {
          const heading = timelineSectionHeading(a.kind);
          return {
            start: page(''),
            instruction: `Search for "${a.title}". In the timeline at the end of its "${heading}" section, find the year in which ${e.ask}.`,
            verifier: { answer: [String(e.year)] },
            metadata: { article: a.slug, title: a.title, heading, event: e.text, answer: String(e.year) },
          };
        }),
      );
    case 'save_two':
      return arts.flatMap((a, i) =>
        [7, 23].map((k) => {
          const b = arts[(i + k) % arts.length] as WikiArticle;
          return {
            start: page(''),
            instruction: `Save both "${a.title}" and "${b.title}" to your reading list.`,
            verifier: { saved: [a.slug, b.slug] },
            metadata: { article: a.slug, title: a.title, article_2: b.slug, title_2: b.title },
          };
        }),
      );
    case 'compare_top':
      return listCombos().map((c) => compareDraft(data, c));
    case 'reading_list':
    case 'reading_list_large':
      return listCombos().map((c) => readingListDraft(data, c, READING_LIST_SIZES[family]));
  }
}

/** Families selected by the options, in {@link WIKI_FAMILIES} order. */
export function selectWikiFamilies(opts: Pick<GenerateWikiTasksOptions, 'difficulties' | 'families'>): WikiFamily[] {
  return selectFamilies('wiki', WIKI_FAMILIES, opts);
}

function toTask(family: WikiFamily, index: number, d: Draft, base: string, seed: number, dataSeed: number): Task {
  let verifier: Verifier;
  if ('answer' in d.verifier) {
    verifier = make(VerifierSchema, { kind: { case: 'answer', value: { accepted: d.verifier.answer, normalize: true, contains: false } } });
  } else if ('saved' in d.verifier) {
    const specJson = readingListSpecJson({ saved: d.verifier.saved, exact: true });
    verifier = make(VerifierSchema, { kind: { case: 'siteState', value: { endpoint: `${base}${WIKI_VERIFY_PATH}`, specJson } } });
  } else {
    verifier = make(VerifierSchema, { kind: { case: 'pageExpression', value: { expression: d.verifier.expression } } });
  }
  return make(TaskSchema, {
    id: `${WIKI_SUITE}/${family.name}/${String(index).padStart(4, '0')}`,
    suite: WIKI_SUITE,
    site: WIKI_SITE,
    startUrl: `${base}${d.start}`,
    instruction: d.instruction,
    difficulty: family.difficulty,
    family: family.name,
    verifier,
    metadata: { family: family.name, ...d.metadata, seed: String(seed), data_seed: String(dataSeed) },
  });
}

/**
 * Builds task `index` of a family (see the id scheme above).
 * @throws TaskError TASK_BAD_ARGUMENT for an index out of range.
 */
export function buildWikiTask(data: WikiData, family: WikiFamily, index: number, baseUrl: string, seed: number): Task {
  const drafts = familyDrafts(family.name, data);
  const d = drafts[index];
  if (!Number.isInteger(index) || d === undefined) {
    throw new TaskError(TaskErrorCode.BadArgument, `task index ${index} is out of range for family ${family.name} (0–${drafts.length - 1})`, { field: 'index' });
  }
  return toTask(family, index, d, normalizeBaseUrl(baseUrl), seed, data.seed);
}

/** Number of distinct tasks of each family for a data seed. */
export function wikiFamilySizes(dataSeed: number = DEFAULT_DATA_SEED): Record<WikiFamilyName, number> {
  const data = buildWiki(dataSeed);
  const out = {} as Record<WikiFamilyName, number>;
  for (const f of WIKI_FAMILIES) out[f.name] = familyDrafts(f.name, data).length;
  return out;
}

/**
 * Generates `n` wiki tasks, drawing round-robin over the selected families (each family's tasks in
 * a seeded random order, without repeats). Same options → identical tasks.
 * @throws TaskError TASK_BAD_ARGUMENT for a non-integer seed, a bad `n` (negative, not an integer,
 *   more than the distinct tasks available), a bad `baseUrl`, an unknown family, or difficulties
 *   matching no family.
 */
export function generateWikiTasks(opts: GenerateWikiTasksOptions): Task[] {
  const { seed, n } = opts;
  if (!Number.isInteger(seed)) throw new TaskError(TaskErrorCode.BadArgument, `seed ${String(seed)} must be an integer`, { field: 'seed' });
  if (!Number.isInteger(n) || n < 0) throw new TaskError(TaskErrorCode.BadArgument, `n ${String(n)} must be a non-negative integer`, { field: 'n' });
  const base = normalizeBaseUrl(opts.baseUrl);
  const families = selectWikiFamilies(opts);
  const data = buildWiki(opts.dataSeed ?? DEFAULT_DATA_SEED);
  const pools = families.map((f) => ({ family: f, drafts: familyDrafts(f.name, data) }));
  const available = pools.reduce((s, p) => s + p.drafts.length, 0);
  if (n > available) {
    throw new TaskError(TaskErrorCode.BadArgument, `n ${n} exceeds the ${available} distinct tasks of families ${families.map((f) => f.name).join(', ')}`, {
      field: 'n',
    });
  }
  const rng = mulberry32((seed ^ 0x1d3a7e55) >>> 0);
  const queues = pools.map((p) => ({ ...p, order: shuffled(rng, Array.from({ length: p.drafts.length }, (_, i) => i)) }));
  let cursor = Math.floor(rng() * queues.length);
  const tasks: Task[] = [];
  while (tasks.length < n) {
    const q = queues[cursor % queues.length];
    cursor++;
    if (q === undefined) continue;
    const index = q.order.shift();
    if (index === undefined) continue;
    tasks.push(toTask(q.family, index, q.drafts[index] as Draft, base, seed, data.seed));
  }
  return tasks;
}

/** The wiki's entry of the suite registry. */
export const WIKI_SUITE_DEF: SuiteDef = {
  name: WIKI_SUITE,
  site: WIKI_SITE,
  families: WIKI_FAMILIES.map((f) => ({ name: f.name, difficulty: f.difficulty, check: f.check })),
  generate: (o: GenerateWikiTasksOptions): Task[] => generateWikiTasks(o),
};
