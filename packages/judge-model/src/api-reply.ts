// Reading a judge verdict out of an OpenAI-compatible chat completion (OpenAI, vLLM, SGLang):
// P(yes) from the log-probabilities of the yes/no candidates at the first answer position when
// the server returns them (choices[0].logprobs.content[i].top_logprobs[j] = {token, logprob}),
// else from the answer text (yes → 1, no → 0). Anything else is a bad reply. Pure.
import { JudgeModelError, JudgeModelErrorCode } from './errors.js';

/** How P(yes) was obtained from a reply. */
export type ApiBasis = 'logprobs' | 'answer';

export interface ApiVerdict {
  pYes: number;
  basis: ApiBasis;
  /** The generated text, trimmed and cut to 80 characters (for the verdict detail). */
  answer: string;
  /** logprobs: the yes/no candidates found at the answer position, as `token=logprob`. */
  candidates: string[];
  /** answer: why the log-probabilities were not used (none returned, no yes/no candidate). */
  fallback: string;
  /** usage.prompt_tokens when the server reports it, else 0. */
  promptTokens: number;
}

type Json = Record<string, unknown>;

function bad(message: string): JudgeModelError {
  return new JudgeModelError(JudgeModelErrorCode.BadReply, message);
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The yes/no word a token stands for, or undefined. Tokenizers spell the answer differently:
 * "yes", "Yes", " yes", "YES", "Ġyes" (byte-level BPE), "▁Yes" (SentencePiece), "Yes." …
 */
export function yesNoOfToken(token: string): 'yes' | 'no' | undefined {
  const t = token
    .replace(/^[\sĠ▁Ċ]+/u, '')
    .replace(/[\s.,!:;]+$/u, '')
    .toLowerCase();
  return t === 'yes' ? 'yes' : t === 'no' ? 'no' : undefined;
}

/**
 * The yes/no answer of a generated text: a leading `<think>…</think>` block is skipped, then the
 * first word decides when it is yes or no, else the last word ("… so the answer is no").
 */
export function yesNoOfText(text: string): 'yes' | 'no' | undefined {
  let t = text;
  const think = /^\s*<think>[\s\S]*?<\/think>/u.exec(t);
  if (think) t = t.slice(think[0].length);
  else if (/^\s*<think>/u.test(t)) return undefined; // the reasoning never ended
  const first = /^[^A-Za-z]*([A-Za-z]+)/u.exec(t)?.[1];
  const a = first === undefined ? undefined : yesNoOfToken(first);
  if (a !== undefined) return a;
  const last = /([A-Za-z]+)[^A-Za-z]*$/u.exec(t)?.[1];
  return last === undefined ? undefined : yesNoOfToken(last);
}

interface Candidate {
  token: string;
  logprob: number;
}

function candidate(v: unknown, where: string): Candidate {
  if (!isObject(v) || typeof v['token'] !== 'string' || typeof v['logprob'] !== 'number' || !Number.isFinite(v['logprob'])) {
    throw bad(`${where} must be {token: string, logprob: number}, got ${JSON.stringify(v)?.slice(0, 120)}`);
  }
  return { token: v['token'], logprob: v['logprob'] };
}

/**
 * P(yes) = Σ exp(logprob) over the yes candidates / Σ over the yes and no candidates, at one
 * position (the sampled token counts as a candidate when top_logprobs omits it); undefined when
 * the position holds no yes/no candidate. Candidates below the returned top-k count as 0.
 */
export function pYesOfPosition(position: unknown, where = 'logprobs.content[0]'): { pYes: number; candidates: string[] } | undefined {
  if (!isObject(position)) throw bad(`${where} must be an object, got ${JSON.stringify(position)?.slice(0, 120)}`);
  const top = position['top_logprobs'] ?? [];
  if (!Array.isArray(top)) throw bad(`${where}.top_logprobs must be a list, got ${JSON.stringify(top).slice(0, 120)}`);
  const all = top.map((c, i) => candidate(c, `${where}.top_logprobs[${i}]`));
  const sampled = candidate(position, where);
  if (!all.some((c) => c.token === sampled.token)) all.push(sampled);
  const tagged = all.flatMap((c) => {
    const yn = yesNoOfToken(c.token);
    return yn === undefined ? [] : [{ ...c, yn }];
  });
  if (tagged.length === 0) return undefined;
  // Softmax over the yes/no candidates, shifted by the largest log-prob for stability.
  const m = Math.max(...tagged.map((c) => c.logprob));
  let yes = 0;
  let total = 0;
  for (const c of tagged) {
    const w = Math.exp(c.logprob - m);
    total += w;
    if (c.yn === 'yes') yes += w;
  }
  return { pYes: yes / total, candidates: tagged.map((c) => `${JSON.stringify(c.token)}=${c.logprob}`) };
}

function messageText(choice: Json): string {
  const message = choice['message'];
  if (!isObject(message)) throw bad(`choices[0].message must be an object, got ${JSON.stringify(message)?.slice(0, 120)}`);
  const content = message['content'];
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  // Some servers return content parts: [{type: 'text', text}].
  if (Array.isArray(content)) return content.map((p) => (isObject(p) && typeof p['text'] === 'string' ? p['text'] : '')).join('');
  throw bad(`choices[0].message.content must be a string, got ${JSON.stringify(content).slice(0, 120)}`);
}

/**
 * The verdict of one chat completion reply body (parsed JSON).
 * @throws JudgeModelError JUDGE_MODEL_BAD_REPLY naming what is missing or wrong.
 */
export function readChatReply(body: unknown): ApiVerdict {
  if (!isObject(body)) throw bad(`the reply must be a JSON object, got ${JSON.stringify(body)?.slice(0, 120)}`);
  if (body['error'] !== undefined && body['error'] !== null) {
    const e = body['error'];
    const msg = isObject(e) && typeof e['message'] === 'string' ? e['message'] : JSON.stringify(e);
    throw bad(`the server replied with an error: ${msg.slice(0, 300)}`);
  }
  const choices = body['choices'];
  if (!Array.isArray(choices) || choices.length === 0) throw bad(`the reply has no choices (got ${JSON.stringify(choices)?.slice(0, 120)})`);
  const choice: unknown = choices[0];
  if (!isObject(choice)) throw bad(`choices[0] must be an object, got ${JSON.stringify(choice)?.slice(0, 120)}`);
  const text = messageText(choice);
  const answer = text.trim().slice(0, 80);
  const usage = body['usage'];
  const promptTokens = isObject(usage) && typeof usage['prompt_tokens'] === 'number' && Number.isFinite(usage['prompt_tokens']) ? usage['prompt_tokens'] : 0;

  let fallback = 'the server returned no logprobs';
  const logprobs = choice['logprobs'];
  if (logprobs !== undefined && logprobs !== null) {
    if (!isObject(logprobs)) throw bad(`choices[0].logprobs must be an object, got ${JSON.stringify(logprobs).slice(0, 120)}`);
    const content = logprobs['content'];
    if (content !== undefined && content !== null) {
      if (!Array.isArray(content)) throw bad(`choices[0].logprobs.content must be a list, got ${JSON.stringify(content).slice(0, 120)}`);
      // The answer position: the first generated token that is not only whitespace.
      const at = content.findIndex((p) => !(isObject(p) && typeof p['token'] === 'string' && p['token'].trim() === ''));
      if (at >= 0) {
        const r = pYesOfPosition(content[at], `choices[0].logprobs.content[${at}]`);
        if (r !== undefined) return { pYes: r.pYes, basis: 'logprobs', answer, candidates: r.candidates, fallback: '', promptTokens };
        fallback = `no yes/no candidate among the top logprobs at the answer position`;
      }
    }
  }
  const yn = yesNoOfText(text);
  if (yn === undefined) {
    const finish = typeof choice['finish_reason'] === 'string' ? ` (finish_reason ${choice['finish_reason']})` : '';
    throw bad(`${fallback}, and the answer ${JSON.stringify(answer)} is neither yes nor no${finish}`);
  }
  return { pYes: yn === 'yes' ? 1 : 0, basis: 'answer', answer, candidates: [], fallback, promptTokens };
}
