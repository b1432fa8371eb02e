// The task families of the wiki suite (name, difficulty, check, intended route) and the wording of
// their questions and conditions. `difficulty` is the number of policy steps of the intended
// route, where one step is one decision: a click, a write optionally followed by Enter, a scroll,
// going back, or done.
import type { WikiFactKey } from './wiki-data.js';
import type { WikiKind } from './wiki-world.js';

export type WikiFamilyName =
  | 'infobox_fact'
  | 'search_fact'
  | 'linked_fact'
  | 'save_article'
  | 'sort_table'
  | 'toc_section'
  | 'deep_fact'
  | 'save_two'
  | 'compare_top'
  | 'reading_list'
  | 'reading_list_large';

export interface WikiFamily {
  name: WikiFamilyName;
  difficulty: number;
  check: 'answer' | 'site_state' | 'page_expression';
  /** Page the episode starts on. */
  start: 'article' | 'main' | 'category' | 'list';
  /** The intended solution, one entry per step. */
  route: readonly string[];
}

/** Candidates (rows over the list threshold) and qualifying articles of the reading-list families. */
export const READING_LIST_SIZES = {
  reading_list: { candidates: 6, qualifying: 3 },
  reading_list_large: { candidates: 9, qualifying: 4 },
} as const;

/** Articles compared by compare_top. */
export const COMPARE_TOP = 3;

/**
 * Route of a family that opens `count` rows of a sorted list one after the other, going back to the
 * list between them; the digest popup shows on the second article, and `saves` articles are saved.
 */
function listRoute(count: number, saves: number, answer: string): string[] {
  const steps = ['click "List of …" on the main page', 'click the column header (ascending)', 'click it again (descending)'];
  for (let i = 1; i <= count; i++) {
    steps.push(`click row ${i}`);
    if (i === 2) steps.push('click "No thanks" on the digest popup');
    if (i <= saves) steps.push('click "Save to reading list" (when it qualifies)');
    if (i < count) steps.push('go back to the list');
  }
  steps.push(answer);
  return steps;
}

function fam(name: WikiFamilyName, check: WikiFamily['check'], start: WikiFamily['start'], route: readonly string[]): WikiFamily {
  return { name, difficulty: route.length, check, start, route };
}

export const WIKI_FAMILIES: readonly WikiFamily[] = [
  fam('infobox_fact', 'answer', 'article', ['done(infobox value)']),
  fam('search_fact', 'answer', 'main', ['write title into "Search Lorewell" + Enter (an exact title opens the article)', 'done(infobox value)']),
  // The digest popup blurs the second article viewed in a session: it is dismissed before reading.
  fam('linked_fact', 'answer', 'article', ['click the quoted link', 'click "No thanks" on the digest popup', 'done(infobox value)']),
  fam('save_article', 'site_state', 'category', ['click the article in the category', 'click "Save to reading list"', 'done']),
  fam('sort_table', 'page_expression', 'list', ['click the column header (ascending)', 'click it again (descending)', 'done']),
  fam('toc_section', 'page_expression', 'category', ['click the article in the category', 'click the section in "Contents"', 'done']),
  // The timeline closes the long last section; after the contents link it is still below the fold.
  fam('deep_fact', 'answer', 'main', ['write title into "Search Lorewell" + Enter', 'click the last section in "Contents"', 'scroll down', 'scroll down', 'done(year)']),
  fam('save_two', 'site_state', 'main', [
    'write the first title into "Search Lorewell" + Enter',
    'click "Save to reading list"',
    'write the second title into "Search Lorewell" + Enter',
    'click "No thanks" on the digest popup',
    'click "Save to reading list"',
    'done',
  ]),
  // Sorting is not strictly needed (the rows can be read unsorted), but it is the natural route.
  fam('compare_top', 'answer', 'main', listRoute(COMPARE_TOP, 0, 'done(name)')),
  fam('reading_list', 'site_state', 'main', listRoute(READING_LIST_SIZES.reading_list.candidates, READING_LIST_SIZES.reading_list.qualifying, 'done')),
  fam('reading_list_large', 'site_state', 'main',
    listRoute(READING_LIST_SIZES.reading_list_large.candidates, READING_LIST_SIZES.reading_list_large.qualifying, 'done')),
];

/** Infobox facts asked about by the fact families, per kind. */
export const ANSWER_FACTS: Readonly<Record<WikiKind, readonly WikiFactKey[]>> = {
  city: ['population', 'area', 'elevation', 'founded'],
  river: ['length', 'discharge', 'basin', 'sourceElevation', 'firstCharted'],
  person: ['born', 'died', 'patents'],
  invention: ['introduced', 'weight', 'units', 'patentNo'],
};

