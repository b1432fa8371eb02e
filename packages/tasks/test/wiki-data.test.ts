// Wiki data: determinism, distinct facts, links that resolve, categories, list sorting and search.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TaskError,
} from '../src/index.js';
import {
  buildWiki,
  cellText,
  findColumn,
  listOfKind,
  searchWiki,
  sortedRows,
  WIKI_LISTS,
  type WikiArticle,
} from '../src/wiki/index.js';
import {
  TIMELINE_ROWS,
} from '../src/wiki/wiki-text.js';
import {
  wikiNumber,
} from '../src/wiki/wiki-data.js';
import {
  ARTICLES_PER_KIND,
  WIKI_KINDS,
} from '../src/wiki/wiki-world.js';

const slugsOf = (a: WikiArticle): string[] => [
  ...a.lead.flatMap((p) => p.flatMap((s) => (typeof s === 'string' ? [] : [s.slug]))),
  ...a.sections.flatMap((sec) => sec.paragraphs.flatMap((p) => p.flatMap((s) => (typeof s === 'string' ? [] : [s.slug])))),
  ...a.facts.flatMap((f) => f.links),
  ...a.seeAlso,
];

void test('same seed → identical wiki; another seed → other articles', () => {
  const a = buildWiki(4);
  assert.deepEqual(buildWiki(4).articles, a.articles);
  const b = buildWiki(5);
  assert.notDeepEqual(b.articles.map((x) => x.title), a.articles.map((x) => x.title));
  assert.throws(() => buildWiki(1.5), (e: unknown) => e instanceof TaskError && e.code === 'TASK_BAD_ARGUMENT' && /1\.5/.test(e.message));
});

void test('60 articles, unique titles, numeric facts distinct within a kind, every link resolves', () => {
  for (const seed of [1, 2, 77]) {
    const w = buildWiki(seed);
    assert.equal(w.articles.length, WIKI_KINDS.length * ARTICLES_PER_KIND);
    assert.equal(new Set(w.articles.map((a) => a.title)).size, w.articles.length);
    for (const a of w.articles) {
      assert.equal(w.bySlug.get(a.slug), a);
      assert.equal(a.slug, a.title.replace(/ /g, '_'));
      for (const s of slugsOf(a)) assert.ok(w.bySlug.has(s), `${a.slug} links to missing ${s}`);
      assert.equal(a.timeline.length, TIMELINE_ROWS);
      assert.deepEqual(a.timeline.map((e) => e.year), [...a.timeline.map((e) => e.year)].sort((x, y) => x - y), `${a.slug} timeline in order`);
      assert.equal(a.sections.filter((s) => s.withTimeline).length, 1);
      assert.equal(a.sections.at(-1)?.withTimeline, true, 'the timeline closes the last section');
      for (const f of a.facts) assert.match(`${f.label}: ${f.display}`, /^[A-Za-z][A-Za-z0-9 .#/-]{0,30}:\s*\S/, 'infobox rows read as "Label: value"');
      for (const p of [...a.lead, ...a.sections.flatMap((s) => s.paragraphs)]) {
        const text = p.map((s) => (typeof s === 'string' ? s : s.text)).join('');
        assert.ok(text.length > 80 && !/\{\w+\}/.test(text) && !/\bthe the\b/i.test(text), `${a.slug}: ${text.slice(0, 60)}`);
      }
    }
    for (const kind of WIKI_KINDS) {
      const arts = w.articles.filter((a) => a.kind === kind);
      for (const f of arts[0]?.facts ?? []) {
        if (typeof f.value !== 'number') continue;
        const values = arts.map((a) => wikiNumber(a, f.key));
        assert.equal(new Set(values).size, values.length, `${kind} ${f.key} values are distinct`);
      }
    }
    for (const c of w.categories) {
      assert.ok(c.members.length > 0);
      for (const m of c.members) assert.ok(w.bySlug.get(m)?.categories.includes(c.slug), `${m} in ${c.slug}`);
    }
    assert.ok(w.bySlug.has(w.featured));
  }
});

void test('people are alive when they chart rivers and introduce inventions', () => {
  const w = buildWiki(3);
  for (const a of w.articles.filter((x) => x.kind === 'river' || x.kind === 'invention')) {
    const by = w.bySlug.get(a.facts.find((f) => f.key === (a.kind === 'river' ? 'chartedBy' : 'inventor'))?.links[0] ?? '');
    assert.ok(by, a.slug);
    const year = wikiNumber(a, a.kind === 'river' ? 'firstCharted' : 'introduced');
    assert.ok(year > wikiNumber(by, 'born') && year < wikiNumber(by, 'died'), `${a.slug} ${year} within ${by.slug}'s life`);
  }
});

void test('list rows sort by a column both ways; cells show numbers and years as the table does', () => {
  const w = buildWiki(1);
  const rivers = listOfKind('river');
  const desc = sortedRows(w, rivers, 'length', 'desc');
  const asc = sortedRows(w, rivers, 'length', 'asc');
  assert.equal(desc.length, ARTICLES_PER_KIND);
  assert.deepEqual(asc.map((a) => a.slug), desc.map((a) => a.slug).reverse());
  for (let i = 1; i < desc.length; i++) assert.ok(wikiNumber(desc[i - 1] as WikiArticle, 'length') > wikiNumber(desc[i] as WikiArticle, 'length'));
  const byName = sortedRows(w, rivers);
  assert.deepEqual(byName.map((a) => a.title), byName.map((a) => a.title).sort((x, y) => x.localeCompare(y, 'en')));
  const col = findColumn(rivers, 'length');
  assert.ok(col);
  const first = desc[0] as WikiArticle;
  assert.equal(cellText(first, col), wikiNumber(first, 'length').toLocaleString('en-US'));
  const people = listOfKind('person');
  const born = findColumn(people, 'born');
  assert.ok(born);
  assert.match(cellText(sortedRows(w, people)[0] as WikiArticle, born), /^\d{4}$/, 'years have no thousands separator');
  assert.equal(WIKI_LISTS.length, WIKI_KINDS.length);
});

void test('search: an exact title is a direct hit; words find articles, lists and categories; empty finds nothing', () => {
  const w = buildWiki(1);
  const river = w.articles.find((a) => a.kind === 'river') as WikiArticle;
  const person = w.articles.find((a) => a.kind === 'person') as WikiArticle;
  assert.equal(searchWiki(w, river.title.toLowerCase()).exact, river.slug);
  assert.equal(searchWiki(w, `  ${person.title.toUpperCase()} `).exact, person.slug);
  assert.equal(searchWiki(w, 'list of rivers').exact, 'List_of_rivers');
  assert.equal(searchWiki(w, 'Category:Rivers').exact, 'Category:Rivers');
  const r = searchWiki(w, 'river flowing');
  assert.equal(r.exact, undefined);
  assert.ok(r.hits.length >= ARTICLES_PER_KIND, `${r.hits.length} hits`);
  assert.ok(r.hits.some((h) => h.slug === river.slug));
  assert.deepEqual(searchWiki(w, '  '), { exact: undefined, hits: [] });
  assert.deepEqual(searchWiki(w, 'zzqx').hits, []);
});
