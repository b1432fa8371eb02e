// The coded errors of browser-env, without a browser: each predicate matches its class and, when
// asked, its code, and refuses another error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OwrlError } from '@owrl/core';
import {
  BrowserEnvError,
  BrowserEnvErrorCode,
  findElement,
  isBrowserEnvError,
  isPlanError,
  isToolCallError,
  parseCall,
  PlanErrorCode,
  resolveOptions,
  ToolCallError,
  ToolCallErrorCode,
} from '../src/index.js';
import { EpisodeEnd, isEpisodeEnd } from '../src/errors.js';

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  assert.fail('expected a throw');
}

void test('isBrowserEnvError: a bad option is BROWSER_ENV_BAD_OPTION; another code or error is refused', () => {
  const e = thrown(() => resolveOptions({ maxEpisodesPerBrowser: 0 }));
  assert.ok(e instanceof OwrlError);
  assert.ok(isBrowserEnvError(e));
  assert.ok(isBrowserEnvError(e, BrowserEnvErrorCode.BadOption));
  assert.equal(e.code, 'BROWSER_ENV_BAD_OPTION');
  assert.equal(isBrowserEnvError(e, BrowserEnvErrorCode.PoolClosed), false);
  assert.equal(isBrowserEnvError(new ToolCallError('bad_args', 'x')), false);
  assert.equal(isBrowserEnvError(new OwrlError('BROWSER_ENV_BAD_OPTION', 'x')), false);
});

void test('isToolCallError: bad arguments are bad_args, the code the agent sees; another error is refused', () => {
  const e = thrown(() => parseCall({ name: 'click', args: {} }));
  assert.ok(isToolCallError(e));
  assert.ok(isToolCallError(e, ToolCallErrorCode.BadArgs));
  assert.equal(e.code, 'bad_args');
  assert.equal(isToolCallError(e, ToolCallErrorCode.UnknownTool), false);
  assert.ok(isToolCallError(new ToolCallError('dns', 'loading x failed'), 'dns'));
  assert.equal(isToolCallError(new BrowserEnvError(BrowserEnvErrorCode.BadSpec, 'x')), false);
});

void test('isPlanError: a target not on the page is PLAN_TARGET_NOT_FOUND; another error is refused', () => {
  const e = thrown(() => findElement([], { name: 'Checkout', role: 'button' }));
  assert.ok(isPlanError(e));
  assert.ok(isPlanError(e, PlanErrorCode.TargetNotFound));
  assert.equal(e.code, 'PLAN_TARGET_NOT_FOUND');
  assert.equal(isPlanError(new BrowserEnvError(BrowserEnvErrorCode.BadSpec, 'x')), false);
});

void test('isEpisodeEnd matches its class and termination reason, and refuses another error', () => {
  const end = new EpisodeEnd('ENV_ERROR', 'page_crash', 'the page crashed');
  assert.ok(isEpisodeEnd(end));
  assert.ok(isEpisodeEnd(end, 'page_crash'));
  assert.equal(isEpisodeEnd(end, 'context_crash'), false);
  assert.equal(isEpisodeEnd(new ToolCallError('timeout', 'x')), false);
});
