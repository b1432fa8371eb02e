import { test } from 'node:test';
import assert from 'node:assert/strict';
import { make, TaskSchema } from '@owrl/proto';
import { TaskScheduler } from '../src/scheduler.js';

const mk = (id: string, difficulty: number, host = '127.0.0.1:8400') => make(TaskSchema, { id, difficulty, startUrl: `http://${host}/shop/`, instruction: id });

void test('only the first levels are open until the easier ones are mastered', () => {
  const tasks = [mk('a', 1), mk('b', 2), mk('c', 3), mk('d', 4)];
  const s = new TaskScheduler(tasks, { initialLevels: 2, unlockAt: 0.5 });
  assert.deepEqual(s.openLevels(), [1, 2]);
  assert.ok(s.pick(20).every((t) => t.difficulty <= 2));
  for (let i = 0; i < 5; i++) s.record('b', 1);
  assert.deepEqual(s.openLevels(), [1, 2], 'level 1 has not reached the rate yet');
  s.record('a', 1);
  s.record('a', 0);
  s.record('a', 0);
  assert.deepEqual(s.openLevels(), [1, 2], 'level 1 at 1/3');
  s.record('a', 1);
  assert.deepEqual(s.openLevels(), [1, 2, 3], 'levels 1 (2/4) and 2 (5/5) reached 0.5');
  s.record('c', 0);
  assert.deepEqual(s.openLevels(), [1, 2, 3], 'level 3 is at 0: level 4 stays closed');
  for (let i = 0; i < 2; i++) s.record('c', 1);
  assert.deepEqual(s.openLevels(), [1, 2, 3, 4], 'level 3 at 2/3');
  for (let i = 0; i < 3; i++) s.record('a', 0);
  assert.deepEqual(s.openLevels(), [1, 2], 'level 1 fell to 2/7: every level above 2 closes again');
});

void test('blacklisted hosts are never picked', () => {
  const tasks = [mk('a', 1, 'good:1'), mk('b', 1, 'bad:1')];
  const s = new TaskScheduler(tasks);
  const picked = s.pick(10, (h) => h === 'bad:1');
  assert.equal(picked.length, 10);
  assert.ok(picked.every((t) => t.id === 'a'));
  assert.deepEqual(s.pick(3, () => true), []);
});

void test('tasks with a mixed recent record are favoured', () => {
  const tasks = [mk('mixed', 1), mk('solved', 1), mk('hopeless', 1)];
  const s = new TaskScheduler(tasks, { seed: 3, informativeWeight: 8 });
  for (let i = 0; i < 4; i++) {
    s.record('mixed', i % 2);
    s.record('solved', 1);
    s.record('hopeless', 0);
  }
  const counts = new Map<string, number>();
  for (let i = 0; i < 300; i++) for (const t of s.pick(1)) counts.set(t.id, (counts.get(t.id) ?? 0) + 1);
  assert.ok((counts.get('mixed') ?? 0) > 2 * (counts.get('solved') ?? 0), JSON.stringify([...counts]));
  assert.ok((counts.get('mixed') ?? 0) > 2 * (counts.get('hopeless') ?? 0));
  assert.throws(() => new TaskScheduler([]), /task pool is empty/);
});

void test('suites of a mixed pool take turns, so every site gets its share of groups', () => {
  const tasks = [
    ...Array.from({ length: 12 }, (_, i) => make(TaskSchema, { id: `shop/${i}`, suite: 'shop', difficulty: 1, startUrl: 'http://h:1/shop/', instruction: 'x' })),
    ...Array.from({ length: 3 }, (_, i) => make(TaskSchema, { id: `wiki/${i}`, suite: 'wiki', difficulty: 1, startUrl: 'http://h:1/wiki/', instruction: 'x' })),
    make(TaskSchema, { id: 'mail/0', suite: 'mail', difficulty: 1, startUrl: 'http://h:1/mail/', instruction: 'x' }),
  ];
  const s = new TaskScheduler(tasks, { seed: 5 });
  const count = (picked: ReturnType<TaskScheduler['pick']>) => {
    const c: Record<string, number> = {};
    for (const t of picked) c[t.suite] = (c[t.suite] ?? 0) + 1;
    return c;
  };
  // 3 suites, 6 groups: two each, although the shop holds 12 of the 16 tasks.
  assert.deepEqual(count(s.pick(6)), { mail: 2, shop: 2, wiki: 2 });
  // One group per round: the suites rotate instead of the first one always winning.
  const firsts = [0, 1, 2, 3, 4, 5].map(() => s.pick(1)[0]?.suite);
  assert.deepEqual(new Set(firsts.slice(0, 3)), new Set(['mail', 'shop', 'wiki']));
  assert.deepEqual(firsts.slice(3), firsts.slice(0, 3));
});

void test('a pick asks the blacklist once per host, however many tasks share it', () => {
  const tasks = Array.from({ length: 40 }, (_, i) => mk(`t${i}`, 1 + (i % 2), `site-${i % 4}:1`));
  const s = new TaskScheduler(tasks, { seed: 7 });
  const asked: string[] = [];
  const picked = s.pick(12, (h) => {
    asked.push(h);
    return h === 'site-3:1';
  });
  assert.deepEqual([...asked].sort(), ['site-0:1', 'site-1:1', 'site-2:1', 'site-3:1']);
  assert.equal(picked.length, 12);
  assert.equal(new Set(picked.map((t) => t.id)).size, 12, 'distinct while the pool allows');
  assert.ok(picked.every((t) => !t.startUrl.includes('site-3')));
});
