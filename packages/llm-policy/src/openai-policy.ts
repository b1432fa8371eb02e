// The `openai` policy backend: a vision-language model behind any OpenAI-compatible chat
// endpoint (vLLM, SGLang, a hosted API) deciding each step in OpenWebRL's agent format. Renders
// the request, calls the server (retries inside the client), parses the reply into reasoning and
// tool calls, and records the step's token trace. A length cut-off or a prompt past the context
// is a GENERATION_LIMIT, an unparseable reply a parse error (3 in a row: FORMAT_ERROR, counted by
// the environment), an unreachable server a PolicyUnavailableError (never a reward). Both a cut-off
// and an unparseable reply keep their tokens with a loss mask of zeros: they are not trained on.
// A vLLM or SGLang answer without completion ids, prompt ids or log-probs (a release or flag
// missing) ends the episode `engine_incompatible`, which ends the run at its first step
// (trace-checks.ts); a hosted API (engine openai) never has them: its steps stay incomplete, for
// evaluation. OWRL_POLICY_LOGPROBS=false asks for none and checks none.
import { noopMeter, REASON_ENGINE_INCOMPATIBLE, Secret, silentLogger, type Logger, type Meter, type Rng } from '@owrl/core';
import { PolicyUnavailableError, type Policy, type PolicyDecision, type PolicyInput } from '@owrl/policy';
import { servedNameProblem } from './adapter-naming.js';
import { readReply, type ChatRequest } from './chat-types.js';
import { ChatClient, type ChatOutcome } from './chat-client.js';
import { LlmPolicyError, LlmPolicyErrorCode } from './errors.js';
import { PolicyMetrics } from './policy-metrics.js';
import { imageRef } from './image-ref.js';
import { DEFAULT_RENDER_OPTIONS, renderChatRequest, requestImages, type RenderOptions } from './prompt-render.js';
import { parseReply } from './reply-parse.js';
import { DEFAULT_SAMPLER, defaultLogprobMode, samplerProblem, samplerTrace, type LogprobMode, type SamplerSettings } from './sampling.js';
import { describeFailed, traceChecks } from './trace-checks.js';
import { emptyTokenTrace, maskAll, tokensPolicyTrace, tokenTrace, type TraceContext } from './token-trace.js';

export const OPENAI_POLICY_KIND = 'openai';

export interface OpenAIPolicyOptions extends Partial<Omit<RenderOptions, 'model' | 'adapter' | 'sampler'>>, Partial<SamplerSettings> {
  /** API base URL, e.g. http://vllm:8000/v1. */
  baseUrl: string;
  /** The model the engine serves, as it names it (the base model of the adapters). */
  model: string;
  /** The LoRA adapter of this policy version (its serve_name, e.g. "owrl-v12"); none: the model itself. */
  adapter?: string;
  /** Which log-probs the engine reports (default: the engine's own default, sampling.ts). */
  logprobMode?: LogprobMode;
  /** Sent as `Authorization: Bearer <key>`; never logged. */
  apiKey?: Secret | string;
  /** Policy version the decisions belong to. */
  version?: bigint;
  /** Deadline of one HTTP attempt, ms (default 30 000). */
  timeoutMs?: number;
  /** Attempts after the first for server errors and timeouts (default 2). */
  retries?: number;
  /** First retry backoff, ms (default 500; doubles, capped at maxBackoffMs = 8000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** After a "max_tokens too large" refusal, retry with the room left when it is at least this (default 64). */
  minCompletionTokens?: number;
  logger?: Logger;
  meter?: Meter;
}

/** Where a step's time went on the policy's side (the server's compute is inside requestMs). */
export interface OpenAIPolicyStats {
  steps: number;
  renderMs: number;
  requestMs: number;
  parseMs: number;
  attempts: number;
  parseErrors: number;
  generationLimits: number;
}

export class OpenAIPolicy implements Policy {
  readonly kind = OPENAI_POLICY_KIND;
  readonly version: bigint;
  readonly needsScreenshot: boolean;
  readonly render: RenderOptions;
  readonly logprobMode: LogprobMode;
  private readonly client: ChatClient;
  private readonly log: Logger;
  private readonly minCompletion: number;
  private readonly metrics: PolicyMetrics;
  private released = false;
  readonly stats: OpenAIPolicyStats = { steps: 0, renderMs: 0, requestMs: 0, parseMs: 0, attempts: 0, parseErrors: 0, generationLimits: 0 };

