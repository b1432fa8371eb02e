import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PointerModel, toCsr } from '@owrl/policy';
import { Adam, GrpoTrainer, type PointerTraceLike } from '../src/index.js';

// One decision between two candidates with disjoint features; choosing candidate 1 is rewarded.
function step(model: PointerModel, chosen: number): PointerTraceLike {
  const csr = toCsr([
    { index: Uint32Array.of(0), value: Float32Array.of(1) },
    { index: Uint32Array.of(1), value: Float32Array.of(1) },
  ]);
  return { ...csr, chosen, logprob: model.logProbs(csr)[chosen] ?? 0, temperature: model.temperature };
}

void describe('GrpoTrainer', () => {
  void it('drops equal-reward groups and leaves the weights alone', () => {
    const m = new PointerModel({ dim: 4 });
    const t = new GrpoTrainer(m, new Adam(4));
    const s = t.update([
      { rewards: [0, 0], trajectories: [{ steps: [step(m, 0)] }, { steps: [step(m, 1)] }] },
      { rewards: [1, 1], trajectories: [{ steps: [step(m, 0)] }, { steps: [step(m, 1)] }] },
    ]);
    assert.equal(s.updated, false);
    assert.deepEqual(s.fates, { kept: 0, dropped_all_zero: 1, dropped_all_one: 1, dropped_all_equal: 0 });
    assert.deepEqual(Array.from(m.weights), [0, 0, 0, 0]);
  });

  void it('raises the probability of rewarded actions, over every step of a trajectory', () => {
    const m = new PointerModel({ dim: 4 });
    const t = new GrpoTrainer(m, new Adam(4, { lr: 0.1 }), { epochs: 2, minibatches: 1 });
    for (let round = 0; round < 5; round++) {
      const s = t.update([{ rewards: [1, 0, 0], trajectories: [{ steps: [step(m, 1), step(m, 1)] }, { steps: [step(m, 0)] }, { steps: [step(m, 0), step(m, 1)] }] }]);
      assert.equal(s.updated, true);
      assert.equal(s.actions, 5);
      assert.equal(s.epochs.length, 2);
      assert.ok(Math.abs(s.epochs[0]?.approxKl ?? 1) < 1e-12, 'first epoch is on-policy');
    }
    const p1 = Math.exp(m.logProbs(toCsr([{ index: Uint32Array.of(0), value: Float32Array.of(1) }, { index: Uint32Array.of(1), value: Float32Array.of(1) }]))[1] ?? 0);
    assert.ok(p1 > 0.8, `p(rewarded) = ${p1}`);
  });

  void it('reports per-epoch health: the first epoch of an on-policy update has mean ratio 1 and KL 0', () => {
    const m = new PointerModel({ dim: 4 });
    const t = new GrpoTrainer(m, new Adam(4, { lr: 0.1 }), { epochs: 3, minibatches: 1, trustKl: 0 });
    const s = t.update([{ rewards: [1, 0, 0], trajectories: [{ steps: [step(m, 1), step(m, 1)] }, { steps: [step(m, 0)] }, { steps: [step(m, 0), step(m, 1)] }] }]);
    assert.deepEqual(s.epochs.map((e) => e.epoch), [1, 2, 3]);
    const [e1, e2] = s.epochs;
    assert.ok(e1 && e2);
    assert.ok(Math.abs(e1.meanRatio - 1) < 1e-12, `mean ratio ${e1.meanRatio}`);
    assert.ok(Math.abs(e1.approxKl) < 1e-12);
    assert.equal(e1.clipFraction, 0);
    assert.ok(e1.gradNorm > 0);
    assert.equal(e1.actions, 5);
    assert.equal(e1.learningRate, 0.1, 'no trust region: the full Adam step');
    // The policy moved: the second epoch sees ratios away from 1 and a positive KL, equal to the
    // first epoch's KL after its step.
    assert.ok(e2.approxKl > 1e-4, `kl ${e2.approxKl}`);
    assert.ok(Math.abs(e2.approxKl - e1.approxKlAfter) < 1e-9);
    assert.notEqual(e2.meanRatio, 1);
  });

  void it('keeps every step inside the KL trust region by halving it', () => {
    const groups = (m: PointerModel) => [
      { rewards: [1, 0, 0, 1], trajectories: [{ steps: [step(m, 1), step(m, 1)] }, { steps: [step(m, 0)] }, { steps: [step(m, 0), step(m, 0)] }, { steps: [step(m, 1)] }] },
    ];
    // An overshooting learning rate: without the rule one step goes far beyond the clip range.
    const free = new PointerModel({ dim: 4 });
    const f = new GrpoTrainer(free, new Adam(4, { lr: 2 }), { epochs: 2, minibatches: 1, trustKl: 0 }).update(groups(free));
    assert.ok((f.epochs[0]?.approxKlAfter ?? 0) > 0.2, `unbounded step: kl ${f.epochs[0]?.approxKlAfter}`);
    assert.ok((f.epochs[1]?.clipFraction ?? 0) > 0.4, `unbounded step clips ${f.epochs[1]?.clipFraction}`);

    const m = new PointerModel({ dim: 4 });
    const s = new GrpoTrainer(m, new Adam(4, { lr: 2 }), { epochs: 2, minibatches: 1, trustKl: 0.01 }).update(groups(m));
    for (const e of s.epochs) {
      assert.ok(e.approxKlAfter <= 0.01 + 1e-12, `epoch ${e.epoch}: kl after ${e.approxKlAfter}`);
      assert.ok(e.learningRate <= 2 && e.learningRate === 2 * e.stepScale);
    }
    assert.ok((s.epochs[0]?.backtracks ?? 0) > 0 && (s.epochs[0]?.stepScale ?? 1) < 1);
    assert.ok((s.epochs[0]?.approxKlAfter ?? 0) > 0, 'the shortened step still moves the policy');
    assert.equal(s.epochs[1]?.clipFraction, 0, 'the last epoch starts inside the clip range');
  });

  void it("deals whole groups into minibatches with deal 'group'", () => {
    // Two groups on disjoint features (group A: 0/1, group B: 2/3). Dealt by trajectory, the second
    // minibatch holds a trajectory of group A, which the first step already moved (KL > 0 before its
    // step); dealt by group, the second minibatch is group B alone, untouched by the first step.
    const disjoint = (m: PointerModel, chosen: number, base: number): PointerTraceLike => {
      const csr = toCsr([
        { index: Uint32Array.of(base), value: Float32Array.of(1) },
        { index: Uint32Array.of(base + 1), value: Float32Array.of(1) },
      ]);
      return { ...csr, chosen, logprob: m.logProbs(csr)[chosen] ?? 0, temperature: m.temperature };
    };
    const groups = (m: PointerModel) => [
      { rewards: [1, 0], trajectories: [{ steps: [disjoint(m, 1, 0)] }, { steps: [disjoint(m, 0, 0)] }] },
      { rewards: [1, 0], trajectories: [{ steps: [disjoint(m, 1, 2)] }, { steps: [disjoint(m, 0, 2)] }] },
    ];
    const byTrajectory = new PointerModel({ dim: 4 });
    const t = new GrpoTrainer(byTrajectory, new Adam(4, { lr: 0.5 }), { epochs: 1, minibatches: 2, trustKl: 0 }).update(groups(byTrajectory));
    assert.ok((t.epochs[0]?.approxKl ?? 0) > 1e-3, `by trajectory: kl before the steps ${t.epochs[0]?.approxKl}`);
    const byGroup = new PointerModel({ dim: 4 });
    const g = new GrpoTrainer(byGroup, new Adam(4, { lr: 0.5 }), { epochs: 1, minibatches: 2, trustKl: 0, deal: 'group' }).update(groups(byGroup));
    assert.equal(g.epochs[0]?.approxKl, 0);
    assert.ok(Array.from(byGroup.weights).every((w) => w !== 0), 'both groups trained');
  });

  void it("keeps the whole update inside the trust region with trustScope 'batch'", () => {
    const traces = (m: PointerModel) => [step(m, 1), step(m, 1), step(m, 0), step(m, 0), step(m, 1), step(m, 0)];
    // KL(behaviour ‖ current) over the batch, by hand: mean of r − 1 − log r.
    const batchKl = (m: PointerModel, steps: PointerTraceLike[]) =>
      steps.reduce((a, s) => {
        const lr = (m.logProbs(s)[s.chosen] ?? 0) - s.logprob;
        return a + Math.exp(lr) - 1 - lr;
      }, 0) / steps.length;
    const run = (scope: 'minibatch' | 'batch') => {
      const m = new PointerModel({ dim: 4 });
      const steps = traces(m);
      const s = new GrpoTrainer(m, new Adam(4, { lr: 2 }), { epochs: 1, minibatches: 3, trustKl: 0.01, trustScope: scope }).update([
        { rewards: [1, 1, 0, 0, 1, 0], trajectories: steps.map((x) => ({ steps: [x] })) },
      ]);
      return { kl: batchKl(m, steps), stats: s.epochs[0] };
    };
    const perChunk = run('minibatch');
    assert.ok(perChunk.kl > 0.01, `minibatch scope lets the update add up past the region: ${perChunk.kl}`);
    const whole = run('batch');
    assert.ok(whole.kl <= 0.01 + 1e-9 && whole.kl > 0, `batch scope: kl ${whole.kl}`);
    assert.ok(Math.abs((whole.stats?.approxKlAfter ?? 0) - whole.kl) < 1e-9, 'approxKlAfter is the batch KL after the update');
  });

  void it('stretches a short step up to maxStepScale while it stays inside the region', () => {
    const run = (maxStepScale: number) => {
      const m = new PointerModel({ dim: 4 });
      return new GrpoTrainer(m, new Adam(4, { lr: 0.001 }), { epochs: 1, minibatches: 1, trustKl: 0.1, maxStepScale }).update([
        { rewards: [1, 0], trajectories: [{ steps: [step(m, 1)] }, { steps: [step(m, 0)] }] },
      ]).epochs[0];
    };
    const plain = run(1);
    assert.equal(plain?.stepScale, 1);
    const stretched = run(8);
    assert.equal(stretched?.stepScale, 8);
    assert.ok(Math.abs((stretched?.learningRate ?? 0) - 0.008) < 1e-12);
    assert.ok((stretched?.approxKlAfter ?? 1) <= 0.1 && (stretched?.approxKlAfter ?? 0) > (plain?.approxKlAfter ?? 1));
  });

  void it('rejects unknown deal and trust scope and a step stretch below 1', () => {
    const m = new PointerModel({ dim: 4 });
    assert.throws(() => new GrpoTrainer(m, new Adam(4), { deal: 'x' as 'group' }), /deal is x/);
    assert.throws(() => new GrpoTrainer(m, new Adam(4), { trustScope: 'x' as 'batch' }), /trustScope is x/);
    assert.throws(() => new GrpoTrainer(m, new Adam(4), { maxStepScale: 0.5 }), /maxStepScale is 0.5/);
  });

  void it("weighs each trajectory once with lossAgg 'seq_mean', each action once with 'token_mean'", () => {
    // A rewarded 1-step trajectory and an unrewarded 3-step one, both choosing candidate 1: per
    // action the unrewarded steps outvote the rewarded one; per trajectory they cancel.
    const w1 = (lossAgg: 'token_mean' | 'seq_mean'): number => {
      const m = new PointerModel({ dim: 4 });
      const t = new GrpoTrainer(m, new Adam(4, { lr: 0.1 }), { epochs: 1, minibatches: 1, trustKl: 0, lossAgg });
      const s = t.update([{ rewards: [1, 0], trajectories: [{ steps: [step(m, 1)] }, { steps: [step(m, 1), step(m, 1), step(m, 1)] }] }]);
      assert.equal(s.actions, 4);
      return m.weights[1] ?? NaN;
    };
    assert.ok(w1('token_mean') < -0.01, `token_mean w1 ${w1('token_mean')}`);
    assert.ok(Math.abs(w1('seq_mean')) < 1e-6, `seq_mean w1 ${w1('seq_mean')}`);
  });

  void it('skips the remaining epochs once one starts past klStop', () => {
    const m = new PointerModel({ dim: 4 });
    const t = new GrpoTrainer(m, new Adam(4, { lr: 0.1 }), { epochs: 5, minibatches: 1, trustKl: 0, klStop: 1e-9 });
    const s = t.update([{ rewards: [1, 0], trajectories: [{ steps: [step(m, 1)] }, { steps: [step(m, 0)] }] }]);
    // The first epoch starts on-policy (KL 0), the second past the bound: it is the last.
    assert.equal(s.epochs.length, 2);
    assert.ok((s.epochs[1]?.approxKl ?? 0) > 1e-9);
    assert.throws(() => new GrpoTrainer(m, new Adam(4), { klStop: -1 }), /klStop is -1/);
    assert.throws(() => new GrpoTrainer(m, new Adam(4), { lossAgg: 'median' as 'seq_mean' }), /lossAgg is median/);
  });

  void it('rejects a negative or non-finite trust region', () => {
    const m = new PointerModel({ dim: 4 });
    assert.throws(() => new GrpoTrainer(m, new Adam(4), { trustKl: -1 }), /trustKl is -1/);
    assert.throws(() => new GrpoTrainer(m, new Adam(4), { trustKl: Number.NaN }), /trustKl is NaN/);
  });

  void it('rejects groups whose rewards and trajectories disagree', () => {
    const m = new PointerModel({ dim: 4 });
    const t = new GrpoTrainer(m, new Adam(4));
    assert.throws(() => t.update([{ rewards: [1, 0], trajectories: [{ steps: [] }] }]), /groups\[0\] has 2 rewards but 1 trajectories/);
  });
});
