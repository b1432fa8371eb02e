// Decoding of KV JSON values: what the writers write decodes; anything else is refused naming the
// bucket, key, revision and field (hand-written values below, not produced by the code under test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BusErrorCode, decodeActorRecord, decodeBlacklistEntry, isBusError } from '../src/index.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const at = { bucket: 'owrl_blacklist', key: 'host_x', revision: 7 };

void test('blacklist entries decode field by field', () => {
  assert.deepEqual(decodeBlacklistEntry(at, bytes('{"reason":"bot_wall","failures":5,"untilMs":1700000000000,"extra":1}')), { reason: 'bot_wall', failures: 5, untilMs: 1700000000000 });
  const cases: Array<[string, string]> = [
    ['not json', 'owrl_blacklist/host_x revision 7: "not json" is not JSON'],
    ['[1,2]', 'owrl_blacklist/host_x revision 7: "[1,2]" is not a JSON object'],
    ['{"failures":1,"untilMs":1}', 'owrl_blacklist/host_x revision 7: reason=missing must be a non-empty string'],
    ['{"reason":"x","failures":1.5,"untilMs":1}', 'owrl_blacklist/host_x revision 7: failures=1.5 must be an integer >= 0'],
    ['{"reason":"x","failures":-1,"untilMs":1}', 'owrl_blacklist/host_x revision 7: failures=-1 must be an integer >= 0'],
    ['{"reason":"x","failures":1,"untilMs":"soon"}', 'owrl_blacklist/host_x revision 7: untilMs="soon" must be a finite number'],
  ];
  for (const [value, message] of cases) {
    assert.throws(
      () => decodeBlacklistEntry(at, bytes(value)),
      (e: unknown) => isBusError(e, BusErrorCode.Undecodable) && e.message.startsWith(message),
      value,
    );
  }
});

void test('actor heartbeats decode field by field; the id is the key', () => {
  const o = { bucket: 'owrl_actors', key: 'actor-1', revision: 3 };
  assert.deepEqual(decodeActorRecord(o, 'actor-1', bytes('{"actorId":"spoofed","slots":4,"busy":1,"policyVersion":7,"rssBytes":5e8,"episodes":10,"updatedAtMs":42}')), {
    actorId: 'actor-1',
    slots: 4,
    busy: 1,
    policyVersion: 7,
    rssBytes: 5e8,
    episodes: 10,
    updatedAtMs: 42,
  });
  assert.throws(
    () => decodeActorRecord(o, 'actor-1', bytes('{"slots":4,"busy":"1","policyVersion":7,"rssBytes":1,"episodes":1,"updatedAtMs":1}')),
    (e: unknown) => isBusError(e, BusErrorCode.Undecodable) && e.message === 'owrl_actors/actor-1 revision 3: busy="1" must be an integer >= 0',
  );
  assert.throws(
    () => decodeActorRecord(o, 'actor-1', bytes('{"slots":4,"busy":1,"policyVersion":7,"rssBytes":1,"episodes":1}')),
    (e: unknown) => isBusError(e, BusErrorCode.Undecodable) && e.message === 'owrl_actors/actor-1 revision 3: updatedAtMs=missing must be a finite number',
  );
});
