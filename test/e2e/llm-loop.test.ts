// test-run: alone (the language-model loop across processes, with their timeouts)
// The language-model loop across processes: real nats-server, bundled sites, the learner with
// OWRL_TRAINER pointing at a trainer over a real gRPC socket (the testkit's stand-in GPU trainer),
// the judge, and an actor with the `openai` backend against the stand-in vLLM and SGLang servers
// (each with Qwen3-VL's generation config), with real Chromium. Asserts that the trainer received
// exactly the kept groups — every sample's reward as the judge scored it, its advantage by the
// GRPO formula worked out here, its token ids as the model server sent them, its screenshots
// fetched from the learner — that each version was loaded into the engine once, before requests
// named it, that every request ran on the adapter of the version it named with owrl's sampler
// (none of the generation config's), and that trajectories record the version they ran with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTrajectoryId } from '@owrl/core';
import { TerminationClass, type ScoredTrajectory } from '@owrl/proto';
import { adapterServing, startLlmLoop } from '@owrl/testkit';

const TRAINABLE = new Set([TerminationClass.COMPLETED, TerminationClass.STEP_BUDGET_EXHAUSTED, TerminationClass.GENERATION_LIMIT, TerminationClass.FORMAT_ERROR]);

/** (r − mean) / (std + 1e-6), population std: the recipe's advantage, computed apart from owrl's code. */
function advantages(rewards: number[]): number[] {
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  const std = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / rewards.length);
  return rewards.map((r) => (r - mean) / (std + 1e-6));
}

