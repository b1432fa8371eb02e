// Benchmark import: hand-written WebVoyager (JSON Lines) and Online-Mind2Web (pretty-printed JSON
// array) records in the published field layouts, good and broken, become owrl tasks or line-numbered
// errors naming the source field; the record reader finds each array element's line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toJson, TaskSchema } from '@owrl/proto';
import { formatTaskLine, importBenchmarkRecord, importBenchmarkText, parseTaskFile, slug, splitJsonRecords } from '@owrl/tasks';

// Records in the layout of WebVoyager's data/WebVoyager_data.jsonl (web_name, id, ques, web) and
// its GAIA_web.jsonl (no web_name; task_id, Level and "Final answer" besides), written for this test.
const WEBVOYAGER = [
  '{"web_name": "Allrecipes", "id": "Allrecipes--3", "ques": "Find a soup recipe with more than 50 reviews.", "web": "https://www.allrecipes.com/"}',
  '{"web_name": "Google Flights", "id": "Google Flights--7", "ques": "Find the cheapest one-way flight from Lisbon to Oslo next Friday.", "web": "https://www.google.com/travel/flights"}',
  '',
  '{"task_id": "0f1e2d", "Level": 2, "Final answer": "42", "id": "level2-5", "web": "https://www.google.com/", "ques": "How many moons does the planet in the picture have?"}',
  '{"web_name": "Amazon", "id": "Amazon--9", "ques": "Find a red kettle under $30.", "web": "https://www.amazon.com/",}',
  '{"web_name": "Amazon", "id": "Amazon--10", "web": "https://www.amazon.com/"}',
  '{"web_name": "Apple", "id": "Apple--2", "ques": "Compare two laptops.", "web": "www.apple.com"}',
  '{"web_name": "ArXiv", "id": "ArXiv--1", "ques": "Find a paper.", "web": "ftp://arxiv.org/"}',
  '{"web_name": "Allrecipes", "id": "Allrecipes--3", "ques": "Find a pie recipe.", "web": "https://www.allrecipes.com/"}',
  '["not", "a", "record"]',
  '{"task_id": "abc", "confirmed_task": "Find a hotel.", "website": "https://www.booking.com/"}',
].join('\n');

// Records in the layout of Online-Mind2Web's Online_Mind2Web.json (a pretty-printed array of
// task_id, confirmed_task, website, reference_length, level), written for this test.
const MIND2WEB = `[
    {
        "task_id": "a1b2c3d4",
        "confirmed_task": "Find the opening hours of the nearest library to zip code 10001.",
        "website": "https://www.nypl.org/",
        "reference_length": 5,
        "level": "easy"
    },
    {
        "task_id": "e5f6a7b8",
        "confirmed_task": "Show used bicycles under $300 sorted by price.",
        "website": "https://www.example-bikes.com/",
        "level": "hard"
    },
    {
        "task_id": "c9d0e1f2",
        "task_description": "Open the page about lost luggage.",
        "website": "https://www.example-air.com/help"
    },
    {
        "task_id": "badlen",
        "confirmed_task": "Do something.",
        "website": "https://example.org/",
        "reference_length": 0
    },
    {
        "task_id": "badlevel",
        "confirmed_task": "Do something else.",
        "website": "https://example.org/",
        "level": "expert"
    },
    {
        "task_id": "broken",
        "confirmed_task": "A record with a syntax error",
        "website": "https://example.org/",
    },
    {
        "task_id": "nosite",
        "confirmed_task": "Where does this start?"
    },
    {"task_id": "last", "confirmed_task": "One-line element.", "website": "https://example.com/", "reference_length": "12"}
]
`;

void test('WebVoyager: each good line becomes a task with the source fields; each bad one an error at its line naming the field', () => {
  const r = importBenchmarkText('webvoyager', WEBVOYAGER);
  assert.equal(r.layout, 'jsonl');
  assert.equal(r.records, 10);
  assert.deepEqual(
    r.tasks.map((t) => t.line),
    [1, 2, 4],
  );
  assert.deepEqual(toJson(TaskSchema, r.tasks[0]!.task), {
    schemaVersion: 1,
    id: 'webvoyager/Allrecipes--3',
    suite: 'webvoyager',
    startUrl: 'https://www.allrecipes.com/',
    instruction: 'Find a soup recipe with more than 50 reviews.',
    difficulty: 8,
    family: 'allrecipes',
    metadata: { web_name: 'Allrecipes', id: 'Allrecipes--3', web: 'https://www.allrecipes.com/', source: 'WebVoyager', source_id: 'Allrecipes--3' },
  });
  const flights = r.tasks[1]!.task;
  assert.deepEqual([flights.id, flights.family, flights.startUrl], ['webvoyager/Google_Flights--7', 'google-flights', 'https://www.google.com/travel/flights']);
  const gaia = r.tasks[2]!.task;
  assert.deepEqual([gaia.id, gaia.family, gaia.metadata['Final answer'], gaia.metadata['Level'], gaia.metadata['task_id'], gaia.verifier], ['webvoyager/level2-5', 'google.com', '42', '2', '0f1e2d', undefined]);

  assert.deepEqual(
    r.errors.map((e) => [e.line, e.field]),
    [
      [5, 'json'],
      [6, 'ques'],
      [7, 'web'],
      [8, 'web'],
      [9, 'id'],
      [10, 'record'],
      [11, 'id'],
      [11, 'ques'],
      [11, 'web'],
    ],
  );
  const msg = (line: number) => r.errors.filter((e) => e.line === line).map((e) => e.message);
  assert.match(msg(5)[0] ?? '', /^not valid JSON/);
  assert.deepEqual(msg(6), ['ques is missing']);
  assert.deepEqual(msg(7), ['web "www.apple.com" is not a URL']);
  assert.deepEqual(msg(8), ['web "ftp://arxiv.org/" must be an http(s) URL']);
  assert.deepEqual(msg(9), ['id "webvoyager/Allrecipes--3" repeats line 1']);
  assert.match(msg(10)[0] ?? '', /must be a JSON object/);
  assert.match(msg(11)[0] ?? '', /id is missing \(the record has task_id, confirmed_task, website: is this --format mind2web\?\)/);

  // Every imported task is a valid task line.
  const text = r.tasks.map((t) => formatTaskLine(t.task)).join('\n');
  assert.equal(parseTaskFile(text).length, 3);
});

