// llm-loop: the language-model loop across processes (learner → stand-in trainer over gRPC,
// actor with the openai backend → stand-in vLLM server, judge, real nats-server and Chromium;
// packages/testkit/src/llm-loop.ts), then the same tasks with the built-in pointer policy in
// process as the baseline. The per-step cost of the openai path is the actor's policy time per
// step (prompt rendering, the HTTP round trip, reply parsing, trace building) minus the stand-in
// server's own compute per request, minus the pointer policy's time per step.
//   npm run bench -- llm-loop [--rounds N]
import { startLlmLoop, type LlmLoop } from '@owrl/testkit';

function arg(args: string[], name: string, def: number): number {
  const i = args.indexOf(name);
  const v = i >= 0 ? Number(args[i + 1]) : def;
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`);
  return v;
}

/** Mean policy time per step over the run's scored trajectories, and the step count. */
async function policyMs(loop: LlmLoop): Promise<{ mean: number; steps: number }> {
  const scored = await loop.collectScored();
  const times = scored.flatMap((s) => (s.trajectory?.steps ?? []).map((st) => st.timing?.policyMs ?? NaN)).filter((t) => Number.isFinite(t));
  return { mean: times.reduce((a, b) => a + b, 0) / Math.max(1, times.length), steps: times.length };
}

export async function llmLoopBench(args: string[]): Promise<Record<string, unknown>> {
  const rounds = arg(args, '--rounds', 2);
  const opts = { rounds, groupSize: 3, groupsPerRound: 2, actors: 1, slots: 3 };

  process.stderr.write(`llm-loop: ${rounds} rounds with the openai backend against the stand-in server and trainer\n`);
  const t0 = Date.now();
  let openai: { mean: number; steps: number };
  let standinMs: number;
  let updates: number;
  let loads: number;
  let policyVersion: number;
  {
    await using loop = await startLlmLoop({ ...opts, policy: 'openai' });
    const state = await loop.finished();
    openai = await policyMs(loop);
    const chat = loop.chat!;
    standinMs = chat.computeMs / Math.max(1, chat.sent.length);
    updates = loop.trainer!.updates.length;
    loads = chat.weightCalls.filter((c) => c.path === '/v1/load_lora_adapter' && c.status === 200).length;
    policyVersion = Number(state.policyVersion);
  }
  const openaiWallS = (Date.now() - t0) / 1000;
  process.stderr.write(`llm-loop: openai ${openai.steps} steps, ${openai.mean.toFixed(2)} ms policy/step, stand-in ${standinMs.toFixed(2)} ms/request; ${updates} updates, ${loads} adapter loads (${openaiWallS.toFixed(0)} s)\n`);

  process.stderr.write('llm-loop: baseline, the same tasks with the in-process pointer policy\n');
  let pointer: { mean: number; steps: number };
  {
    await using loop = await startLlmLoop({ ...opts, policy: 'pointer' });
    await loop.finished();
    pointer = await policyMs(loop);
  }
  process.stderr.write(`llm-loop: pointer ${pointer.steps} steps, ${pointer.mean.toFixed(2)} ms policy/step\n`);
  const round2 = (x: number) => Math.round(x * 100) / 100;
  return {
    bench: 'llm-loop',
    rounds,
    trainer_updates: updates,
    adapter_loads: loads,
    overhead_ms_per_step: round2(openai.mean - standinMs - pointer.mean),
    policy_version: policyVersion,
    openai_policy_ms_per_step: round2(openai.mean),
    standin_ms_per_request: round2(standinMs),
    pointer_policy_ms_per_step: round2(pointer.mean),
    openai_steps: openai.steps,
    pointer_steps: pointer.steps,
    openai_wall_s: round2(openaiWallS),
  };
}
