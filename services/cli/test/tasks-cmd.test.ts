// `owrl tasks validate|sample|suites|import` run as the built CLI in a child process: exit statuses,
// `FILE:LINE: field: message` errors, byte-identical sampling for the same flags, flag errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTaskFile, SUITES } from '@owrl/tasks';

const BIN = fileURLToPath(new URL('../../bin/owrl.js', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function owrl(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 30_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

async function tmpFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'owrl-tasks-cmd-'));
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

const REAL_WEB_TASK = {
  id: 'webvoyager/allrecipes--3',
  suite: 'webvoyager',
  start_url: 'https://www.allrecipes.com/',
  instruction: 'Find a vegetarian lasagna recipe with at least a four-star rating and over 100 reviews.',
  difficulty: 8,
  metadata: { source: 'WebVoyager' },
};

void test('validate: sampled tasks and a real-website task without a verifier are OK', async () => {
  const sampled = await owrl('tasks', 'sample', '--suite', 'shop', '--n', '5', '--seed', '3');
  assert.equal(sampled.code, 0, sampled.stderr);
  const file = await tmpFile('ok.jsonl', `${sampled.stdout}\n${JSON.stringify(REAL_WEB_TASK)}\n`);
  const r = await owrl('tasks', 'validate', file);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, `${file}: 6 tasks OK\n`, '']);
});

void test('validate: every bad line is reported as FILE:LINE: field: message, exit status 1', async () => {
  const good = await tmpFile('good.jsonl', `${JSON.stringify(REAL_WEB_TASK)}\n`);
  const lines = [
    JSON.stringify(REAL_WEB_TASK),
    JSON.stringify({ ...REAL_WEB_TASK, id: 'b', start_url: 'ftp://example.com/', instruction: ' ' }),
    '{"id": "c",',
    JSON.stringify({ ...REAL_WEB_TASK }),
    JSON.stringify({ ...REAL_WEB_TASK, id: 'e', verifier: { answer: { accepted: [] } } }),
    JSON.stringify({ ...REAL_WEB_TASK, id: 'f', difficulty: 'hard' }),
    '',
    JSON.stringify({ ...REAL_WEB_TASK, id: 'h', colour: 'red' }),
    JSON.stringify({ ...REAL_WEB_TASK, id: 'i', verifier: { site_state: { endpoint: 'http://127.0.0.1:8400/__owrl/verify', spec_json: '{cart' } } }),
  ];
  const bad = await tmpFile('bad.jsonl', lines.join('\n'));
  const r = await owrl('tasks', 'validate', good, bad);
  assert.equal(r.code, 1, r.stderr);
  const out = r.stdout.trimEnd().split('\n');
  assert.equal(out[0], `${good}: 1 task OK`);
  const errs = out.slice(1).map((l) => {
    assert.ok(l.startsWith(`${bad}:`), l);
    const m = /^(\d+): ([\w.]+): (.*)$/.exec(l.slice(bad.length + 1));
    assert.ok(m, l);
    return [Number(m[1]), m[2], m[3]];
  });
  assert.deepEqual(
    errs.map(([line, field]) => [line, field]),
    [
      [2, 'start_url'],
      [2, 'instruction'],
      [3, 'json'],
      [4, 'id'],
      [5, 'verifier.answer.accepted'],
      [6, 'difficulty'],
      [8, 'colour'],
      [9, 'verifier.site_state.spec_json'],
    ],
  );
  assert.equal(errs[0]?.[2], 'start_url "ftp://example.com/" must be http(s)');
  assert.equal(errs[3]?.[2], 'id "webvoyager/allrecipes--3" repeats line 1');
  assert.match(String(errs[6]?.[2]), /"colour" is unknown/);
});

void test('validate: an unreadable file fails with exit status 1; no FILE is a usage error', async () => {
  const missing = path.join(tmpdir(), 'owrl-no-such-tasks.jsonl');
  const r = await owrl('tasks', 'validate', missing);
  assert.equal(r.code, 1);
  assert.match(r.stdout, new RegExp(`^${missing.replace(/[.]/g, '\\.')}: cannot read: ENOENT`));
  const none = await owrl('tasks', 'validate');
  assert.equal(none.code, 2);
  assert.match(none.stderr, /tasks validate needs at least one FILE/);
});

