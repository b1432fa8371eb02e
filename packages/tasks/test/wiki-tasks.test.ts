// Wiki task generator: determinism, every family reachable and valid, routes = difficulty, answers
// and reading lists consistent with the data, bad options rejected, the reading-list verifier.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchAnswer } from '@owrl/judge-core';
import { toJson, TaskSchema, type Task } from '@owrl/proto';
import {
  generateSuiteTasks,
  getSuite,
  TaskError,
  validateTask,
} from '../src/index.js';
import {
  buildWiki,
  checkReadingList,
  generateWikiTasks,
  parseReadingListSpec,
  sortedRows,
  WIKI_FAMILIES,
  findList,
  type WikiArticle,
} from '../src/wiki/index.js';
import {
  wikiFact,
  wikiNumber,
  type WikiFactKey,
} from '../src/wiki/wiki-data.js';
import {
  READING_LIST_SIZES,
} from '../src/wiki/wiki-families.js';
import {
  readingListSpecJson,
} from '../src/wiki/wiki-verify.js';
import {
  wikiFamilySizes,
} from '../src/wiki/wiki-tasks.js';

const BASE = 'http://127.0.0.1:8400';
const json = (ts: Task[]): unknown[] => ts.map((t) => toJson(TaskSchema, t));
const meta = (t: Task, k: string): string => {
  const v = t.metadata[k];
  assert.ok(v !== undefined, `${t.id} has metadata ${k}`);
  return v;
};
const isBad = (field: string) => (e: unknown) => e instanceof TaskError && e.code === 'TASK_BAD_ARGUMENT' && e.field === field;

void test('same seed → identical tasks; other task or data seed → different tasks', () => {
  const a = generateWikiTasks({ seed: 11, n: 40, baseUrl: BASE });
  assert.deepEqual(json(generateWikiTasks({ seed: 11, n: 40, baseUrl: BASE })), json(a));
  assert.notDeepEqual(json(generateWikiTasks({ seed: 12, n: 40, baseUrl: BASE })), json(a));
  assert.notDeepEqual(json(generateWikiTasks({ seed: 11, n: 40, baseUrl: BASE, dataSeed: 2 })), json(a));
  assert.equal(new Set(a.map((t) => t.id)).size, 40, 'ids are unique');
  // The suite registry serves the same generator.
  assert.deepEqual(json(generateSuiteTasks('wiki', { seed: 11, n: 40, baseUrl: BASE })), json(a));
  assert.deepEqual(getSuite('wiki').families.map((f) => f.name), WIKI_FAMILIES.map((f) => f.name));
});

void test('every family: reachable by name and by difficulty, valid, difficulty = route length', () => {
  const sizes = wikiFamilySizes(1);
  for (const fam of WIKI_FAMILIES) {
    assert.equal(fam.route.length, fam.difficulty, fam.name);
    const n = Math.min(sizes[fam.name], 12);
    assert.ok(n > 0, `${fam.name} has tasks`);
    const tasks = generateWikiTasks({ seed: 3, n, baseUrl: `${BASE}/`, families: [fam.name] });
    const byDiff = generateWikiTasks({ seed: 3, n: 8, baseUrl: BASE, difficulties: [fam.difficulty] });
    assert.ok(byDiff.some((t) => t.family === fam.name), `${fam.name} reachable by difficulty ${fam.difficulty}`);
    for (const t of tasks) {
      assert.deepEqual(validateTask(t), [], t.id);
      assert.equal(t.family, fam.name);
      assert.equal(t.suite, 'wiki');
      assert.equal(t.site, 'wiki');
      assert.equal(t.difficulty, fam.difficulty);
      assert.match(t.id, new RegExp(`^wiki/${fam.name}/\\d{4}$`));
      assert.ok(t.startUrl.startsWith(`${BASE}/wiki/`), t.startUrl);
      assert.equal(meta(t, 'data_seed'), '1');
      const kind = t.verifier?.kind.case;
      assert.equal(kind, { answer: 'answer', site_state: 'siteState', page_expression: 'pageExpression' }[fam.check]);
      if (kind === 'siteState') assert.equal(t.verifier?.kind.value.endpoint, `${BASE}/__owrl/verify/wiki`);
    }
  }
  const d3 = generateWikiTasks({ seed: 1, n: 50, baseUrl: BASE, difficulties: [3] });
  assert.deepEqual(new Set(d3.map((t) => t.family)), new Set(['linked_fact', 'save_article', 'sort_table', 'toc_section']));
  const hard = WIKI_FAMILIES.filter((f) => f.difficulty >= 15);
  assert.ok(hard.length >= 1 && hard.every((f) => f.difficulty <= 30), 'a family of 15–30 steps');
});