  /** @throws LlmPolicyError LLM_POLICY_INVALID_CONFIG naming the option and value. */
  constructor(opts: OpenAIPolicyOptions) {
    const bad = (msg: string) => new LlmPolicyError(LlmPolicyErrorCode.InvalidConfig, msg);
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw bad(`baseUrl ${JSON.stringify(opts.baseUrl)} is not a URL (e.g. http://vllm:8000/v1)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad(`baseUrl ${JSON.stringify(opts.baseUrl)} must be http(s)`);
    if (url.username !== '' || url.password !== '') throw bad('baseUrl must not carry credentials: give the API key as apiKey');
    if (opts.model.trim() === '') throw bad('model is empty: name the served model');
    const sampler: SamplerSettings = { ...DEFAULT_SAMPLER, ...definedSampler(opts) };
    const render: RenderOptions = { ...DEFAULT_RENDER_OPTIONS, ...definedOnly(opts), model: opts.model, sampler, ...(opts.adapter ? { adapter: opts.adapter } : {}) };
    const nameIssue = servedNameProblem(render.engine, opts.model);
    if (nameIssue) throw bad(nameIssue);
    this.logprobMode = opts.logprobMode ?? defaultLogprobMode(render.engine);
    const samplerIssue = samplerProblem(sampler, render.engine, this.logprobMode);
    if (samplerIssue) throw bad(samplerIssue);
    if (!Number.isInteger(render.screenshots) || render.screenshots < 0) throw bad(`screenshots=${render.screenshots} must be an integer >= 0`);
    if (render.coords.kind === 'relative' && !(render.coords.scale > 0)) throw bad(`coordinate scale ${render.coords.scale} must be > 0`);
    if (render.maxTokens !== undefined && (!Number.isInteger(render.maxTokens) || render.maxTokens < 1)) throw bad(`maxTokens=${render.maxTokens} must be an integer >= 1`);
    this.render = render;
    this.version = opts.version ?? 0n;
    this.needsScreenshot = render.screenshots > 0;
    this.log = opts.logger ?? silentLogger;
    this.minCompletion = opts.minCompletionTokens ?? 64;
    this.metrics = new PolicyMetrics(opts.meter ?? noopMeter);
    const apiKey = typeof opts.apiKey === 'string' ? new Secret(opts.apiKey) : opts.apiKey;
    this.client = new ChatClient({
      baseUrl: url.toString(),
      timeoutMs: opts.timeoutMs ?? 30_000,
      retries: opts.retries ?? 2,
      backoffMs: opts.backoffMs ?? 500,
      maxBackoffMs: opts.maxBackoffMs ?? 8000,
      logger: this.log,
      ...(apiKey?.isSet ? { apiKey } : {}),
    });
  }

  /** The chat-completions URL this policy posts to. */
  get endpoint(): string {
    return this.client.endpoint;
  }

  async decide(input: PolicyInput, signal?: AbortSignal, rng?: Rng): Promise<PolicyDecision> {
    if (this.released) throw new LlmPolicyError(LlmPolicyErrorCode.InvalidInput, 'the policy was released');
    const t0 = performance.now();
    const seed = rng ? Math.floor(rng() * 2 ** 31) : undefined;
    let req: ChatRequest = renderChatRequest(input, this.render, seed);
    const images = requestImages(input, this.render).map(imageRef);
    const ctx = (r: ChatRequest): TraceContext => ({ model: r.model, images, sampler: samplerTrace(this.render.sampler, this.render.engine, this.logprobMode, r) });
    const t1 = performance.now();
    this.stats.renderMs += t1 - t0;
    this.stats.steps++;
    let out: ChatOutcome = await this.request(req, signal);
    if (out.kind === 'context_overflow') {
      const { limit, input: used, room } = out.overflow;
      if (room !== undefined && room >= this.minCompletion && req.max_tokens !== undefined && room < req.max_tokens) {
        // vLLM and SGLang refuse max_tokens past the context instead of clamping it: ask once for what is left
        this.log.debug({ limit, prompt: used, maxTokens: room }, 'completion budget clamped to the context left');
        req = { ...req, max_tokens: room };
        out = await this.request(req, signal);
      }
    }
    const t2 = performance.now();
    if (out.kind === 'context_overflow') {
      this.stats.generationLimits++;
      this.metrics.reply('context_overflow');
      return {
        reasoning: '',
        calls: [],
        raw: '',
        generationLimit: true,
        limitReason: 'context_overflow',
        trace: tokensPolicyTrace(emptyTokenTrace('context_overflow', ctx(req))),
      };
    }
    // a hosted API never returns token ids: its steps are for evaluation, left incomplete
    if (this.render.logprobs && this.render.engine !== 'openai') this.checkTokens(out);
    const reply = readReply(out.choice);
    const tokens = tokenTrace(out.body, out.choice, ctx(req));
    const trace = tokensPolicyTrace(tokens);
    const parsed = parseReply(reply, { coords: this.render.coords, viewport: input.observation.viewport });
    this.stats.parseMs += performance.now() - t2;
    const completion = tokens.tokenIds.length;
    if (completion > 0) this.metrics.completionTokens.observe(completion);
    if (reply.finishReason === 'length') {
      this.stats.generationLimits++;
      this.metrics.reply('generation_limit');
      maskAll(tokens);
      return { reasoning: parsed.reasoning, calls: [], raw: parsed.text, generationLimit: true, limitReason: 'generation_limit', trace };
    }
    if (parsed.error !== undefined) {
      this.stats.parseErrors++;
      this.metrics.reply('parse_error');
      maskAll(tokens);
      return { reasoning: parsed.reasoning, calls: [], raw: parsed.text, parseError: true, parseErrorDetail: parsed.error, trace };
    }
    this.metrics.reply('calls');
    return { reasoning: parsed.reasoning, calls: parsed.calls, raw: parsed.text, trace };
  }

  /**
   * An answer without what a token trace needs ends the episode `engine_incompatible`: the
   * learner ends the run at the first such result, naming what to change.
   * @throws PolicyUnavailableError reason engine_incompatible.
   */
  private checkTokens(out: Extract<ChatOutcome, { kind: 'ok' }>): void {
    const checks = traceChecks(this.render.engine, out.body, out.choice);
    if (checks.every((c) => c.ok)) return;
    this.metrics.reply(REASON_ENGINE_INCOMPATIBLE);
    throw new PolicyUnavailableError(`the ${this.render.engine} engine at ${this.client.endpoint} cannot record token-level traces: ${describeFailed(checks)}`, { reason: REASON_ENGINE_INCOMPATIBLE });
  }

  private async request(req: ChatRequest, signal: AbortSignal | undefined): Promise<ChatOutcome> {
    const t = performance.now();
    try {
      const out = await this.client.complete(req, signal);
      this.stats.attempts += out.attempts;
      this.metrics.request(out.kind === 'ok' ? 'ok' : 'context_overflow', out.attempts, performance.now() - t);
      return out;
    } catch (e) {
      this.metrics.request(outcomeOf(e), 0, performance.now() - t);
      throw e;
    } finally {
      this.stats.requestMs += performance.now() - t;
    }
  }

  release(): Promise<void> {
    this.released = true;
    return Promise.resolve();
  }
}

function outcomeOf(e: unknown): string {
  const reason = (e as { reason?: unknown }).reason;
  if (typeof reason === 'string') return reason === 'policy_rejected' ? 'rejected' : 'unavailable';
  return (e as { code?: unknown }).code === 'POLICY_ABORTED' ? 'aborted' : 'error';
}

function definedOnly(o: OpenAIPolicyOptions): Partial<RenderOptions> {
  const keys: Array<keyof Omit<RenderOptions, 'model' | 'adapter' | 'sampler'>> = ['historyMode', 'screenshots', 'coords', 'toolsIn', 'maxElements', 'engine', 'logprobs', 'maxTokens'];
  const out: Record<string, unknown> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out as Partial<RenderOptions>;
}

function definedSampler(o: OpenAIPolicyOptions): Partial<SamplerSettings> {
  const out: Partial<SamplerSettings> = {};
  for (const k of Object.keys(DEFAULT_SAMPLER) as Array<keyof SamplerSettings>) {
    const v = o[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}
