// The language-model loop across processes, for the tests and the llm-loop bench: a real
// nats-server, the bundled sites, the learner with OWRL_TRAINER pointing at the stand-in GPU
// trainer (startFakeTrainer, gRPC over a real socket), the judge, and actors with the `openai`
// backend against the stand-in vLLM or SGLang server (startChatServer, with Qwen3-VL's generation
// config), which also loads the trainer's LoRA adapters and records which adapter served each
// request. The tasks are one-step answer tasks on a bundled site ("answer with the word W"),
// verified by answer match; the stand-in answers each task right on its 1st, 3rd, 5th… request and
// wrong in between, so groups carry mixed rewards and are kept. `collectScored` reads every scored
// trajectory of the run from OWRL_SCORED (what the judge published, independent of the learner).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RunPhase, type RunState, type ScoredTrajectory } from '@owrl/proto';
import { startChatServer, type ChatEngine, type ChatServerDouble } from './chat-server.js';
import { startFakeTrainer, type FakeTrainerDouble } from './fake-trainer.js';
import { readRunScored } from './run-scored.js';
import { startLoopServices, writeWordTasks } from './word-tasks.js';
import { startSystem, type OwrlSystem } from './system.js';

export interface LlmLoopOptions {
  rounds?: number;
  groupSize?: number;
  groupsPerRound?: number;
  actors?: number;
  slots?: number;
  /** Tasks in the pool (one word each). */
  tasks?: number;
  /** `openai` (default): the loop above. `pointer`: the same tasks with the built-in policy trained in process (the baseline). */
  policy?: 'openai' | 'pointer';
  /** The serving engine the stand-in plays (default vllm). */
  engine?: ChatEngine;
  /** Extra environment of every service. */
  env?: Record<string, string>;
  keepLogs?: boolean;
}

export interface LlmLoop extends AsyncDisposable {
  sys: OwrlSystem;
  /** The stand-in model server (null for the pointer baseline). */
  chat: ChatServerDouble | null;
  /** The stand-in trainer (null for the pointer baseline). */
  trainer: FakeTrainerDouble | null;
  baseModel: string;
  /** Waits for the run to finish; the final run state. */
  finished(timeoutMs?: number): Promise<RunState>;
  /** Every scored trajectory of the run on OWRL_SCORED, in stream order. */
  collectScored(): Promise<ScoredTrajectory[]>;
  dispose(): Promise<void>;
}

/** Qwen3-VL's generation_config.json sampling fields: what an engine uses for the fields a request leaves out. */
export const QWEN3_VL_GENERATION_CONFIG = { temperature: 0.7, top_p: 0.8, top_k: 20, repetition_penalty: 1.0 };

/** How the requests that ran were served: by the adapter (or base model) they name, or by another. */
export function adapterServing(chat: ChatServerDouble): { requests: number; servedByNamed: number; share: number; adapterRequests: number } {
  const ran = chat.requests.filter((r) => r.servedBy !== null);
  const ok = ran.filter((r) => r.servedBy === r.named).length;
  return { requests: ran.length, servedByNamed: ok, share: ran.length > 0 ? ok / ran.length : 0, adapterRequests: ran.filter((r) => r.named !== chat.baseModel).length };
}

const INSTRUCTION = /Answer with the single word ([a-z]+) /;
export const LLM_LOOP_BASE_MODEL = 'Qwen/Qwen3-VL-4B-Instruct';

/** Starts the loop; the run is under way when this resolves. */
export async function startLlmLoop(opts: LlmLoopOptions = {}): Promise<LlmLoop> {
  const policy = opts.policy ?? 'openai';
  const seen = new Map<string, number>();
  const chat =
    policy === 'openai'
      ? await startChatServer({
          engine: opts.engine ?? 'vllm',
          baseModel: LLM_LOOP_BASE_MODEL,
          generationConfig: QWEN3_VL_GENERATION_CONFIG,
          fallback: (req) => {
            const word = INSTRUCTION.exec(JSON.stringify(req.body['messages']))?.[1] ?? 'nothing';
            const k = seen.get(word) ?? 0;
            seen.set(word, k + 1);
            const answer = k % 2 === 0 ? word : `not-${word}`;
            return { reasoning: `The task asks for the word ${word}.`, content: 'I answer now.', toolCalls: [{ name: 'done', arguments: { response: answer } }] };
          },
        })
      : null;
  const sysDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-llm-loop-'));
  const trainer = policy === 'openai' ? await startFakeTrainer({ dir: path.join(sysDir, 'adapters'), baseModel: LLM_LOOP_BASE_MODEL }) : null;
  const tasksFile = path.join(sysDir, 'tasks.jsonl');
  const rounds = opts.rounds ?? 2;
  const sys = await startSystem({
    actors: opts.actors ?? 1,
    slots: opts.slots ?? 3,
    logDir: path.join(sysDir, 'logs'),
    keepLogs: opts.keepLogs ?? false,
    autostart: { learner: false, judge: false, actors: false },
    ...(opts.env ? { env: opts.env } : {}),
    learnerEnv: {
      OWRL_TASKS_FILE: tasksFile,
      OWRL_ROUNDS: String(rounds),
      OWRL_GROUP_SIZE: String(opts.groupSize ?? 3),
      OWRL_GROUPS_PER_ROUND: String(opts.groupsPerRound ?? 2),
      OWRL_MAX_GROUPS_PER_ROUND: String((opts.groupsPerRound ?? 2) * 2),
      OWRL_CURRICULUM: `${rounds}:3`,
      OWRL_ROUND_TIMEOUT_S: '300',
      ...(trainer ? { OWRL_TRAINER: trainer.address } : {}),
    },
    actorEnv: chat
      ? { OWRL_POLICY: 'openai', OWRL_POLICY_BASE_URL: chat.url, OWRL_POLICY_MODEL: LLM_LOOP_BASE_MODEL, OWRL_POLICY_ENGINE: chat.engine, OWRL_POLICY_RETRIES: '1' }
      : {},
  });
  try {
    await writeWordTasks(sys, tasksFile, opts.tasks ?? 6);
    startLoopServices(sys);
  } catch (e) {
    await sys.dispose();
    await chat?.close();
    await trainer?.close();
    throw e;
  }

  const loop: LlmLoop = {
    sys,
    chat,
    trainer,
    baseModel: LLM_LOOP_BASE_MODEL,
    finished: (timeoutMs = 600_000) => sys.waitForPhase(RunPhase.FINISHED, { timeoutMs }),
    collectScored: () => readRunScored(sys),
    dispose: async () => {
      await sys.dispose();
      await chat?.close();
      await trainer?.close();
      if (!opts.keepLogs) fs.rmSync(sysDir, { recursive: true, force: true });
    },
    [Symbol.asyncDispose]: () => loop.dispose(),
  };
  return loop;
}