void test('easy fact tasks quote what the policy must type or click and the infobox label; answers are the infobox values', () => {
  const w = buildWiki(1);
  const tasks = generateWikiTasks({ seed: 5, n: 60, baseUrl: BASE, families: ['infobox_fact', 'search_fact', 'linked_fact'] });
  for (const t of tasks) {
    const a = w.bySlug.get(meta(t, 'article')) as WikiArticle;
    const f = wikiFact(a, meta(t, 'fact') as WikiFactKey);
    assert.ok(f, t.id);
    assert.ok(t.instruction.includes(`"${f.label}"`), t.instruction);
    const v = t.verifier?.kind;
    assert.equal(v?.case, 'answer');
    if (v?.case !== 'answer') continue;
    assert.equal(matchAnswer(v.value, f.display).status, 'pass', `${t.id} accepts ${f.display}`);
    if (typeof f.value === 'number') {
      assert.equal(matchAnswer(v.value, String(f.value)).status, 'pass', `${t.id} accepts the bare number ${f.value}`);
      assert.equal(matchAnswer(v.value, String(f.value + 1)).status, 'fail');
    }
    if (t.family === 'infobox_fact') {
      assert.equal(t.startUrl, `${BASE}/wiki/${a.slug}`);
      assert.ok(!t.instruction.includes(`"${a.title}"`), 'the start article is not quoted: the label alone points at the row');
    } else {
      assert.ok(t.instruction.includes(`"${a.title}"`), t.instruction);
      assert.doesNotMatch(a.title, /\s/, 'one-word titles only');
    }
    if (t.family === 'linked_fact') {
      const from = w.bySlug.get(meta(t, 'from')) as WikiArticle;
      assert.ok(from.lead.some((p) => p.some((s) => typeof s !== 'string' && s.slug === a.slug)), `${from.slug} links to ${a.slug} in its lead`);
    }
  }
});

void test('compare_top answers the extreme of the three top rows; reading lists hold exactly the rows meeting both conditions', () => {
  const w = buildWiki(1);
  for (const t of generateWikiTasks({ seed: 2, n: 28, baseUrl: BASE, families: ['compare_top'] })) {
    const list = findList(meta(t, 'list'));
    assert.ok(list);
    const top = sortedRows(w, list, meta(t, 'column') as WikiFactKey, 'desc').slice(0, 3);
    assert.deepEqual(top.map((a) => a.slug).join(','), meta(t, 'candidates'));
    const metric = meta(t, 'metric') as WikiFactKey;
    const values = top.map((a) => wikiNumber(a, metric));
    const best = meta(t, 'direction') === 'max' ? Math.max(...values) : Math.min(...values);
    const winner = top[values.indexOf(best)] as WikiArticle;
    const v = t.verifier?.kind;
    assert.ok(v?.case === 'answer' && matchAnswer(v.value, winner.title).status === 'pass', t.instruction);
    const loser = top.find((a) => a !== winner) as WikiArticle;
    assert.ok(v?.case === 'answer' && matchAnswer(v.value, loser.title).status === 'fail');
  }
  for (const family of ['reading_list', 'reading_list_large'] as const) {
    const size = READING_LIST_SIZES[family];
    for (const t of generateWikiTasks({ seed: 2, n: 28, baseUrl: BASE, families: [family] })) {
      const list = findList(meta(t, 'list'));
      assert.ok(list);
      const column = meta(t, 'column') as WikiFactKey;
      const metric = meta(t, 'metric') as WikiFactKey;
      const x = Number(meta(t, 'threshold'));
      const y = Number(meta(t, 'metric_threshold'));
      const rows = w.articles.filter((a) => a.kind === list.kind);
      const over = rows.filter((a) => wikiNumber(a, column) > x);
      assert.equal(over.length, size.candidates, `${t.id}: ${size.candidates} rows over ${x}`);
      const want = over.filter((a) => (meta(t, 'direction') === 'gt' ? wikiNumber(a, metric) > y : wikiNumber(a, metric) < y));
      assert.equal(want.length, size.qualifying, t.instruction);
      const v = t.verifier?.kind;
      assert.equal(v?.case, 'siteState');
      if (v?.case !== 'siteState') continue;
      const spec = parseReadingListSpec(v.value.specJson);
      assert.deepEqual([...spec.saved].sort(), want.map((a) => a.slug).sort());
      assert.equal(spec.exact, true);
      assert.ok(t.instruction.includes(`"${list.title}"`), t.instruction);
    }
  }
});

