import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type HistoryEntry } from '@owrl/core';
import { DEFAULT_DIM, FINISH_RESPONSE, buildCandidates, parseInstruction, answerShape, pageType } from '../src/index.js';
import { categoryPage, homePage, productPage } from './fixtures.js';

function labels(cs: { label: string }[]): string[] {
  return cs.map((c) => c.label);
}

void describe('buildCandidates', () => {
  void it('offers clicks, numeric writes, scroll, answers and finish on a product page', () => {
    const cs = buildCandidates({ instruction: 'Add 2 of "Blue Ceramic Mug" to the cart.', observation: productPage(), history: [], step: 0, maxSteps: 15 });
    const ls = labels(cs);
    // Clicks: in-viewport elements first, the off-screen link last.
    assert.deepEqual(
      cs.filter((c) => c.kind === 'click').map((c) => c.calls[0]?.args['element_id']),
      [1, 2, 3, 5, 6],
    );
    // The number field only gets the instruction's number, with and without Enter.
    const writes = cs.filter((c) => c.kind === 'write' || c.kind === 'write_enter');
    assert.equal(writes.length, 2);
    assert.deepEqual(writes[0]?.calls, [{ name: 'write', args: { element_id: 4, message: '2' } }]);
    assert.deepEqual(writes[1]?.calls, [
      { name: 'write', args: { element_id: 4, message: '2' } },
      { name: 'press_keys', args: { keys: ['Enter'] } },
    ]);
    assert.ok(ls.includes('scroll down'));
    assert.ok(!cs.some((c) => c.kind === 'back'), 'no go_back at step 0');
    const answers = cs.filter((c) => c.kind === 'done').map((c) => c.calls[0]?.args['response']);
    assert.ok(answers.includes('KT-4821'), `SKU answer missing: ${answers.join(', ')}`);
    assert.ok(answers.includes('$12.50'));
    assert.ok(answers.includes('Blue Ceramic Mug'));
    assert.equal(answers[answers.length - 1], FINISH_RESPONSE);
    assert.equal(new Set(answers).size, answers.length, 'answers are deduplicated');
  });

  void it('writes quoted phrases into a search box, skips selects, and offers go_back after step 0', () => {
    const history: HistoryEntry[] = [{ step: 0, reasoning: 'x', calls: [], effects: [], url: 'http://127.0.0.1:8400/shop/c/kitchen' }];
    const cs = buildCandidates({ instruction: 'Search for "Blue Ceramic Mug" and report its SKU.', observation: homePage(), history, step: 1, maxSteps: 15 });
    const ls = labels(cs);
    assert.ok(ls.includes('write "Blue Ceramic Mug" into #2 "Search products"'), ls.join('\n'));
    assert.ok(ls.includes('write "Blue Ceramic Mug" into #2 "Search products" + Enter'));
    assert.ok(!cs.some((c) => c.calls.some((k) => k.args['element_id'] === 4)), 'select is neither clicked nor written');
    assert.ok(cs.some((c) => c.kind === 'back'));
    assert.ok(!ls.includes('scroll down'), 'no scroll when the page does not scroll');
  });

  void it('offers only the answers next to the named product on a listing', () => {
    const cs = buildCandidates({ instruction: 'What is the price of "Red Teapot"?', observation: categoryPage(), history: [], step: 0, maxSteps: 15 });
    const answers = cs.filter((c) => c.kind === 'done').map((c) => c.calls[0]?.args['response']);
    assert.deepEqual(answers, ['$30.00', FINISH_RESPONSE]);
    const all = buildCandidates({ instruction: 'What is the price of "Red Teapot"?', observation: categoryPage(), history: [], step: 0, maxSteps: 15 }, { allAnswers: true });
    assert.equal(all.filter((c) => c.kind === 'done').length, 4);
  });

  void it('is deterministic, with sorted unique in-range feature indices', () => {
    const input = { instruction: 'What is the SKU of "Blue Ceramic Mug"?', observation: productPage(), history: [], step: 2, maxSteps: 15 };
    const a = buildCandidates(input);
    const b = buildCandidates(structuredClone(input));
    assert.deepEqual(labels(a), labels(b));
    a.forEach((c, i) => {
      assert.deepEqual(c.features.index, b[i]?.features.index);
      assert.deepEqual(c.features.value, b[i]?.features.value);
      assert.ok(c.features.index.length > 0);
      for (let k = 1; k < c.features.index.length; k++) assert.ok((c.features.index[k] ?? 0) > (c.features.index[k - 1] ?? 0));
      for (const j of c.features.index) assert.ok(j < DEFAULT_DIM);
      for (const v of c.features.value) assert.ok(Number.isFinite(v) && v !== 0);
    });
    const small = buildCandidates(input, { dim: 97 });
    for (const c of small) for (const j of c.features.index) assert.ok(j < 97);
  });

  void it('gives different candidates different features', () => {
    const cs = buildCandidates({ instruction: 'Add "Blue Ceramic Mug" to the cart.', observation: productPage(), history: [], step: 1, maxSteps: 15 });
    const keys = cs.map((c) => Array.from(c.features.index).join(',') + '|' + Array.from(c.features.value).join(','));
    assert.equal(new Set(keys).size, keys.length);
  });
});

void describe('text helpers', () => {
  void it('parses quoted phrases, numbers and keywords', () => {
    const p = parseInstruction('Add 2 of “Blue Ceramic Mug” to the cart.');
    assert.deepEqual(p.quoted, ['Blue Ceramic Mug']);
    assert.deepEqual(p.numbers, ['2']);
    assert.deepEqual(p.keywords, ['add', '#num', 'cart']);
    assert.equal(p.intent, '!do');
    assert.equal(parseInstruction('What is the SKU of "X"?').intent, '?ask');
  });
  void it('classifies answer shapes and page types', () => {
    assert.equal(answerShape('$1,299.50'), 'price');
    assert.equal(answerShape('KT-4821'), 'code');
    assert.equal(answerShape('42'), 'number');
    assert.equal(answerShape('Blue Ceramic Mug'), 'short');
    assert.equal(pageType('http://h:1/shop/p/blue-mug'), '/shop/p');
    assert.equal(pageType('http://h:1/item/123/x'), '/item/#');
    assert.equal(pageType('http://h:1/'), '/');
  });
});