void test('Online-Mind2Web: array elements are read at their own lines; difficulty from reference_length, else the level', () => {
  const r = importBenchmarkText('mind2web', MIND2WEB);
  assert.equal(r.layout, 'array');
  assert.equal(r.records, 8);
  assert.deepEqual(
    r.tasks.map((t) => [t.line, t.task.id, t.task.difficulty, t.task.family]),
    [
      [2, 'mind2web/a1b2c3d4', 5, 'nypl.org'],
      [9, 'mind2web/e5f6a7b8', 13, 'example-bikes.com'],
      [15, 'mind2web/c9d0e1f2', 8, 'example-air.com'],
      [41, 'mind2web/last', 12, 'example.com'],
    ],
  );
  assert.deepEqual(toJson(TaskSchema, r.tasks[0]!.task), {
    schemaVersion: 1,
    id: 'mind2web/a1b2c3d4',
    suite: 'mind2web',
    startUrl: 'https://www.nypl.org/',
    instruction: 'Find the opening hours of the nearest library to zip code 10001.',
    difficulty: 5,
    family: 'nypl.org',
    metadata: { task_id: 'a1b2c3d4', website: 'https://www.nypl.org/', reference_length: '5', level: 'easy', source: 'Online-Mind2Web', source_id: 'a1b2c3d4' },
  });
  assert.equal(r.tasks[2]!.task.instruction, 'Open the page about lost luggage.', 'task_description, the dataset card name, is read too');
  assert.deepEqual(
    r.errors.map((e) => [e.line, e.field, e.message]),
    [
      [20, 'reference_length', 'reference_length 0 must be a positive integer (steps of a human solution)'],
      [26, 'level', 'level "expert" must be easy, medium or hard'],
      [32, 'json', r.errors[2]?.message ?? ''],
      [37, 'website', 'website is missing'],
    ],
  );
  assert.match(r.errors[2]?.message ?? '', /^not valid JSON/);
  // Options: suite (and id prefix), difficulty of records that give no length.
  const other = importBenchmarkText('mind2web', MIND2WEB, { suite: 'om2w', difficulty: 20 });
  assert.deepEqual(other.tasks.map((t) => [t.task.id, t.task.suite, t.task.difficulty]).slice(1, 3), [['om2w/e5f6a7b8', 'om2w', 13], ['om2w/c9d0e1f2', 'om2w', 20]]);
  assert.throws(() => importBenchmarkRecord('mind2web', {}, { difficulty: 0 }), /difficulty 0 must be a positive integer/);
  assert.throws(() => importBenchmarkText('webarena' as 'webvoyager', ''), /format "webarena" is not one of webvoyager, mind2web/);
});

void test('splitJsonRecords: array element lines, empty elements, unterminated arrays and strings, text after, BOM, JSON Lines', () => {
  assert.deepEqual(splitJsonRecords('[\n  {"a": 1},\n\n  {"b": "x]y,z"}, 3\n]'), {
    layout: 'array',
    records: [
      { line: 2, value: { a: 1 } },
      { line: 4, value: { b: 'x]y,z' } },
      { line: 4, value: 3 },
    ],
  });
  assert.deepEqual(splitJsonRecords('[]').records, []);
  assert.deepEqual(splitJsonRecords('[1,\n,2,]'), {
    layout: 'array',
    records: [{ line: 1, value: 1 }, { line: 2, error: 'empty element (a stray comma?)' }, { line: 2, value: 2 }, { line: 2, error: 'empty element (a stray comma?)' }],
  });
  assert.deepEqual(splitJsonRecords('\uFEFF[\n{"a": [1, {"b": 2}]}\n').fatal, { line: 1, message: 'the JSON array never ends (no closing "]")' });
  assert.deepEqual(splitJsonRecords('[\n{"a": "never\n').fatal, { line: 2, message: 'a string that never ends' });
  assert.deepEqual(splitJsonRecords('[1]\n\n{"x": 1}').fatal, { line: 3, message: 'text after the end of the JSON array' });
  assert.deepEqual(splitJsonRecords('{"a":1}\r\n\r\n {"b":2}\n'), { layout: 'jsonl', records: [{ line: 1, value: { a: 1 } }, { line: 3, value: { b: 2 } }] });
  assert.equal(slug('Cambridge Dictionary'), 'cambridge-dictionary');
  assert.equal(slug('BBC News'), 'bbc-news');
});
