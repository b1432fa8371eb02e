// The `openai` policy backend: a vision-language model behind any OpenAI-compatible chat
// endpoint (vLLM, SGLang, a hosted API) deciding each step in OpenWebRL's agent format. Renders
// the request, calls the server (retries inside the client), parses the reply into reasoning and
// tool calls, and records the step's token trace. A length cut-off or a prompt past the context
// is a GENERATION_LIMIT, an unparseable reply a parse error (3 in a row: FORMAT_ERROR, counted by
// the environment), an unreachable server a PolicyUnavailableError (never a reward).
import { noopMeter, Secret, silentLogger, type Logger, type Meter, type Rng } from '@owrl/core';
import type { Policy, PolicyDecision, PolicyInput } from '@owrl/policy';
import { readReply, type ChatRequest } from './chat-types.js';
import { ChatClient, type ChatOutcome } from './chat-client.js';
import { LlmPolicyError, LlmPolicyErrorCode } from './errors.js';
import { PolicyMetrics } from './policy-metrics.js';
import { imageRef } from './image-ref.js';
import { DEFAULT_RENDER_OPTIONS, renderChatRequest, requestImages, type RenderOptions } from './prompt-render.js';
import { parseReply } from './reply-parse.js';
import { emptyTokenTrace, tokensPolicyTrace, tokenTrace, type TraceContext } from './token-trace.js';

export const OPENAI_POLICY_KIND = 'openai';

export interface OpenAIPolicyOptions extends Partial<Omit<RenderOptions, 'model'>> {
  /** API base URL, e.g. http://vllm:8000/v1. */
  baseUrl: string;
  /** Model name requests name: the served name of this policy version (e.g. a LoRA adapter "owrl-v12"). */
  model: string;
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
    if (opts.model.trim() === '') throw bad('model is empty: name the served model (or LoRA adapter)');
    const render: RenderOptions = { ...DEFAULT_RENDER_OPTIONS, ...definedOnly(opts), model: opts.model };
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
    const ctx: TraceContext = { model: this.render.model, images: requestImages(input, this.render).map(imageRef) };
    const t1 = performance.now();
    this.stats.renderMs += t1 - t0;
    this.stats.steps++;
    let out: ChatOutcome = await this.request(req, signal);
    if (out.kind === 'context_overflow') {
      const { limit, input: used } = out.overflow;
      const room = limit !== undefined && used !== undefined ? limit - used : undefined;
      if (room !== undefined && room >= this.minCompletion && req.max_tokens !== undefined && room < req.max_tokens) {
        // vLLM refuses max_tokens past the context instead of clamping it: ask for what is left
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
        trace: tokensPolicyTrace(emptyTokenTrace('context_overflow', ctx)),
      };
    }
    const reply = readReply(out.choice);
    const trace = tokensPolicyTrace(tokenTrace(out.body, out.choice, ctx));
    const parsed = parseReply(reply, { coords: this.render.coords, viewport: input.observation.viewport });
    this.stats.parseMs += performance.now() - t2;
    const completion = trace.kind.case === 'tokens' ? trace.kind.value.tokenIds.length : 0;
    if (completion > 0) this.metrics.completionTokens.observe(completion);
    if (reply.finishReason === 'length') {
      this.stats.generationLimits++;
      this.metrics.reply('generation_limit');
      return { reasoning: parsed.reasoning, calls: [], raw: parsed.text, generationLimit: true, limitReason: 'generation_limit', trace };
    }
    if (parsed.error !== undefined) {
      this.stats.parseErrors++;
      this.metrics.reply('parse_error');
      return { reasoning: parsed.reasoning, calls: [], raw: parsed.text, parseError: true, parseErrorDetail: parsed.error, trace };
    }
    this.metrics.reply('calls');
    return { reasoning: parsed.reasoning, calls: parsed.calls, raw: parsed.text, trace };
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
  const keys: Array<keyof Omit<RenderOptions, 'model'>> = [
    'historyMode',
    'screenshots',
    'coords',
    'toolsIn',
    'maxElements',
    'engine',
    'logprobs',
    'maxTokens',
    'temperature',
    'topP',
  ];
  const out: Record<string, unknown> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out as Partial<RenderOptions>;
}