void test('bad options are rejected, naming the option', () => {
  assert.throws(() => generateWikiTasks({ seed: 1.5, n: 1, baseUrl: BASE }), isBad('seed'));
  assert.throws(() => generateWikiTasks({ seed: 1, n: -1, baseUrl: BASE }), isBad('n'));
  assert.throws(() => generateWikiTasks({ seed: 1, n: 10_000, baseUrl: BASE }), isBad('n'));
  assert.throws(() => generateWikiTasks({ seed: 1, n: 9, baseUrl: BASE, families: ['sort_table'] }), isBad('n'));
  assert.throws(() => generateWikiTasks({ seed: 1, n: 1, baseUrl: 'ftp://x' }), isBad('baseUrl'));
  assert.throws(() => generateWikiTasks({ seed: 1, n: 1, baseUrl: 'not a url' }), isBad('baseUrl'));
  assert.throws(() => generateWikiTasks({ seed: 1, n: 1, baseUrl: BASE, families: ['price'] }), (e: unknown) => isBad('families')(e) && /"price"/.test((e as Error).message));
  assert.throws(() => generateWikiTasks({ seed: 1, n: 1, baseUrl: BASE, difficulties: [0] }), isBad('difficulties'));
  assert.throws(() => generateWikiTasks({ seed: 1, n: 1, baseUrl: BASE, difficulties: [4] }), (e: unknown) => isBad('difficulties')(e) && /no wiki family/.test((e as Error).message));
  assert.throws(() => generateWikiTasks({ seed: 1, n: 1, baseUrl: BASE, dataSeed: 0.5 }), isBad('seed'));
  assert.deepEqual(generateWikiTasks({ seed: 1, n: 0, baseUrl: BASE }), []);
});

void test('reading-list spec: parse errors name the field; check names what differs', () => {
  const bad = (s: string, re: RegExp): void =>
    assert.throws(() => parseReadingListSpec(s), (e: unknown) => e instanceof TaskError && e.code === 'TASK_BAD_SPEC' && e.field === 'spec_json' && re.test(e.message));
  bad('nope', /not JSON/);
  bad('[]', /JSON object/);
  bad('{"saved":"Velm"}', /spec\.saved = "Velm" must be a list/);
  bad('{"saved":["Velm",""]}', /spec\.saved\[1\] = "" must be a non-empty string/);
  bad('{"saved":["Velm","Velm"]}', /spec\.saved\[1\] = "Velm" is listed twice/);
  bad('{"saved":[],"exact":"yes"}', /spec\.exact = "yes" must be a boolean/);
  const spec = parseReadingListSpec(readingListSpecJson({ saved: ['Velm', 'Oda'], exact: true }));
  assert.deepEqual(spec, { saved: ['Velm', 'Oda'], exact: true });
  assert.deepEqual(parseReadingListSpec('{"saved":["Velm"]}'), { saved: ['Velm'], exact: false });
  assert.deepEqual(checkReadingList(['Oda', 'Velm'], spec), { ok: true, detail: 'reading list matches: Oda, Velm' });
  const missing = checkReadingList(['Velm'], spec);
  assert.equal(missing.ok, false);
  assert.match(missing.detail, /missing Oda/);
  const extra = checkReadingList(['Velm', 'Oda', 'Ilse'], spec);
  assert.equal(extra.ok, false);
  assert.match(extra.detail, /not asked for Ilse/);
  assert.equal(checkReadingList(['Velm', 'Ilse'], { saved: ['Velm'], exact: false }).ok, true);
  assert.equal(checkReadingList([], { saved: [], exact: true }).ok, true);
});
