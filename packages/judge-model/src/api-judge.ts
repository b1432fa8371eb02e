// ApiJudge: the judge model served behind an OpenAI-compatible chat completions endpoint (a hosted
// API, or a model served by vLLM / SGLang), beside the ONNX judge and interchangeable with it as a
// BatchScorer. One request per judgement (the same prompt as the ONNX judge), at most
// `concurrency` in flight, retried with backoff on connection failures, 408, 429 and 5xx, within
// the call's deadline. P(yes) from the yes/no log-probabilities, else from the answer text.
import { createHash } from 'node:crypto';
import { silentLogger, type Logger } from '@owrl/core';
import { buildChatRequest, type ChatRequestOptions } from './api-request.js';
import { readChatReply, type ApiVerdict } from './api-reply.js';
import { JudgeModelError, JudgeModelErrorCode } from './errors.js';
import { DEFAULT_QUESTION, DEFAULT_SYSTEM_PROMPT } from './folder.js';
import type { BatchScorer, JudgeScore, ScoreOptions } from './judge.js';
import type { JudgeInput, PromptOptions } from './prompt.js';

export interface ApiJudgeOptions {
  /** Base URL of the API (`https://api.openai.com/v1`, `http://vllm:8000/v1`) or the full `…/chat/completions` URL. */
  url: string;
  /** Model name as the server knows it (vLLM: --served-model-name). */
  model: string;
  /** Sent as `Authorization: Bearer …` when set; never logged. */
  apiKey?: string;
  /** P(yes) at or above which the verdict is a success. Default 0.5. */
  threshold?: number;
  /** Send the final screenshot as an image part (vision-language judges). Default true. */
  image?: boolean;
  /** Ask for log-probabilities. Default true; false = the answer text decides. */
  logprobs?: boolean;
  /** top_logprobs, 1–20. Default 20. */
  topLogprobs?: number;
  /** max_tokens. Default 1 (the answer token). */
  maxTokens?: number;
  /** Budget of the prompt text in characters (oldest steps dropped first). Default 60 000. */
  maxPromptChars?: number;
  /** Requests in flight at once. Default 8. */
  concurrency?: number;
  /** Retries after the first attempt for connection failures, 408, 429 and 5xx. Default 3. */
  retries?: number;
  /** First backoff, ms; doubled per retry with ±50 % jitter, capped at 10 s; Retry-After wins. Default 500. */
  retryBaseMs?: number;
  /** Default deadline of a scoreEach call, queueing and retries included, ms. Default 60 000. */
  timeoutMs?: number;
  /** Reported as the judge version. Default `api:<model>#<hash of the prompt settings>`. */
  version?: string;
  /** Extra fields merged into every request body (not `model` or `messages`). */
  extraBody?: Record<string, unknown>;
  /** The judge's system message and question. Default: the ONNX judge's defaults. */
  prompt?: { system?: string; question?: string };
  logger?: Logger;
}

export interface ApiJudgeStats {
  /** HTTP requests sent (retries included). */
  requests: number;
  retries: number;
  /** Verdicts by how P(yes) was obtained. */
  logprobs: number;
  answers: number;
  /** Failed judgements by error code. */
  failures: Record<string, number>;
}

export interface ApiProbe {
  ok: boolean;
  /** Models the server lists at GET …/models (empty when it could not be asked). */
  models: string[];
  /** Why the probe failed, or that the model is not listed. */
  problem: string;
}

const CHAT_PATH = '/chat/completions';

function invalidArg(message: string): JudgeModelError {
  return new JudgeModelError(JudgeModelErrorCode.InvalidArgument, message);
}

function intIn(v: number | undefined, name: string, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined) return def;
  if (!Number.isInteger(v) || v < min || v > max) throw invalidArg(`${name} must be an integer within [${min}, ${max}], got ${v}`);
  return v;
}

/** `url` without user info, for messages and logs. */
function safeUrl(url: URL): string {
  const u = new URL(url.href);
  u.username = '';
  u.password = '';
  return u.href;
}

