import { test } from 'node:test';
import assert from 'node:assert/strict';
import { make, AnswerMatchSchema } from '@owrl/proto';
import { containsToken, matchAnswer, normalizeAnswer } from '@owrl/judge-core';

const m = (accepted: string[], normalize = true, contains = false) => make(AnswerMatchSchema, { accepted, normalize, contains });

void test('normalizeAnswer: case, whitespace, currency, thousands, trailing punctuation, quotes', () => {
  assert.equal(normalizeAnswer('  Hello   World  '), 'hello world');
  assert.equal(normalizeAnswer('$1,299.00'), '1299.00');
  assert.equal(normalizeAnswer('€ 12'), '12');
  assert.equal(normalizeAnswer('1 299 £'), '1299');
  assert.equal(normalizeAnswer('1,234,567'), '1234567');
  assert.equal(normalizeAnswer('12,50'), '12,50', 'a decimal comma is not a thousands separator');
  assert.equal(normalizeAnswer('The answer is Blue.'), 'the answer is blue');
  assert.equal(normalizeAnswer('"Blue!?"'), 'blue');
  assert.equal(normalizeAnswer('ＡＢＣ'), 'abc', 'NFKC folds full-width letters');
  assert.equal(normalizeAnswer('v1.2'), 'v1.2', 'inner dots stay');
});

void test('matchAnswer with normalize: equal forms and numeric equality', () => {
  assert.equal(matchAnswer(m(['$1,299.00']), '1299').status, 'pass');
  assert.equal(matchAnswer(m(['12.5']), 'about $12.50').status, 'fail', 'not contains mode');
  assert.equal(matchAnswer(m(['12.5']), '$12.50.').status, 'pass');
  assert.equal(matchAnswer(m(['Paris']), '  paris. ').status, 'pass');
  assert.equal(matchAnswer(m(['Paris', 'London']), 'london').status, 'pass');
  assert.equal(matchAnswer(m(['Paris']), 'Parisian').status, 'fail');
  assert.equal(matchAnswer(m(['12']), '13').status, 'fail');
  assert.equal(matchAnswer(m(['12']), '').status, 'fail');
});

void test('matchAnswer without normalize is exact apart from surrounding whitespace', () => {
  assert.equal(matchAnswer(m(['Paris'], false), ' Paris\n').status, 'pass');
  assert.equal(matchAnswer(m(['Paris'], false), 'paris').status, 'fail');
  assert.equal(matchAnswer(m(['$12'], false), '12').status, 'fail');
  assert.equal(matchAnswer(m(['Par'], false, true), 'Paris').status, 'pass', 'raw contains is a substring test');
});

void test('matchAnswer contains: whole tokens only, numbers not split', () => {
  assert.equal(matchAnswer(m(['$1,299'], true, true), 'The total is USD 1299 today').status, 'pass');
  assert.equal(matchAnswer(m(['blue'], true, true), 'It is BLUE.').status, 'pass');
  assert.equal(matchAnswer(m(['blue'], true, true), 'bluetooth').status, 'fail');
  assert.equal(matchAnswer(m(['12'], true, true), 'it costs $120').status, 'fail');
  assert.equal(matchAnswer(m(['12'], true, true), 'it costs $12.50').status, 'fail');
  assert.equal(matchAnswer(m(['12'], true, true), 'it costs $12, tax included').status, 'pass');
  assert.equal(matchAnswer(m(['0.5'], true, true), 'ratio 10.5').status, 'fail');
  assert.equal(matchAnswer(m(['12.0'], true, true), '12').status, 'pass', 'equality still counts in contains mode');
});

void test('containsToken boundaries', () => {
  assert.equal(containsToken('new york city', 'new york'), true);
  assert.equal(containsToken('renew york', 'new york'), false);
  assert.equal(containsToken('abc', ''), false);
  assert.equal(containsToken('x 12x 12', '12'), true, 'a later occurrence can match');
});

void test('an AnswerMatch with no usable accepted string is an invalid verifier, not a failure', () => {
  const r = matchAnswer(m(['', '  ']), 'anything');
  assert.equal(r.status, 'unavailable');
  assert.equal(r.status === 'unavailable' ? r.reason : '', 'judge:invalid_verifier');
});
