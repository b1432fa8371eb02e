// The articles of the bundled wiki "Lorewell": 60 fictional articles (15 cities, 15 rivers, 15
// people, 15 inventions) with infobox facts, cross-links, long prose and timelines, and the
// categories they belong to, all derived from a data seed with mulberry32.
import { mulberry32 } from '@owrl/core';
import { TaskError, TaskErrorCode } from '../errors.js';
import { writeArticleText, type WikiEvent, type WikiSection, type Segment } from './wiki-text.js';
import { buildWorld, pick, placeName, type CityRec, type InventionRec, type PersonRec, type RiverRec, type WikiKind } from './wiki-world.js';

/** Keys of the facts an infobox can hold. */
export type WikiFactKey =
  | 'province' | 'population' | 'area' | 'elevation' | 'founded' | 'river'
  | 'length' | 'discharge' | 'basin' | 'sourceElevation' | 'mouth' | 'firstCharted' | 'chartedBy' | 'cities'
  | 'born' | 'died' | 'birthplace' | 'occupation' | 'patents'
  | 'introduced' | 'inventor' | 'weight' | 'units' | 'patentNo' | 'madeIn';

export interface WikiFact {
  key: WikiFactKey;
  /** Infobox label, e.g. `Population` (letters, digits, spaces and dots only). */
  label: string;
  /** The number for numeric facts, the text otherwise. */
  value: number | string;
  /** As shown in the infobox, e.g. `1,234,567`, `2,310 km`, `LP-48213`. */
  display: string;
  /** Unit shown after numeric values (`km`, `m³/s`), '' for none. */
  unit: string;
  /** Articles the value links to (slugs), in order. */
  links: readonly string[];
}

export interface WikiArticle {
  /** URL segment (`/wiki/<slug>`): the title with spaces as underscores. */
  slug: string;
  title: string;
  kind: WikiKind;
  /** Short description shown in listings, e.g. `City in Northmark on the Velm`. */
  summary: string;
  /** Infobox rows in display order. */
  facts: readonly WikiFact[];
  lead: readonly Segment[][];
  /** Prose sections; the last one ends with the timeline. */
  sections: readonly WikiSection[];
  /** Events of the timeline table, by year. */
  timeline: readonly WikiEvent[];
  seeAlso: readonly string[];
  references: readonly string[];
  /** Category slugs (`Category:Cities`...). */
  categories: readonly string[];
}

export interface WikiCategory {
  /** `Category:Cities_in_Northmark`. */
  slug: string;
  /** `Cities in Northmark`. */
  title: string;
  description: string;
  /** Article slugs in title order. */
  members: readonly string[];
}

export interface WikiData {
  seed: number;
  /** All articles, grouped by kind in WIKI_KINDS order. */
  articles: readonly WikiArticle[];
  bySlug: ReadonlyMap<string, WikiArticle>;
  categories: readonly WikiCategory[];
  categoryBySlug: ReadonlyMap<string, WikiCategory>;
  /** Slug of the featured article on the main page. */
  featured: string;
}

/** `1234567` → `1,234,567`; up to `decimals` decimals (`175`, `1.8`). */
export function formatNumber(n: number, decimals = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: decimals });
}

export function slugOf(title: string): string {
  return title.replace(/ /g, '_');
}

function numFact(key: WikiFactKey, label: string, value: number, unit = '', decimals = 0): WikiFact {
  const shown = formatNumber(value, decimals);
  return { key, label, value, display: unit ? `${shown} ${unit}` : shown, unit, links: [] };
}

function yearFact(key: WikiFactKey, label: string, year: number): WikiFact {
  return { key, label, value: year, display: String(year), unit: '', links: [] };
}

function textFact(key: WikiFactKey, label: string, text: string, links: readonly string[] = []): WikiFact {
  return { key, label, value: text, display: text, unit: '', links };
}

function cityFacts(c: CityRec): WikiFact[] {
  return [
    textFact('province', 'Province', c.province),
    numFact('population', 'Population', c.population),
    numFact('area', 'Area', c.area, 'km²'),
    numFact('elevation', 'Elevation', c.elevation, 'm'),
    yearFact('founded', 'Founded', c.founded),
    textFact('river', 'River', c.river, [slugOf(c.river)]),
  ];
}

function riverFacts(r: RiverRec): WikiFact[] {
  return [
    numFact('length', 'Length', r.length, 'km'),
    numFact('discharge', 'Discharge', r.discharge, 'm³/s'),
    numFact('basin', 'Basin area', r.basin, 'km²'),
    numFact('sourceElevation', 'Source elevation', r.sourceElevation, 'm'),
    textFact('mouth', 'Mouth', r.mouth),
    yearFact('firstCharted', 'First charted', r.firstCharted),
    textFact('chartedBy', 'Charted by', r.chartedBy, [slugOf(r.chartedBy)]),
    textFact('cities', 'Cities', r.cities.length > 0 ? r.cities.join(', ') : 'none', r.cities.map(slugOf)),
  ];
}

