import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lazyChild, type Logger, type LogLevelName } from '../src/index.js';

/** A logger that records the children it makes and the lines written, with `level` and above on. */
function recorder(level: LogLevelName): { logger: Logger; children: Array<Record<string, unknown>>; lines: unknown[][] } {
  const order: LogLevelName[] = ['debug', 'info', 'warn', 'error'];
  const children: Array<Record<string, unknown>> = [];
  const lines: unknown[][] = [];
  const make = (bound: Record<string, unknown>): Logger => {
    const at = (l: LogLevelName) => (obj: object, msg?: string) => {
      if (order.indexOf(l) >= order.indexOf(level)) lines.push([l, { ...bound, ...obj }, msg]);
    };
    return {
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      child: (b) => {
        children.push(b);
        return make({ ...bound, ...b });
      },
      isLevelEnabled: (l) => order.indexOf(l) >= order.indexOf(level),
    };
  };
  return { logger: make({}), children, lines };
}

void test('lazyChild makes the child on the first line written, never for a level that is off', () => {
  const r = recorder('warn');
  const log = lazyChild(r.logger, { trajectory: 't1' });
  log.info({ reward: 1 }, 'judged');
  log.debug({}, 'detail');
  assert.equal(r.children.length, 0, 'nothing written: no child made');
  log.warn({ code: 'x' }, 'slow');
  log.error({ code: 'y' });
  assert.deepEqual(r.children, [{ trajectory: 't1' }], 'made once');
  assert.deepEqual(r.lines, [
    ['warn', { trajectory: 't1', code: 'x' }, 'slow'],
    ['error', { trajectory: 't1', code: 'y' }, undefined],
  ]);
});

void test("a lazy child's child keeps both bindings; a parent without isLevelEnabled writes every level", () => {
  const r = recorder('debug');
  const inner = lazyChild(r.logger, { run: 'r' }).child({ trajectory: 't2' });
  assert.equal(r.children.length, 0);
  inner.debug({ n: 1 }, 'x');
  assert.deepEqual(r.lines, [['debug', { run: 'r', trajectory: 't2', n: 1 }, 'x']]);
  const plain = recorder('debug');
  const { isLevelEnabled: _levels, ...noLevels } = plain.logger;
  lazyChild(noLevels, { a: 1 }).debug({}, 'y');
  assert.deepEqual(plain.children, [{ a: 1 }]);
});
