// OWRL_INIT_POLICY: an initial pointer-policy artifact (e.g. the warm-up's) is checked with the
// settings, before the learner starts: readable, an ONNX pointer policy, of the learner's dimension.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '@owrl/core';
import { DEFAULT_DIM, PointerModel } from '@owrl/policy';
import { loadLearnerConfig } from '../src/config.js';

const base = { OWRL_SITES_URL: 'http://127.0.0.1:1' };

void test('a pointer-policy artifact of the right dimension is accepted; anything else names OWRL_INIT_POLICY', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-init-policy-'));
  try {
    const good = path.join(dir, 'warm.onnx');
    const m = new PointerModel({ dim: DEFAULT_DIM });
    m.weights[3] = 0.5;
    fs.writeFileSync(good, m.toOnnx());
    assert.equal(loadLearnerConfig({ ...base, OWRL_INIT_POLICY: good }).initPolicy, good);
    assert.equal(loadLearnerConfig(base).initPolicy, '');

    const small = path.join(dir, 'small.onnx');
    fs.writeFileSync(small, new PointerModel({ dim: 8 }).toOnnx());
    const junk = path.join(dir, 'junk.onnx');
    fs.writeFileSync(junk, 'not a model');
    const cases: [string, RegExp][] = [
      [path.join(dir, 'missing.onnx'), /cannot read it/],
      [junk, /is not a pointer-policy ONNX artifact/],
      [small, new RegExp(`feature dimension 8; the learner's is ${DEFAULT_DIM}`)],
    ];
    for (const [file, re] of cases) {
      assert.throws(
        () => loadLearnerConfig({ ...base, OWRL_INIT_POLICY: file }),
        (e: unknown) => e instanceof ConfigError && e.variable === 'OWRL_INIT_POLICY' && re.test(e.message),
        file,
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
