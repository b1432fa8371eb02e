import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCandidates, matchCandidate } from '../src/index.js';
import { categoryPage, homePage } from './fixtures.js';

void describe('matchCandidate', () => {
  const home = buildCandidates({ instruction: 'Search for "Blue Ceramic Mug" and report its SKU.', observation: homePage(), history: [], step: 0, maxSteps: 15 });

  void it('maps a demonstrator\'s click-on-field + write (+ Enter) onto the write candidates', () => {
    const enter = matchCandidate(home, [
      { name: 'click', args: { element_id: 2 } },
      { name: 'write', args: { message: 'Blue Ceramic Mug' } },
      { name: 'press_keys', args: { keys: ['Enter'] } },
    ]);
    assert.equal(home[enter]?.kind, 'write_enter');
    assert.match(home[enter]?.label ?? '', /#2/);
    const plain = matchCandidate(home, [{ name: 'click', args: { element_id: 2 } }, { name: 'write', args: { message: '  blue ceramic MUG' } }]);
    assert.equal(home[plain]?.kind, 'write');
  });

  void it('maps clicks by element id, scrolls by direction and answers after normalisation', () => {
    assert.equal(home[matchCandidate(home, [{ name: 'click', args: { element_id: 3 } }])]?.label, 'click #3 "Search"');
    assert.equal(home[matchCandidate(home, [{ name: 'done', args: { response: 'ok' } }])]?.label, 'done (finish)');
    const cat = buildCandidates({ instruction: 'What is the price of "Red Teapot"?', observation: categoryPage(), history: [], step: 0, maxSteps: 15 });
    assert.equal(cat[matchCandidate(cat, [{ name: 'done', args: { response: '$30.00' } }])]?.label, 'done "$30.00"');
  });

  void it('returns -1 for what no candidate does', () => {
    assert.equal(matchCandidate(home, [{ name: 'click', args: { element_id: 2 } }, { name: 'write', args: { message: 'not in the instruction' } }]), -1);
    assert.equal(matchCandidate(home, [{ name: 'click', args: { element_id: 99 } }]), -1);
    assert.equal(matchCandidate(home, [{ name: 'go_back', args: {} }]), -1, 'no back candidate on the first step');
    assert.equal(matchCandidate(home, []), -1);
  });
});