/** A short text of an error reply: its `error.message` when it is OpenAI-shaped JSON. */
function replySnippet(text: string): string {
  try {
    const v = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const e = v.error;
    const m = typeof e === 'string' ? e : typeof e?.message === 'string' ? e.message : typeof v.message === 'string' ? v.message : undefined;
    if (m !== undefined) return m.slice(0, 300);
  } catch {
    // not JSON: the raw text
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}

function retryAfterMs(h: string | null): number | undefined {
  if (h === null || h.trim() === '') return undefined;
  const s = Number(h);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const at = Date.parse(h);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

/** Resolves after `ms`, or rejects with the signal's reason. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason as Error);
    };
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** A counting semaphore: at most `n` holders. */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(n: number) {
    this.free = n;
  }
  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

export class ApiJudge implements BatchScorer {
  readonly version: string;
  readonly threshold: number;
  /**
   * 1: every judgement is its own request, so modelVerdictSource sends each as it comes rather
   * than gathering a batch that would wait for its slowest row; `concurrency` bounds the requests.
   */
  readonly maxBatch = 1;
  /** Requests in flight at once. */
  readonly concurrency: number;
  readonly model: string;
  /** The chat completions URL, without user info. */
  readonly endpoint: string;
  private readonly url: URL;
  private readonly base: URL | undefined;
  private readonly request: Omit<ChatRequestOptions, 'model'>;
  private readonly headers: Record<string, string>;
  private readonly retries: number;
  private readonly retryBaseMs: number;
  private readonly timeoutMs: number;
  private readonly slots: Slots;
  private readonly log: Logger;
  private readonly closing = new AbortController();
  private readonly counts: ApiJudgeStats = { requests: 0, retries: 0, logprobs: 0, answers: 0, failures: {} };

  /** @throws JudgeModelError JUDGE_MODEL_INVALID_ARGUMENT naming the option that is wrong. */
  constructor(opts: ApiJudgeOptions) {
    let url: URL;
    try {
      url = new URL(opts.url);
    } catch {
      throw invalidArg(`url ${JSON.stringify(opts.url)} is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidArg(`url ${JSON.stringify(opts.url)} must be http(s)`);
    const path = url.pathname.replace(/\/+$/, '');
    if (path.endsWith(CHAT_PATH)) {
      this.base = undefined;
    } else {
      this.base = new URL(url.href);
      this.base.pathname = path;
      url = new URL(url.href);
      url.pathname = `${path}${CHAT_PATH}`;
    }
    this.url = url;
    this.endpoint = safeUrl(url);
    if (opts.model.trim() === '') throw invalidArg('model must not be empty');
    this.model = opts.model;
    const threshold = opts.threshold ?? 0.5;
    if (!(threshold >= 0 && threshold <= 1)) throw invalidArg(`threshold must be within [0, 1], got ${threshold}`);
    this.threshold = threshold;
    for (const k of ['model', 'messages'] as const) {
      if (opts.extraBody !== undefined && k in opts.extraBody) throw invalidArg(`extraBody must not set "${k}"`);
    }
    const prompt: PromptOptions = {
      system: opts.prompt?.system ?? DEFAULT_SYSTEM_PROMPT,
      question: opts.prompt?.question ?? DEFAULT_QUESTION,
      image: opts.image ?? true,
    };
    this.request = {
      prompt,
      maxPromptChars: intIn(opts.maxPromptChars, 'maxPromptChars', 60_000, 1),
      logprobs: opts.logprobs ?? true,
      topLogprobs: intIn(opts.topLogprobs, 'topLogprobs', 20, 1, 20),
      maxTokens: intIn(opts.maxTokens, 'maxTokens', 1, 1),
      ...(opts.extraBody !== undefined ? { extraBody: opts.extraBody } : {}),
    };
    this.concurrency = intIn(opts.concurrency, 'concurrency', 8, 1);
    this.slots = new Slots(this.concurrency);
    this.retries = intIn(opts.retries, 'retries', 3, 0);
    this.retryBaseMs = intIn(opts.retryBaseMs, 'retryBaseMs', 500, 0);
    this.timeoutMs = intIn(opts.timeoutMs, 'timeoutMs', 60_000, 1);
    this.headers = { 'content-type': 'application/json', accept: 'application/json', ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) };
    // The version names the backend and model, and changes with anything that changes the prompt.
    const settings = JSON.stringify({ system: prompt.system, question: prompt.question, image: prompt.image, logprobs: this.request.logprobs });
    this.version = opts.version ?? `api:${opts.model}#${createHash('sha256').update(settings).digest('hex').slice(0, 8)}`;
    if (this.version.trim() === '') throw invalidArg('version must not be empty');
    this.log = opts.logger ?? silentLogger;
  }

  /**
   * Asks GET …/models whether the server is up and serves the model. Never throws; a judge
   * whose server is still loading keeps running (its judgements are excluded until it answers).
   */
  async probe(timeoutMs = 5000): Promise<ApiProbe> {
    if (this.base === undefined) return { ok: true, models: [], problem: '' };
    const url = new URL(this.base.href);
    url.pathname = `${url.pathname}/models`;
    try {
      const res = await fetch(url, { headers: this.headers, signal: AbortSignal.timeout(timeoutMs) });
      const text = await res.text();
      if (!res.ok) return { ok: false, models: [], problem: `GET ${safeUrl(url)}: HTTP ${res.status}: ${replySnippet(text)}` };
      const data = (JSON.parse(text) as { data?: Array<{ id?: unknown }> }).data ?? [];
      const models = data.map((m) => m.id).filter((id): id is string => typeof id === 'string');
      const listed = models.includes(this.model);
      return { ok: listed, models, problem: listed ? '' : `model ${JSON.stringify(this.model)} is not among the served models ${JSON.stringify(models)}` };
    } catch (e) {
      return { ok: false, models: [], problem: `GET ${safeUrl(url)}: ${(e as Error).message}` };
    }
  }

  /**
   * P(success) of each input, in order; a row that fails yields its JudgeModelError in place
   * (JUDGE_MODEL_TIMEOUT, JUDGE_MODEL_ABORTED, JUDGE_MODEL_CLOSED, JUDGE_MODEL_BAD_REPLY,
   * JUDGE_MODEL_API_REFUSED, JUDGE_MODEL_UNREACHABLE, JUDGE_MODEL_PROMPT_TOO_LONG).
   * @throws JudgeModelError JUDGE_MODEL_INVALID_ARGUMENT for a bad timeoutMs.
   */
  async scoreEach(inputs: JudgeInput[], opts: ScoreOptions = {}): Promise<Array<JudgeScore | JudgeModelError>> {
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    if (!(timeoutMs > 0)) throw invalidArg(`timeoutMs must be > 0, got ${timeoutMs}`);
    const deadline = Date.now() + timeoutMs;
    return Promise.all(
      inputs.map((input) =>
        this.scoreOne(input, deadline, opts.signal).catch((e: unknown) => {
          const err = e instanceof JudgeModelError ? e : new JudgeModelError(JudgeModelErrorCode.InferenceFailed, `${(e as Error).name}: ${(e as Error).message}`, { cause: e });
          this.counts.failures[err.code] = (this.counts.failures[err.code] ?? 0) + 1;
          return err;
        }),
      ),
    );
  }

  /** Like scoreEach, but the first failed row throws. */
  async scoreBatch(inputs: JudgeInput[], opts: ScoreOptions = {}): Promise<JudgeScore[]> {
    return (await this.scoreEach(inputs, opts)).map((r) => {
      if (r instanceof JudgeModelError) throw r;
      return r;
    });
  }

  stats(): ApiJudgeStats {
    return { ...this.counts, failures: { ...this.counts.failures } };
  }

  /** Aborts requests in flight (they fail with JUDGE_MODEL_CLOSED); later calls fail the same way. */
  close(): Promise<void> {
    this.closing.abort(new JudgeModelError(JudgeModelErrorCode.Closed, 'the API judge is closed'));
    return Promise.resolve();
  }

  private async scoreOne(input: JudgeInput, deadline: number, callerSignal: AbortSignal | undefined): Promise<JudgeScore> {
    const req = buildChatRequest(input, { ...this.request, model: this.model });
    const body = JSON.stringify(req.body);
    await this.slots.acquire();
    try {
      for (let attempt = 0; ; attempt++) {
        const r = await this.attempt(body, deadline, callerSignal);
        if ('verdict' in r) {
          const v = r.verdict;
          if (v.basis === 'logprobs') this.counts.logprobs++;
          else this.counts.answers++;
          return {
            pYes: v.pYes,
            promptTokens: v.promptTokens,
            droppedSteps: req.droppedSteps,
            basis: v.basis,
            answer: v.answer,
            ...(v.basis === 'answer' ? { fallback: v.fallback } : { candidates: v.candidates }),
          };
        }
        const left = deadline - Date.now();
        if (attempt >= this.retries) throw this.unreachable(r.problem, attempt + 1);
        const backoff = Math.min(10_000, this.retryBaseMs * 2 ** attempt) * (0.5 + Math.random());
        const wait = r.retryAfterMs ?? backoff;
        if (wait >= left) throw this.unreachable(`${r.problem}; no time left for another attempt`, attempt + 1);
        this.counts.retries++;
        this.log.warn({ endpoint: this.endpoint, attempt: attempt + 1, problem: r.problem, waitMs: Math.round(wait) }, 'judge API attempt failed; retrying');
        const pause = this.signalFor(deadline, callerSignal);
        try {
          await sleep(wait, pause.signal);
        } catch (e) {
          throw this.abortError(e, deadline);
        } finally {
          pause.done();
        }
      }
    } finally {
      this.slots.release();
    }
  }

  private unreachable(problem: string, attempts: number): JudgeModelError {
    return new JudgeModelError(JudgeModelErrorCode.Unreachable, `${this.endpoint}: ${problem} (${attempts} attempt${attempts === 1 ? '' : 's'})`);
  }

  /** A signal that fires at the deadline, on the caller's abort, or on close(); `done` clears the timer. */
  private signalFor(deadline: number, callerSignal: AbortSignal | undefined): { signal: AbortSignal; done: () => void } {
    const timer = new AbortController();
    const ms = Math.max(0, deadline - Date.now());
    const t = setTimeout(() => timer.abort(new JudgeModelError(JudgeModelErrorCode.Timeout, `the judge API did not answer within the deadline`)), ms);
    const signals = [timer.signal, this.closing.signal, ...(callerSignal ? [callerSignal] : [])];
    return { signal: AbortSignal.any(signals), done: () => clearTimeout(t) };
  }

  private abortError(e: unknown, deadline: number): JudgeModelError {
    if (this.closing.signal.aborted) return new JudgeModelError(JudgeModelErrorCode.Closed, 'the API judge is closed');
    if (e instanceof JudgeModelError) return e;
    if (Date.now() >= deadline) return new JudgeModelError(JudgeModelErrorCode.Timeout, 'the judge API did not answer within the deadline');
    return new JudgeModelError(JudgeModelErrorCode.Aborted, `judge API call aborted: ${(e as Error)?.message ?? String(e)}`);
  }

  /** One HTTP attempt: a verdict, or a retryable problem; other failures throw. */
  private async attempt(
    body: string,
    deadline: number,
    callerSignal: AbortSignal | undefined,
  ): Promise<{ verdict: ApiVerdict } | { problem: string; retryAfterMs?: number }> {
    const { signal, done } = this.signalFor(deadline, callerSignal);
    this.counts.requests++;
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const res = await fetch(this.url, { method: 'POST', headers: this.headers, body, signal });
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      text = await res.text();
    } catch (e) {
      if (signal.aborted) throw this.abortError(signal.reason, deadline);
      // Connection refused or reset, DNS, TLS: the server may come back.
      const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
      const code = typeof cause?.code === 'string' ? cause.code : '';
      return { problem: `${(e as Error).message}${code !== '' ? ` (${code})` : typeof cause?.message === 'string' ? ` (${cause.message})` : ''}` };
    } finally {
      done();
    }
    if (status >= 200 && status < 300) {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new JudgeModelError(JudgeModelErrorCode.BadReply, `HTTP ${status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 120))}`);
      }
      return { verdict: readChatReply(json) };
    }
    const problem = `HTTP ${status}: ${replySnippet(text)}`;
    if (status === 408 || status === 429 || status >= 500) {
      const ra = retryAfterMs(retryAfter);
      return { problem, ...(ra !== undefined ? { retryAfterMs: ra } : {}) };
    }
    throw new JudgeModelError(JudgeModelErrorCode.ApiRefused, `${this.endpoint}: ${problem}`);
  }
}

