// HTTP client of an OpenAI-compatible /chat/completions endpoint for one policy step: a deadline
// per attempt, retries with exponential backoff (and Retry-After) for connection errors,
// timeouts, 5xx/429 answers and aborted generations, then a PolicyUnavailableError (an
// infrastructure outcome, never a reward). A context-length refusal is an answer, not an error.
// The API key goes in the Authorization header and nowhere else: never logged, never in errors.
import { silentLogger, type Logger, type Rng, type Secret } from '@owrl/core';
import { PolicyError, PolicyErrorCode, PolicyUnavailableError } from '@owrl/policy';
import { firstChoice, isObject, type ChatRequest } from './chat-types.js';
import { contextOverflow, errorMessage, isRetryableStatus, retryAfterMs, type ContextOverflow } from './server-errors.js';

export interface ChatClientOptions {
  /** Base URL of the API, e.g. http://vllm:8000/v1 (the client appends /chat/completions). */
  baseUrl: string;
  apiKey?: Secret;
  /** Deadline of one attempt, ms. */
  timeoutMs: number;
  /** Attempts after the first for retryable failures. */
  retries: number;
  /** First backoff, ms; doubles per attempt with ±25 % jitter, up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
  logger?: Logger;
  /** Jitter source (default Math.random). */
  random?: Rng;
}

export type ChatOutcome =
  | { kind: 'ok'; body: unknown; choice: Record<string, unknown>; attempts: number; ms: number }
  | { kind: 'context_overflow'; overflow: ContextOverflow; attempts: number; ms: number };

/** Why one attempt failed, and whether another may succeed. */
interface AttemptFailure {
  retry: boolean;
  what: string;
  status?: number;
  waitMs?: number;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A short description of a fetch failure (connection refused, reset, DNS, ...). */
function networkWhat(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  const msg = typeof cause?.message === 'string' ? cause.message : (e as Error)?.message;
  return `connection failed${code !== '' ? ` (${code})` : ''}: ${String(msg)}`;
}

export class ChatClient {
  private readonly url: string;
  private readonly log: Logger;
  private readonly random: Rng;

  constructor(private readonly opts: ChatClientOptions) {
    this.url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.log = opts.logger ?? silentLogger;
    this.random = opts.random ?? Math.random;
  }

  /** The endpoint this client posts to (no credentials in it). */
  get endpoint(): string {
    return this.url;
  }

  /**
   * Sends one request. Resolves with the first choice, or with the server's context-length
   * refusal.
   * @throws PolicyError POLICY_ABORTED when `signal` fires; PolicyUnavailableError with reason
   *   `policy_unavailable` after the retries, `policy_rejected` for a refused request (4xx).
   */
  async complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatOutcome> {
    const t0 = performance.now();
    const payload = JSON.stringify(req);
    let last: AttemptFailure = { retry: true, what: 'no attempt made' };
    for (let attempt = 1; attempt <= this.opts.retries + 1; attempt++) {
      if (attempt > 1) {
        const base = Math.min(this.opts.maxBackoffMs, this.opts.backoffMs * 2 ** (attempt - 2));
        const wait = last.waitMs ?? base * (0.75 + 0.5 * this.random());
        this.log.warn({ endpoint: this.url, attempt, status: last.status, error: last.what, waitMs: Math.round(wait) }, 'policy request failed; retrying');
        try {
          await sleep(wait, signal);
        } catch (e) {
          throw new PolicyError(PolicyErrorCode.Aborted, 'the policy step was aborted', { cause: e });
        }
      }
      const r = await this.attempt(payload, signal);
      if ('body' in r) return { kind: 'ok', body: r.body, choice: r.choice, attempts: attempt, ms: performance.now() - t0 };
      if ('overflow' in r) return { kind: 'context_overflow', overflow: r.overflow, attempts: attempt, ms: performance.now() - t0 };
      last = r;
      if (!r.retry) {
        throw new PolicyUnavailableError(`the model server refused the request: ${r.what}`, { reason: 'policy_rejected' });
      }
    }
    throw new PolicyUnavailableError(`the model server at ${this.url} did not answer after ${this.opts.retries + 1} attempts: ${last.what}`, { reason: 'policy_unavailable' });
  }

  private async attempt(
    payload: string,
    signal: AbortSignal | undefined,
  ): Promise<{ body: unknown; choice: Record<string, unknown> } | { overflow: ContextOverflow } | AttemptFailure> {
    if (signal?.aborted) throw new PolicyError(PolicyErrorCode.Aborted, 'the policy step was aborted', { cause: signal.reason });
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.opts.apiKey?.isSet) headers['authorization'] = `Bearer ${this.opts.apiKey.reveal()}`;
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.url, { method: 'POST', headers, body: payload, signal: both });
      text = await res.text();
    } catch (e) {
      if (signal?.aborted) throw new PolicyError(PolicyErrorCode.Aborted, 'the policy step was aborted', { cause: e });
      if (timeout.aborted) return { retry: true, what: `no answer within ${this.opts.timeoutMs} ms` };
      return { retry: true, what: networkWhat(e) };
    }
    let body: unknown;
    try {
      body = text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
      body = undefined;
    }
    if (res.status === 200) {
      const choice = firstChoice(body);
      if (!choice) return { retry: true, status: 200, what: `the answer is not a chat completion: ${text.slice(0, 200)}` };
      // SGLang ends generations it aborted (e.g. during a weight update) with finish_reason "abort"
      if (choice['finish_reason'] === 'abort') return { retry: true, status: 200, what: 'the server aborted the generation' };
      return { body, choice };
    }
    const overflow = contextOverflow(res.status, body, text);
    if (overflow) return { overflow };
    const what = `HTTP ${res.status}: ${errorMessage(body, text).slice(0, 300)}`;
    if (isRetryableStatus(res.status)) {
      const wait = retryAfterMs(res.headers.get('retry-after'), this.opts.maxBackoffMs);
      return { retry: true, status: res.status, what, ...(wait !== undefined ? { waitMs: wait } : {}) };
    }
    return { retry: false, status: res.status, what: isObject(body) || text !== '' ? what : `HTTP ${res.status}` };
  }
}