void test('sample: the same flags give byte-identical JSONL; flags select seed, base URL, levels and families', async () => {
  const flags = ['tasks', 'sample', '--suite', 'shop', '--n', '12', '--seed', '7', '--base-url', 'http://sites.test:9000', '--difficulties', '1,2,3', '--data-seed', '4'];
  const a = await owrl(...flags);
  const b = await owrl(...flags);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.stdout, b.stdout);
  const tasks = parseTaskFile(a.stdout);
  assert.equal(tasks.length, 12);
  assert.equal(a.stdout.split('\n').length, 13, 'one line per task and a final newline');
  for (const t of tasks) {
    assert.ok(t.startUrl.startsWith('http://sites.test:9000/shop/'), t.startUrl);
    assert.ok(t.difficulty >= 1 && t.difficulty <= 3, `${t.id} difficulty ${t.difficulty}`);
    assert.equal(t.metadata['catalog_seed'], '4');
  }
  const other = await owrl('tasks', 'sample', '--suite', 'shop', '--n', '12', '--seed', '8', '--base-url', 'http://sites.test:9000', '--difficulties', '1,2,3', '--data-seed', '4');
  assert.notEqual(other.stdout, a.stdout, 'another seed draws other tasks');
  const fam = await owrl('tasks', 'sample', '--suite', 'shop', '--n', '3', '--families', 'sku,price');
  assert.deepEqual(new Set(parseTaskFile(fam.stdout).map((t) => t.family)), new Set(['sku', 'price']));
  const zero = await owrl('tasks', 'sample', '--suite', 'shop', '--n', '0');
  assert.deepEqual([zero.code, zero.stdout], [0, '']);
});