function personFacts(p: PersonRec): WikiFact[] {
  return [
    yearFact('born', 'Born', p.born),
    yearFact('died', 'Died', p.died),
    textFact('birthplace', 'Birthplace', p.birthplace, [slugOf(p.birthplace)]),
    textFact('occupation', 'Occupation', p.occupation),
    numFact('patents', 'Patents', p.patents),
  ];
}

function inventionFacts(v: InventionRec): WikiFact[] {
  return [
    yearFact('introduced', 'Introduced', v.introduced),
    textFact('inventor', 'Inventor', v.inventor, [slugOf(v.inventor)]),
    numFact('weight', 'Weight', v.weight, 'kg', 1),
    numFact('units', 'Units produced', v.units),
    textFact('patentNo', 'Patent no.', v.patentNo),
    textFact('madeIn', 'First made in', v.madeIn, [slugOf(v.madeIn)]),
  ];
}

function plural(occupation: string): string {
  return `${occupation}s`;
}

/** Category slugs an article belongs to. */
function categoriesOf(kind: WikiKind, facts: readonly WikiFact[]): string[] {
  const f = (k: WikiFactKey): string => String(facts.find((x) => x.key === k)?.value ?? '');
  switch (kind) {
    case 'city':
      return ['Category:Cities', slugOf(`Category:Cities in ${f('province')}`)];
    case 'river':
      return ['Category:Rivers', slugOf(`Category:Rivers flowing into ${placeName(f('mouth'))}`)];
    case 'person':
      return ['Category:People', slugOf(`Category:${plural(f('occupation'))}`)];
    case 'invention':
      return ['Category:Inventions'];
  }
}

const CATEGORY_TEXT: Readonly<Record<string, string>> = {
  'Category:Cities': 'Cities and towns of the Far Reaches.',
  'Category:Rivers': 'Rivers of the Far Reaches, from mountain streams to great waterways.',
  'Category:People': 'Notable people of the Far Reaches.',
  'Category:Inventions': 'Machines, instruments and devices invented in the Far Reaches.',
};

/**
 * Builds the wiki for `seed` (any 32-bit integer). Same seed → identical articles.
 * @throws TaskError TASK_BAD_ARGUMENT for a seed that is not an integer.
 */
export function buildWiki(seed: number): WikiData {
  if (!Number.isInteger(seed)) {
    throw new TaskError(TaskErrorCode.BadArgument, `wiki data seed ${String(seed)} must be an integer`, { field: 'seed' });
  }
  const rng = mulberry32((seed ^ 0x3c1e4a7d) >>> 0);
  const world = buildWorld(rng);
  const drafts: { title: string; kind: WikiKind; facts: WikiFact[] }[] = [
    ...world.cities.map((c) => ({ title: c.title, kind: 'city' as const, facts: cityFacts(c) })),
    ...world.rivers.map((r) => ({ title: r.title, kind: 'river' as const, facts: riverFacts(r) })),
    ...world.people.map((p) => ({ title: p.title, kind: 'person' as const, facts: personFacts(p) })),
    ...world.inventions.map((v) => ({ title: v.title, kind: 'invention' as const, facts: inventionFacts(v) })),
  ];
  const articles: WikiArticle[] = drafts.map((d) => {
    const text = writeArticleText(rng, world, d.kind, d.title);
    return {
      slug: slugOf(d.title),
      title: d.title,
      kind: d.kind,
      summary: text.summary,
      facts: d.facts,
      lead: text.lead,
      sections: text.sections,
      timeline: text.timeline,
      seeAlso: text.seeAlso.map(slugOf),
      references: text.references,
      categories: categoriesOf(d.kind, d.facts),
    };
  });
  const bySlug = new Map(articles.map((a) => [a.slug, a]));
  const members = new Map<string, string[]>();
  for (const a of articles) {
    for (const c of a.categories) members.set(c, [...(members.get(c) ?? []), a.slug]);
  }
  const categories: WikiCategory[] = [...members.keys()]
    .sort((x, y) => x.localeCompare(y, 'en'))
    .map((slug) => {
      const title = slug.slice('Category:'.length).replace(/_/g, ' ');
      const list = (members.get(slug) ?? []).slice().sort((x, y) => x.localeCompare(y, 'en'));
      return { slug, title, description: CATEGORY_TEXT[slug] ?? `Articles about ${title.charAt(0).toLowerCase()}${title.slice(1)}.`, members: list };
    });
  const featured = pick(rng, articles).slug;
  return { seed, articles, bySlug, categories, categoryBySlug: new Map(categories.map((c) => [c.slug, c])), featured };
}

/** The fact `key` of an article, if it has one. */
export function wikiFact(article: WikiArticle, key: WikiFactKey): WikiFact | undefined {
  return article.facts.find((f) => f.key === key);
}

/** The numeric fact `key` of an article. @throws TaskError when the article has no such number. */
export function wikiNumber(article: WikiArticle, key: WikiFactKey): number {
  const v = wikiFact(article, key)?.value;
  if (typeof v !== 'number') throw new TaskError(TaskErrorCode.BadArgument, `article ${article.slug} has no numeric fact ${key}`, { field: 'fact' });
  return v;
}

export function articlesOfKind(data: WikiData, kind: WikiKind): WikiArticle[] {
  return data.articles.filter((a) => a.kind === kind);
}
