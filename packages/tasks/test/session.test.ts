// withSession: query parameter handling and id validation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskError, withSession } from '../src/index.js';

void test('withSession sets owrl_session and keeps the rest of the URL', () => {
  assert.equal(withSession('http://127.0.0.1:8400/shop/', 'abc'), 'http://127.0.0.1:8400/shop/?owrl_session=abc');
  const u = new URL(withSession('http://h/shop/search?q=mug&owrl_session=old#top', 'run1/3/2/0/1'));
  assert.equal(u.searchParams.get('q'), 'mug');
  assert.equal(u.searchParams.get('owrl_session'), 'run1/3/2/0/1');
  assert.equal(u.hash, '#top');
});

void test('withSession rejects bad ids and URLs', () => {
  assert.throws(() => withSession('http://h/', ''), TaskError);
  assert.throws(() => withSession('http://h/', 'a b'), /session id "a b"/);
  assert.throws(() => withSession('http://h/', 'x'.repeat(201)), TaskError);
  assert.throws(() => withSession('not a url', 'abc'), /start_url "not a url" is not a URL/);
});
