// The wiki's list articles (sortable data tables of one kind of article) and its search, as pure
// rules shared by the site's pages and the task generator, so "the three longest rivers" and "the
// first row after sorting" mean the same to both.
import { formatNumber, type WikiArticle, type WikiData, type WikiFactKey } from './wiki-data.js';
import type { WikiKind } from './wiki-world.js';

export type WikiColumnKey = 'name' | WikiFactKey;

export interface WikiListColumn {
  /** `sort` query value of the column. */
  key: WikiColumnKey;
  /** Header text, the accessible name of its sort link, e.g. `Length (km)`. */
  label: string;
  format: 'text' | 'number' | 'year';
}

export interface WikiList {
  /** `List_of_rivers` (`/wiki/List_of_rivers`). */
  slug: string;
  title: string;
  kind: WikiKind;
  intro: string;
  columns: readonly WikiListColumn[];
}

export type WikiSortOrder = 'asc' | 'desc';

const name = (label: string): WikiListColumn => ({ key: 'name', label, format: 'text' });

export const WIKI_LISTS: readonly WikiList[] = [
  {
    slug: 'List_of_cities', title: 'List of cities', kind: 'city',
    intro: 'This list shows every city of the Far Reaches with an article, with the population at the latest census and the area of the municipality.',
    columns: [name('City'), { key: 'province', label: 'Province', format: 'text' }, { key: 'population', label: 'Population', format: 'number' }, { key: 'area', label: 'Area (km²)', format: 'number' }],
  },
  {
    slug: 'List_of_rivers', title: 'List of rivers', kind: 'river',
    intro: 'This list shows the rivers of the Far Reaches with their total length, their mean discharge at the mouth and the sea or lake they flow into.',
    columns: [name('River'), { key: 'length', label: 'Length (km)', format: 'number' }, { key: 'discharge', label: 'Discharge (m³/s)', format: 'number' }, { key: 'mouth', label: 'Mouth', format: 'text' }],
  },
  {
    slug: 'List_of_people', title: 'List of people', kind: 'person',
    intro: 'This list shows notable people of the Far Reaches with the years of their birth and death and their main occupation.',
    columns: [name('Name'), { key: 'born', label: 'Born', format: 'year' }, { key: 'died', label: 'Died', format: 'year' }, { key: 'occupation', label: 'Occupation', format: 'text' }],
  },
  {
    slug: 'List_of_inventions', title: 'List of inventions', kind: 'invention',
    intro: 'This list shows inventions of the Far Reaches with the year they were introduced, their inventor and the number of units produced.',
    columns: [name('Invention'), { key: 'introduced', label: 'Year', format: 'year' }, { key: 'inventor', label: 'Inventor', format: 'text' }, { key: 'units', label: 'Units produced', format: 'number' }],
  },
];

export function findList(slug: string): WikiList | undefined {
  return WIKI_LISTS.find((l) => l.slug === slug);
}

export function listOfKind(kind: WikiKind): WikiList {
  const l = WIKI_LISTS.find((x) => x.kind === kind);
  if (l === undefined) throw new Error(`no list of kind ${kind}`);
  return l;
}

export function findColumn(list: WikiList, key: string): WikiListColumn | undefined {
  return list.columns.find((c) => c.key === key);
}

/** Sort value of a cell: the number of numeric columns, the text otherwise. */
function cellValue(a: WikiArticle, col: WikiListColumn): number | string {
  if (col.key === 'name') return a.title;
  return a.facts.find((f) => f.key === col.key)?.value ?? '';
}

/** A cell as the table shows it: numbers with thousands separators and no unit, years plain. */
export function cellText(a: WikiArticle, col: WikiListColumn): string {
  const v = cellValue(a, col);
  if (typeof v === 'number') return col.format === 'year' ? String(v) : formatNumber(v);
  return v;
}

/** Rows of `list` sorted by column `key` (default: by name, ascending); ties keep title order. */
export function sortedRows(data: WikiData, list: WikiList, key: WikiColumnKey = 'name', order: WikiSortOrder = 'asc'): WikiArticle[] {
  const col = findColumn(list, key) ?? list.columns[0];
  const rows = data.articles.filter((a) => a.kind === list.kind).sort((x, y) => x.title.localeCompare(y.title, 'en'));
  if (col === undefined) return rows;
  const sign = order === 'asc' ? 1 : -1;
  return rows.sort((x, y) => {
    const a = cellValue(x, col);
    const b = cellValue(y, col);
    const d = typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b), 'en');
    return sign * d;
  });
}

export interface WikiSearchHit {
  /** Path segment under /wiki/. */
  slug: string;
  title: string;
  /** One line shown under the title. */
  snippet: string;
}

export interface WikiSearchResult {
  /** Slug of the page whose title equals the query: the site goes straight there. */
  exact: string | undefined;
  hits: WikiSearchHit[];
}

function tokens(s: string): string[] {
  return s.toLowerCase().split(/[^a-z0-9]+/).filter((t) => t.length > 0);
}

/**
 * Search as the site runs it. A query equal to a title (case and punctuation aside) is an exact
 * match; otherwise articles, lists and categories whose title and description hold every query
 * token are hits, title matches first. An empty query finds nothing.
 */
export function searchWiki(data: WikiData, query: string): WikiSearchResult {
  const q = tokens(query);
  if (q.length === 0) return { exact: undefined, hits: [] };
  const joined = q.join(' ');
  const pages: (WikiSearchHit & { hay: string })[] = [
    ...data.articles.map((a) => ({ slug: a.slug, title: a.title, snippet: a.summary, hay: `${a.title} ${a.summary}` })),
    ...WIKI_LISTS.map((l) => ({ slug: l.slug, title: l.title, snippet: l.intro, hay: l.title })),
    ...data.categories.map((c) => ({ slug: c.slug, title: `Category:${c.title}`, snippet: c.description, hay: `category ${c.title}` })),
  ];
  const exact = pages.find((p) => tokens(p.title).join(' ') === joined);
  const hits = pages
    .filter((p) => {
      const hay = new Set(tokens(p.hay));
      return q.every((t) => hay.has(t));
    })
    .sort((a, b) => {
      const ta = q.every((t) => tokens(a.title).includes(t)) ? 0 : 1;
      const tb = q.every((t) => tokens(b.title).includes(t)) ? 0 : 1;
      return ta - tb || a.title.localeCompare(b.title, 'en');
    })
    .map(({ slug, title, snippet }) => ({ slug, title, snippet }));
  return { exact: exact?.slug, hits };
}
