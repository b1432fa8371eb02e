// Termination reasons defined once: each reason's classes and fault are coherent, the sets other
// packages derive match the lists they used to spell out by hand, and host-failure causes and
// outcome keys follow from them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FORMAT_ZERO_CLASSES,
  HTTP_STATUS_REASONS,
  INFRASTRUCTURE_CLASSES,
  NET_REASONS,
  TERMINATION_REASONS,
  TRAINABLE_CLASSES,
  hostFailureCause,
  isTerminationReason,
  outcomeFault,
  outcomeKey,
  parseOutcomeKey,
  reasonInfo,
  reasonsWithFault,
  type ReasonInfo,
} from '../src/index.js';

void test('every reason has classes coherent with its fault', () => {
  for (const [reason, info] of Object.entries(TERMINATION_REASONS) as Array<[string, ReasonInfo]>) {
    assert.ok(info.classes.length > 0 && info.description.length > 0, reason);
    assert.match(reason, /^[a-z0-9_]+$/, 'wire-readable snake_case');
    if (info.fault === 'policy') assert.ok(info.classes.every((c) => TRAINABLE_CLASSES.has(c)), reason);
    else assert.ok(info.classes.every((c) => INFRASTRUCTURE_CLASSES.has(c)), reason);
    if (info.fault === 'ours') assert.deepEqual(info.classes, ['SANDBOX_ERROR'], reason);
  }
  assert.deepEqual([...INFRASTRUCTURE_CLASSES], ['ENV_ERROR', 'SANDBOX_ERROR', 'INIT_ERROR']);
  assert.deepEqual([...FORMAT_ZERO_CLASSES].sort(), ['FORMAT_ERROR', 'GENERATION_LIMIT']);
  for (const r of [...NET_REASONS, ...HTTP_STATUS_REASONS]) assert.ok(isTerminationReason(r), r);
  assert.equal(isTerminationReason('toString'), false, 'own keys only');
  assert.equal(isTerminationReason('something_new'), false);
  assert.equal(reasonInfo('something_new').fault, 'uncertain');
});

void test("the site's reasons are the ones the learner counted at ENV_ERROR before (hand list)", () => {
  const handList = [
    'bot_wall',
    'dns',
    'connection_refused',
    'connection_reset',
    'connection_closed',
    'http2_protocol_error',
    'quic_protocol_error',
    'tls',
    'invalid_response',
    'too_many_redirects',
    'http_5xx',
    'http_403',
    'rate_limited',
  ];
  assert.deepEqual(reasonsWithFault('site').sort(), [...handList].sort());
  assert.deepEqual(reasonsWithFault('task').sort(), ['bad_url', 'blocked_url']);
  assert.deepEqual(reasonsWithFault('skip').sort(), ['host_blacklisted', 'policy_behind']);
});

void test('host failure causes and outcome keys', () => {
  const cases: Array<[string, string, string | null]> = [
    ['INIT_ERROR', 'dns', 'init_error:dns'],
    ['INIT_ERROR', 'timeout', 'init_error:timeout'],
    ['INIT_ERROR', 'http_4xx', 'init_error:http_4xx'],
    ['INIT_ERROR', 'brand_new_code', 'init_error:brand_new_code'],
    ['INIT_ERROR', '', 'init_error:unknown'],
    ['INIT_ERROR', 'host_blacklisted', null],
    ['INIT_ERROR', 'policy_behind', null],
    ['INIT_ERROR', 'bad_url', null],
    ['ENV_ERROR', 'bot_wall', 'bot_wall'],
    ['INIT_ERROR', 'bot_wall', 'bot_wall'],
    ['ENV_ERROR', 'http_403', 'env_error:http_403'],
    ['ENV_ERROR', 'timeout', null],
    ['ENV_ERROR', 'page_crash', null],
    ['ENV_ERROR', 'brand_new_code', null],
    ['SANDBOX_ERROR', 'bot_wall', null],
    ['SANDBOX_ERROR', 'aborted', null],
    ['COMPLETED', 'done', null],
  ];
  for (const [cls, reason, cause] of cases) assert.equal(hostFailureCause(cls, reason), cause, `${cls} ${reason}`);
  assert.equal(outcomeFault('SANDBOX_ERROR', 'aborted'), 'ours');
  assert.equal(outcomeFault('ENV_ERROR', 'aborted'), 'uncertain');
  assert.equal(outcomeFault('FORMAT_ERROR', 'format_error'), 'policy');
  assert.equal(outcomeKey('INIT_ERROR', 'dns'), 'init_error:dns');
  assert.equal(outcomeKey('SANDBOX_ERROR', ''), 'sandbox_error:unspecified');
  assert.deepEqual(parseOutcomeKey('env_error:http_5xx'), { cls: 'ENV_ERROR', reason: 'http_5xx' });
  assert.deepEqual(parseOutcomeKey('init_error:a:b'), { cls: 'INIT_ERROR', reason: 'a:b' });
  assert.equal(parseOutcomeKey('judge:verifier_unavailable'), null);
  assert.equal(parseOutcomeKey('nocolon'), null);
});
