// llm-loop: the language-model loop across processes (learner → stand-in trainer over gRPC,
// actor with the openai backend → stand-in vLLM or SGLang server with Qwen3-VL's generation
// config, judge, real nats-server and Chromium; packages/testkit/src/llm-loop.ts), per engine,
// then the same tasks with the built-in pointer policy in process as the baseline. Per engine:
// the share of requests served by the adapter (or base model) of the version they name (target
// 1.0: SGLang runs the base model for an adapter named any other way than it resolves), the
// requests that named an adapter, the share sampled as owrl set it (none of the generation
// config's fields), trainer updates, adapter loads and the images the trainer fetched from the
// learner. The per-step cost of the openai path is the actor's policy time per step (prompt
// rendering, the HTTP round trip, reply parsing, trace building) minus the stand-in server's own
// compute per request, minus the pointer policy's time per step.
//   npm run bench -- llm-loop [--rounds N] [--engine vllm|sglang] (default: both engines)
import { adapterServing, startLlmLoop, type LlmLoop } from '@owrl/testkit';

function arg(args: string[], name: string, def: number): number {
  const i = args.indexOf(name);
  const v = i >= 0 ? Number(args[i + 1]) : def;
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`);
  return v;
}

function engines(args: string[]): Array<'vllm' | 'sglang'> {
  const i = args.indexOf('--engine');
  if (i < 0) return ['vllm', 'sglang'];
  const v = args[i + 1];
  if (v !== 'vllm' && v !== 'sglang') throw new Error(`--engine must be vllm or sglang, got ${JSON.stringify(v)}`);
  return [v];
}

/** Mean policy time per step over the run's scored trajectories, and the step count. */
async function policyMs(loop: LlmLoop): Promise<{ mean: number; steps: number }> {
  const scored = await loop.collectScored();
  const times = scored.flatMap((s) => (s.trajectory?.steps ?? []).map((st) => st.timing?.policyMs ?? NaN)).filter((t) => Number.isFinite(t));
  return { mean: times.reduce((a, b) => a + b, 0) / Math.max(1, times.length), steps: times.length };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

interface EngineFigures {
  served_by_named_adapter_share: number;
  requests: number;
  adapter_requests: number;
  sampler_pinned_share: number;
  trainer_updates: number;
  adapter_loads: number;
  images_fetched: number;
  samples_refused: number;
  policy_version: number;
  openai_policy_ms_per_step: number;
  standin_ms_per_request: number;
  openai_steps: number;
  wall_s: number;
}

async function oneEngine(engine: 'vllm' | 'sglang', opts: { rounds: number; groupSize: number; groupsPerRound: number; actors: number; slots: number }): Promise<EngineFigures & { policyMean: number; standinMs: number }> {
  process.stderr.write(`llm-loop: ${opts.rounds} rounds with the openai backend against the stand-in ${engine} server and trainer\n`);
  const t0 = Date.now();
  await using loop = await startLlmLoop({ ...opts, policy: 'openai', engine });
  const state = await loop.finished();
  const p = await policyMs(loop);
  const chat = loop.chat!;
  const trainer = loop.trainer!;
  const serving = adapterServing(chat);
  const ran = chat.requests.filter((r) => r.servedBy !== null);
  const pinned = ran.filter((r) => r.sampling.temperature === 1 && r.sampling.top_p === 1 && r.sampling.top_k === -1 && r.sampling.min_p === 0 && r.sampling.repetition_penalty === 1).length;
  const loadPath = engine === 'vllm' ? '/v1/load_lora_adapter' : '/load_lora_adapter';
  const standinMs = chat.computeMs / Math.max(1, chat.sent.length);
  const f: EngineFigures = {
    served_by_named_adapter_share: round2(serving.share),
    requests: serving.requests,
    adapter_requests: serving.adapterRequests,
    sampler_pinned_share: round2(ran.length > 0 ? pinned / ran.length : 0),
    trainer_updates: trainer.updates.length,
    adapter_loads: chat.weightCalls.filter((c) => c.path === loadPath && c.status === 200).length,
    images_fetched: trainer.updates.reduce((n, u) => n + (u.imagesFetched ?? 0), 0),
    samples_refused: trainer.updates.reduce((n, u) => n + (u.refused?.length ?? 0), 0),
    policy_version: Number(state.policyVersion),
    openai_policy_ms_per_step: round2(p.mean),
    standin_ms_per_request: round2(standinMs),
    openai_steps: p.steps,
    wall_s: round2((Date.now() - t0) / 1000),
  };
  process.stderr.write(
    `llm-loop: ${engine}: ${f.requests} requests (${f.adapter_requests} naming an adapter), share served by the named adapter ${f.served_by_named_adapter_share}, sampler pinned ${f.sampler_pinned_share}; ${f.trainer_updates} updates, ${f.adapter_loads} adapter loads, ${f.images_fetched} images fetched; ${f.openai_policy_ms_per_step} ms policy/step (${f.wall_s} s)\n`,
  );
  return { ...f, policyMean: p.mean, standinMs };
}

export async function llmLoopBench(args: string[]): Promise<Record<string, unknown>> {
  const rounds = arg(args, '--rounds', 2);
  const opts = { rounds, groupSize: 3, groupsPerRound: 2, actors: 1, slots: 3 };
  const per: Record<string, EngineFigures> = {};
  const overhead: number[] = [];
  const measured: Array<{ policyMean: number; standinMs: number }> = [];
  for (const engine of engines(args)) {
    const { policyMean, standinMs, ...f } = await oneEngine(engine, opts);
    per[engine] = f;
    measured.push({ policyMean, standinMs });
  }

  process.stderr.write('llm-loop: baseline, the same tasks with the in-process pointer policy\n');
  let pointer: { mean: number; steps: number };
  {
    await using loop = await startLlmLoop({ ...opts, policy: 'pointer' });
    await loop.finished();
    pointer = await policyMs(loop);
  }
  process.stderr.write(`llm-loop: pointer ${pointer.steps} steps, ${pointer.mean.toFixed(2)} ms policy/step\n`);
  for (const m of measured) overhead.push(round2(m.policyMean - m.standinMs - pointer.mean));
  const shares = Object.values(per).map((f) => f.served_by_named_adapter_share);
  return {
    bench: 'llm-loop',
    rounds,
    engines: Object.keys(per),
    served_by_named_adapter_share_min: shares.length > 0 ? Math.min(...shares) : 0,
    ...Object.fromEntries(Object.entries(per).map(([e, f]) => [e, f])),
    overhead_ms_per_step: Object.fromEntries(Object.keys(per).map((e, i) => [e, overhead[i]])),
    pointer_policy_ms_per_step: round2(pointer.mean),
    pointer_steps: pointer.steps,
  };
}
