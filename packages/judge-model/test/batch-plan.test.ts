import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JudgeModelError, paddingWaste, planPasses } from '@owrl/judge-model';
import { mulberry32 } from '@owrl/core';

function covered(passes: ReturnType<typeof planPasses>, n: number): void {
  const seen = passes.flatMap((p) => p.rows).sort((a, b) => a - b);
  assert.deepEqual(seen, Array.from({ length: n }, (_, i) => i), 'every row in exactly one pass');
}

void test('passes hold rows of similar length, within the row and token limits, each row exactly once', () => {
  const rng = mulberry32(5);
  const lengths = Array.from({ length: 200 }, () => 50 + Math.floor(rng() * 3000));
  const shape = { maxRows: 16, tokenBudget: 12_000 };
  const passes = planPasses(lengths, shape);
  covered(passes, lengths.length);
  for (const p of passes) {
    const ls = p.rows.map((i) => lengths[i] ?? 0);
    const longest = Math.max(...ls);
    assert.ok(p.rows.length <= shape.maxRows);
    assert.ok(p.rows.length === 1 || p.rows.length * longest <= shape.tokenBudget, `pass of ${p.rows.length} × ${longest}`);
    assert.equal(p.paddedTokens, p.rows.length * longest);
    assert.equal(
      p.realTokens,
      ls.reduce((a, b) => a + b, 0),
    );
    assert.deepEqual(ls, [...ls].sort((a, b) => a - b), 'shortest first');
  }
  // Against the same passes cut in arrival order, ordering by length wastes far less.
  const real = lengths.reduce((a, b) => a + b, 0);
  const sortedPadded = passes.reduce((a, p) => a + p.paddedTokens, 0);
  let arrivalPadded = 0;
  for (let i = 0; i < lengths.length; i += 4) arrivalPadded += 4 * Math.max(...lengths.slice(i, i + 4));
  assert.ok(paddingWaste(real, sortedPadded) < 0.05, `waste ordered by length ${paddingWaste(real, sortedPadded)}`);
  assert.ok(paddingWaste(real, arrivalPadded) > 0.25, `waste in arrival order ${paddingWaste(real, arrivalPadded)}`);
});

void test('a row longer than the token budget runs alone; a budget smaller than two rows gives one row a pass', () => {
  const passes = planPasses([100, 5000, 120, 90], { maxRows: 8, tokenBudget: 1000 });
  covered(passes, 4);
  assert.deepEqual(
    passes.map((p) => p.rows),
    [[3, 0, 2], [1]],
  );
  assert.deepEqual(
    planPasses([10, 10, 10], { maxRows: 8, tokenBudget: 15 }).map((p) => p.rows),
    [[0], [1], [2]],
  );
  assert.deepEqual(planPasses([], { maxRows: 2, tokenBudget: 10 }), []);
});

void test('a shape that is not two positive integers is refused, naming the field', () => {
  assert.throws(() => planPasses([1], { maxRows: 0, tokenBudget: 10 }), (e: unknown) => e instanceof JudgeModelError && /maxRows must be a positive integer, got 0/.test(e.message));
  assert.throws(() => planPasses([1], { maxRows: 2, tokenBudget: 1.5 }), /tokenBudget must be a positive integer, got 1.5/);
  assert.equal(paddingWaste(0, 0), 0);
});
