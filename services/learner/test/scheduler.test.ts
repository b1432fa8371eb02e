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
  assert.deepEqual(s.openLevels(), [1, 2, 3]);
  s.record('c', 0);
  assert.deepEqual(s.openLevels(), [1, 2, 3]);
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
