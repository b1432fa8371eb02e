// test-run: alone (the language-model loop across processes on a real model, three runs)
// The whole owrl loop on a real model: real nats-server, bundled sites, the learner with
// OWRL_TRAINER pointing at owrl's reference PyTorch trainer (python3 -m owrl_torch.serve, gRPC),
// the judge, and an actor with the `openai` backend against the Python engine double serving the
// same tiny chat model over vLLM's API (python3 -m owrl_torch.engine_double), with real Chromium.
// Each update's LoRA adapter is loaded into the engine by the actor before its requests name it.
// Asserted from the trainer's stored answers (TrainResult.off_policy) and the engine's counts:
// (a) log-prob parity: every trained token sampled at its update's base version has the engine's
//     behaviour log-prob within 1e-4 of the trainer's recomputation, and a run where the engine
//     reports raw log-probs while the actors say processed at temperature 0.7 fails that check;
// (b) learning: every update raised the log-prob of the positive-advantage completions, and a run
//     with learning rate 0 fails that check;
// (c) one adapter load per version, in order, and the versions requests named never went back.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { learningCheck, logprobParity, startTorchLoop, torchUnavailable, versionCheck, type TorchLoopOptions } from '@owrl/testkit';

const skip = torchUnavailable();
const SMALL: TorchLoopOptions = { rounds: 3 };

/** Runs a loop to its end; the trainer's answers, the engine's counts and the final version. */
async function runLoop(opts: TorchLoopOptions) {
  await using loop = await startTorchLoop(opts);
  const state = await loop.finished(8 * 60_000);
  const results = loop.results();
  const stats = await loop.engineStats();
  return { state, results, stats, finalVersion: Number(state.policyVersion) };
}

void test('torch loop: engine/trainer log-prob parity within 1e-4, learning, one adapter load per version', { skip, timeout: 10 * 60_000 }, async (t) => {
  const run = await runLoop(SMALL);
  const trained = run.state.rounds.filter((r) => r.groupsKept > 0).length;
  assert.ok(trained >= 1, `no round kept a group: ${JSON.stringify(run.state.rounds.map((r) => [r.groupsKept, r.groupsDroppedAllZero, r.groupsDroppedAllOne]))}`);
  assert.equal(run.results.length, run.finalVersion, 'one stored answer per version');
  assert.equal(run.finalVersion, trained, 'one version per round that kept a group');

  const parity = logprobParity(run.results);
  t.diagnostic(`log-prob parity over ${parity.tokens} tokens: max ${parity.maxAbs.toExponential(3)}, mean ${parity.meanAbs.toExponential(3)}; per update ${JSON.stringify(parity.perUpdate)}`);
  assert.ok(parity.ok, parity.problem);
  for (const r of run.results) {
    const first = r.epochs[0];
    assert.ok(first !== undefined && Math.abs(first.meanRatio - 1) < 1e-3, `v${r.version}: first epoch mean ratio ${first?.meanRatio} (on-policy: 1)`);
  }

  const learning = learningCheck(run.results);
  t.diagnostic(`positive-advantage log-prob gain per update: ${learning.gains.map((g) => g.toFixed(4)).join(', ')} (mean ${learning.meanGain.toFixed(4)})`);
  assert.ok(learning.ok, learning.problem);

  const versions = versionCheck(run.stats, run.results);
  t.diagnostic(`adapter loads ${JSON.stringify(versions.loads)}; versions named by requests ${versions.requestVersions.join(',')}`);
  assert.ok(versions.ok, versions.problem);
  assert.ok(versions.requestVersions.includes(run.finalVersion - 1) || run.finalVersion === 0, 'requests ran on a trained version');
});

// the two broken runs are independent: they run side by side
void describe('torch loop: the checks fail on broken runs', { concurrency: 2 }, () => {
  void test('a log-prob mode the trainer is not told (engine raw, actors say processed at temperature 0.7) fails the parity check', { skip, timeout: 10 * 60_000 }, async (t) => {
    const run = await runLoop({ ...SMALL, rounds: 2, engineLogprobsMode: 'raw_logprobs', policyLogprobsMode: 'processed', temperature: 0.7 });
    assert.ok(run.results.length >= 1, 'the mismatched run trained at least once');
    const parity = logprobParity(run.results);
    t.diagnostic(`mismatched run: max gap ${parity.maxAbs}, mean ${parity.meanAbs} over ${parity.tokens} tokens`);
    assert.equal(parity.ok, false, 'the parity check must fail on the mismatched run');
    assert.match(parity.problem ?? '', /gap/);
  });

  void test('with learning rate 0 the learning check fails', { skip, timeout: 10 * 60_000 }, async (t) => {
    const run = await runLoop({ ...SMALL, rounds: 2, lr: 0 });
    assert.ok(run.results.length >= 1, 'the lr-0 run trained at least once');
    const learning = learningCheck(run.results);
    t.diagnostic(`lr 0: gains ${JSON.stringify(learning.gains)}`);
    assert.equal(learning.ok, false, 'the learning check must fail with learning rate 0');
    // the rest of the loop is sound: parity holds and every version was loaded once
    assert.ok(logprobParity(run.results).ok);
    assert.ok(versionCheck(run.stats, run.results).ok);
  });
});