/** Kinds whose titles are one word: the built-in policy can match them with an infobox row. */
export const ONE_WORD_KINDS: readonly WikiKind[] = ['city', 'river', 'invention'];

/** Question of infobox_fact; the infobox label is quoted (it names the row holding the answer). */
export function factQuestion(key: WikiFactKey, label: string, title: string): string {
  const q = `"${label}"`;
  switch (key) {
    case 'founded':
      return `In what year was ${title} ${q}?`;
    case 'firstCharted':
      return `In what year was the ${title} ${q}?`;
    case 'born':
    case 'died':
      return `What year is given as ${q} for ${title}?`;
    case 'introduced':
      return `In what year was the ${title} ${q}?`;
    case 'patents':
      return `How many ${q} did ${title} hold?`;
    case 'patentNo':
      return `What is the ${q} of the ${title}?`;
    default:
      return `What is the ${q} of ${title}?`;
  }
}

/** Columns compare_top and the reading-list families filter on (numeric columns of the list). */
export const LIST_METRICS: Readonly<Record<WikiKind, readonly WikiFactKey[]>> = {
  city: ['population', 'area'],
  river: ['length', 'discharge'],
  person: ['born', 'died'],
  invention: ['introduced', 'units'],
};

/** Infobox-only facts (not in the list table) the same families compare. */
export const INFOBOX_METRICS: Readonly<Record<WikiKind, readonly WikiFactKey[]>> = {
  city: ['founded', 'elevation'],
  river: ['firstCharted', 'sourceElevation', 'basin'],
  person: ['patents'],
  invention: ['weight'],
};

/** "the three longest rivers" — the top rows of a list metric, sorted descending. */
export const TOP_PHRASE: Readonly<Partial<Record<WikiFactKey, string>>> = {
  population: 'the three most populous cities',
  area: 'the three largest cities by area',
  length: 'the three longest rivers',
  discharge: 'the three rivers with the greatest discharge',
  born: 'the three most recently born people',
  died: 'the three people who died most recently',
  introduced: 'the three most recently introduced inventions',
  units: 'the three inventions with the most units produced',
};

/** "which one ..." for the largest (`max`) or smallest (`min`) value of an infobox metric. */
export const SUPERLATIVE: Readonly<Partial<Record<WikiFactKey, { max: string; min: string }>>> = {
  founded: { max: 'was founded most recently', min: 'was founded earliest' },
  elevation: { max: 'lies at the highest elevation', min: 'lies at the lowest elevation' },
  firstCharted: { max: 'was first charted most recently', min: 'was first charted earliest' },
  sourceElevation: { max: 'has its source at the highest elevation', min: 'has its source at the lowest elevation' },
  basin: { max: 'has the largest basin area', min: 'has the smallest basin area' },
  patents: { max: 'held the most patents', min: 'held the fewest patents' },
  weight: { max: 'is the heaviest', min: 'is the lightest' },
};

/** Condition "value > X" on a list metric as a predicate, `{x}` being the formatted threshold. */
export const OVER_PHRASE: Readonly<Partial<Record<WikiFactKey, string>>> = {
  population: 'has a population above {x}',
  area: 'has an area above {x} km²',
  length: 'is longer than {x} km',
  discharge: 'has a discharge above {x} m³/s',
  born: 'was born after {x}',
  died: 'died after {x}',
  introduced: 'was introduced after {x}',
  units: 'had more than {x} units produced',
};

/** Condition on an infobox metric: value > Y (`gt`) or value < Y (`lt`). */
export const CONDITION_PHRASE: Readonly<Partial<Record<WikiFactKey, { gt: string; lt: string }>>> = {
  founded: { gt: 'was founded after {y}', lt: 'was founded before {y}' },
  elevation: { gt: 'lies above {y} m', lt: 'lies below {y} m' },
  firstCharted: { gt: 'was first charted after {y}', lt: 'was first charted before {y}' },
  sourceElevation: { gt: 'has its source above {y} m', lt: 'has its source below {y} m' },
  basin: { gt: 'has a basin area above {y} km²', lt: 'has a basin area below {y} km²' },
  patents: { gt: 'held more than {y} patents', lt: 'held fewer than {y} patents' },
  weight: { gt: 'weighs more than {y} kg', lt: 'weighs less than {y} kg' },
};

/** Singular noun of a kind, for "every river ... that". */
export const KIND_NOUN: Readonly<Record<WikiKind, string>> = { city: 'city', river: 'river', person: 'person', invention: 'invention' };
/** Main category of a kind. */
export const KIND_CATEGORY: Readonly<Record<WikiKind, string>> = {
  city: 'Category:Cities',
  river: 'Category:Rivers',
  person: 'Category:People',
  invention: 'Category:Inventions',
};