for (const engine of ['sglang', 'vllm'] as const)
void test(`llm loop on ${engine}: the trainer gets exactly the kept groups (tokens, rewards, advantages, images), each version is loaded once and serves the requests naming it, trajectories name their version`, { timeout: 12 * 60_000 }, async () => {
  await using loop = await startLlmLoop({ rounds: 2, groupSize: 3, groupsPerRound: 2, actors: 1, slots: 3, engine });
  const chat = loop.chat!;
  const trainer = loop.trainer!;
  const state = await loop.finished(10 * 60_000);
  const scored = await loop.collectScored();

  // the learner trained once per round that kept a group, each time through the trainer
  const trainedRounds = state.rounds.filter((r) => r.groupsKept > 0);
  assert.ok(trainedRounds.length >= 1, `no round kept a group: ${JSON.stringify(state.rounds.map((r) => [r.groupsKept, r.groupsDroppedAllZero, r.groupsDroppedAllOne]))}`);
  assert.equal(Number(state.policyVersion), trainedRounds.length);
  assert.equal(trainer.updates.length, trainedRounds.length);
  assert.deepEqual(
    trainer.updates.map((u) => [u.header.baseVersion, u.header.targetVersion, u.groups.length]),
    trainedRounds.map((r, i) => [BigInt(i), BigInt(i + 1), r.groupsKept]),
  );

  // the kept groups, worked out from what the judge published: complete groups of trainable samples with mixed rewards
  const byGroup = new Map<string, ScoredTrajectory[]>();
  for (const s of scored) {
    const id = parseTrajectoryId(s.trajectoryId);
    if (!TRAINABLE.has(s.trajectory?.termination?.class ?? TerminationClass.UNSPECIFIED)) continue;
    const key = `${id.round}/${id.group}`;
    byGroup.set(key, [...(byGroup.get(key) ?? []), s]);
  }
  const kept = [...byGroup.entries()].filter(([, ss]) => ss.length === 3 && new Set(ss.map((s) => s.verdict?.reward)).size > 1).map(([k]) => k);
  const received = trainer.updates.flatMap((u) => u.groups.map((g) => `${g.round}/${g.group}`));
  assert.deepEqual([...received].sort(), [...kept].sort(), 'the trainer received exactly the kept groups');

  const sentTokens = new Set(chat.sent.map((c) => c.tokenIds.join(',')));
  const byId = new Map(scored.map((s) => [s.trajectoryId, s]));
  let steps = 0;
  for (const u of trainer.updates) {
    for (const g of u.groups) {
      const want = advantages(g.samples.map((s) => s.reward));
      g.samples.forEach((s, i) => {
        const judged = byId.get(s.trajectoryId);
        assert.ok(judged, `${s.trajectoryId} was never scored`);
        assert.equal(s.reward, judged.verdict?.reward, `${s.trajectoryId}: reward`);
        assert.ok(Math.abs(s.advantage - (want[i] ?? NaN)) < 1e-9, `${s.trajectoryId}: advantage ${s.advantage}, expected ${want[i]}`);
        assert.equal(s.policyVersion, judged.trajectory?.policyVersion);
        const judgedSteps = judged.trajectory?.steps ?? [];
        assert.equal(s.steps.length, judgedSteps.length);
        s.steps.forEach((st, j) => {
          const t = st.trace?.kind;
          const jt = judgedSteps[j]?.trace?.kind;
          assert.ok(t?.case === 'tokens' && jt?.case === 'tokens', `${s.trajectoryId} step ${j}: token traces`);
          assert.deepEqual(t.value.tokenIds, jt.value.tokenIds);
          assert.ok(t.value.tokenIds.length > 0 && t.value.promptTokenIds.length > 0);
          assert.equal(t.value.logprobs.length, t.value.tokenIds.length);
          assert.ok(sentTokens.has(t.value.tokenIds.join(',')), `${s.trajectoryId} step ${j}: tokens the model server never sent`);
          assert.equal(t.value.images.length, 1, 'the screenshot is referenced');
          assert.deepEqual([t.value.sampler?.temperature, t.value.sampler?.topP, t.value.sampler?.topK, t.value.sampler?.engine], [1, 1, -1, engine], 'the trace records the sampler');
          steps++;
        });
      });
    }
  }
  assert.ok(steps > 0);
  // the screenshots came from the learner, none refused
  for (const u of trainer.updates) {
    assert.ok(u.header.imageUrl.endsWith('/shots/'), `image_url ${u.header.imageUrl}`);
    assert.deepEqual([u.header.imagesMissing, u.refused], [0, []]);
    assert.ok((u.imagesFetched ?? 0) > 0);
  }

  // every request ran on the adapter (or base) it named, sampled as owrl set it, not by the generation config
  const serving = adapterServing(chat);
  assert.deepEqual([serving.share, serving.requests], [1, chat.sent.length], JSON.stringify(serving));
  assert.ok(serving.adapterRequests > 0, 'requests named adapters');
  assert.ok(chat.requests.every((r) => r.sampling.top_k === -1 && r.sampling.top_p === 1 && r.sampling.temperature === 1));

  // one adapter load per version, by the version's name, all accepted
  const loads = chat.weightCalls.filter((c) => c.path === (engine === 'vllm' ? '/v1/load_lora_adapter' : '/load_lora_adapter'));
  const versions = Array.from({ length: Number(state.policyVersion) }, (_, i) => `owrl-v${i + 1}`);
  assert.deepEqual(
    loads.map((c) => [c.body['lora_name'], c.status]),
    versions.map((v) => [v, 200]),
  );
  // every request named the base or a loaded adapter the way the engine resolves it, and trajectories record their version
  const named = (v: number) => (v === 0 ? loop.baseModel : engine === 'vllm' ? `owrl-v${v}` : `${loop.baseModel}:owrl-v${v}`);
  assert.ok(chat.requests.every((r) => r.model === loop.baseModel || r.model === named(Number(/owrl-v(\d+)$/.exec(r.model)?.[1] ?? -1))));
  for (const s of scored) {
    const v = Number(s.trajectory?.policyVersion ?? -1n);
    for (const st of s.trajectory?.steps ?? []) {
      if (st.trace?.kind.case === 'tokens') assert.equal(st.trace.kind.value.model, named(v), `${s.trajectoryId} ran version ${v}`);
    }
  }
});