void test('sample: bad flags exit with status 2 and a message naming the flag', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['--suite', 'mall', '--n', '2'], /^owrl: --suite: unknown suite "mall" \(suites: /],
    [['--n', '2'], /^owrl: --suite is required/],
    [['--suite', 'shop'], /^owrl: --n is required/],
    [['--suite', 'shop', '--n', 'ten'], /^owrl: --n must be an integer >= 0, got "ten"/],
    [['--suite', 'shop', '--n=-1'], /^owrl: --n must be an integer >= 0, got "-1"/],
    [['--suite', 'shop', '--n', '2', '--seed', '1.5'], /^owrl: --seed must be an integer/],
    [['--suite', 'shop', '--n', '2', '--data-seed', 'x'], /^owrl: --data-seed must be an integer/],
    [['--suite', 'shop', '--n', '2', '--difficulties', '1,two'], /^owrl: --difficulties must be positive integers separated by commas, got "two"/],
    [['--suite', 'shop', '--n', '2', '--families', 'teleport'], /^owrl: --families: family "teleport" is not a shop family/],
    [['--suite', 'shop', '--n', '2', '--base-url', 'ftp://x'], /^owrl: --base-url: baseUrl "ftp:\/\/x" must be http\(s\)/],
    [['--suite', 'shop', '--n', '100000'], /^owrl: --n: n 100000 exceeds the \d+ distinct tasks/],
    [['--suite', 'shop', '--n', '2', '--colour', 'red'], /^owrl: Unknown option '--colour'/],
  ];
  for (const [flags, want] of cases) {
    const r = await owrl('tasks', 'sample', ...flags);
    assert.equal(r.code, 2, `${flags.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '', flags.join(' '));
    assert.match(r.stderr, want, flags.join(' '));
  }
  const sub = await owrl('tasks', 'shuffle');
  assert.equal(sub.code, 2);
  assert.match(sub.stderr, /unknown tasks command "shuffle"/);
});

void test('suites lists every bundled suite with its families and difficulties', async () => {
  const r = await owrl('tasks', 'suites');
  assert.equal(r.code, 0, r.stderr);
  for (const s of SUITES) {
    assert.match(r.stdout, new RegExp(`^${s.name} \\(site /${s.site}/\\): ${s.families.length} families`, 'm'));
    for (const f of s.families) assert.match(r.stdout, new RegExp(`^  ${f.name} +difficulty ${f.difficulty}  ${f.check}$`, 'm'));
  }
  const json = await owrl('tasks', 'suites', '--json');
  const parsed = JSON.parse(json.stdout) as Array<{ name: string; families: unknown[] }>;
  assert.deepEqual(
    parsed.map((s) => [s.name, s.families.length]),
    SUITES.map((s) => [s.name, s.families.length]),
  );
});

void test('import: WebVoyager JSON Lines to task JSONL on stdout; bad lines on stderr as FILE:LINE: field: message, exit 1', async () => {
  const src = await tmpFile(
    'WebVoyager_data.jsonl',
    [
      '{"web_name": "Allrecipes", "id": "Allrecipes--3", "ques": "Find a soup recipe with more than 50 reviews.", "web": "https://www.allrecipes.com/"}',
      '{"web_name": "Amazon", "id": "Amazon--10", "web": "https://www.amazon.com/"}',
      '{"web_name": "BBC News", "id": "BBC News--4", "ques": "Find the latest article about rugby.", "web": "https://www.bbc.com/news"}',
      '{not json',
    ].join('\n'),
  );
  const r = await owrl('tasks', 'import', '--format', 'webvoyager', src);
  assert.equal(r.code, 1, r.stderr);
  const tasks = parseTaskFile(r.stdout);
  assert.deepEqual(
    tasks.map((t) => [t.id, t.suite, t.family, t.startUrl, t.difficulty, t.metadata['source_id'], t.verifier]),
    [
      ['webvoyager/Allrecipes--3', 'webvoyager', 'allrecipes', 'https://www.allrecipes.com/', 8, 'Allrecipes--3', undefined],
      ['webvoyager/BBC_News--4', 'webvoyager', 'bbc-news', 'https://www.bbc.com/news', 8, 'BBC News--4', undefined],
    ],
  );
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines[0], `${src}:2: ques: ques is missing`);
  assert.match(lines[1] ?? '', new RegExp(`^${src.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4: json: not valid JSON`));
  assert.equal(lines[2], `owrl tasks import: 2 tasks from ${src} (webvoyager, JSON Lines); 2 records not converted`);

  // The output is a valid task file.
  const out = path.join(path.dirname(src), 'wv.jsonl');
  const w = await owrl('tasks', 'import', '--format', 'webvoyager', src, '--out', out, '--suite', 'wv', '--difficulty', '12');
  assert.equal(w.code, 1);
  assert.equal(w.stdout, '');
  const v = await owrl('tasks', 'validate', out);
  assert.deepEqual([v.code, v.stdout], [0, `${out}: 2 tasks OK\n`]);
});

void test('import: an Online-Mind2Web JSON array converts with exit 0; bad flags exit 2', async () => {
  const src = await tmpFile(
    'Online_Mind2Web.json',
    JSON.stringify(
      [
        { task_id: 'a1b2', confirmed_task: 'Find the opening hours of the nearest library to zip code 10001.', website: 'https://www.nypl.org/', reference_length: 5, level: 'easy' },
        { task_id: 'c3d4', confirmed_task: 'Show used bicycles under $300.', website: 'https://www.example-bikes.com/', reference_length: 11, level: 'hard' },
      ],
      null,
      4,
    ),
  );
  const r = await owrl('tasks', 'import', '--format', 'mind2web', src);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    parseTaskFile(r.stdout).map((t) => [t.id, t.difficulty, t.family, t.metadata['level'], t.metadata['source']]),
    [
      ['mind2web/a1b2', 5, 'nypl.org', 'easy', 'Online-Mind2Web'],
      ['mind2web/c3d4', 11, 'example-bikes.com', 'hard', 'Online-Mind2Web'],
    ],
  );
  assert.equal(r.stderr, `owrl tasks import: 2 tasks from ${src} (mind2web, JSON array)\n`);
  // The wrong format names the fields it misses and suggests the right one.
  const wrong = await owrl('tasks', 'import', '--format', 'webvoyager', src);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /:2: id: id is missing \(the record has task_id, confirmed_task, website: is this --format mind2web\?\)/);

  for (const [args, re] of [
    [['tasks', 'import', src], /--format is required/],
    [['tasks', 'import', '--format', 'webarena', src], /--format "webarena" must be webvoyager or mind2web/],
    [['tasks', 'import', '--format', 'mind2web'], /needs exactly one FILE, got 0/],
    [['tasks', 'import', '--format', 'mind2web', src, '--difficulty', '0'], /--difficulty must be an integer >= 1/],
    [['tasks', 'import', '--format', 'mind2web', src, '--out', src], /is the input file/],
  ] as const) {
    const b = await owrl(...args);
    assert.equal(b.code, 2, `${args.join(' ')}: ${b.stderr}`);
    assert.match(b.stderr, re);
  }
  const missing = await owrl('tasks', 'import', '--format', 'mind2web', path.join(path.dirname(src), 'nope.json'));
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /nope\.json: cannot read/);
});
