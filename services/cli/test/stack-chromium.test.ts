import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bundledSitesChromium, HEADLESS_SHELL } from '../src/stack.js';

void test('bundled sites: OWRL_CHROMIUM wins, else the headless shell when installed, else the actor default', () => {
  const none = (): boolean => false;
  const shell = (p: string): boolean => p === HEADLESS_SHELL;
  assert.equal(bundledSitesChromium({ OWRL_CHROMIUM: '/opt/chrome/chrome' }, shell), '/opt/chrome/chrome');
  assert.equal(bundledSitesChromium({}, shell), HEADLESS_SHELL);
  assert.equal(bundledSitesChromium({ OWRL_CHROMIUM: '' }, shell), HEADLESS_SHELL);
  assert.equal(bundledSitesChromium({}, none), undefined);
});
