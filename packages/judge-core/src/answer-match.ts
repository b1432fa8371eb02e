// AnswerMatch verifier: compares the done() response with the task's accepted strings, after
// normalisation (case, whitespace, currency signs, thousands separators, trailing punctuation and
// wrapping quotes) when the task asks for it. Pure logic.
import type { AnswerMatch } from '@owrl/proto';
import { ExcludedReason } from './outcome.js';
import type { CheckResult } from './check-result.js';

// A thousands separator: comma, apostrophe or a (thin/no-break) space between a digit and a group
// of exactly three digits.
const THOUSANDS = /(\d)[,'\u2019\u00a0\u202f\u2009 ](?=\d{3}(?!\d))/g;
const CURRENCY = /\p{Sc}/gu;
const WRAPPING_QUOTES = /^["'`\u201c\u201d\u2018\u2019\u00ab\u00bb]+|["'`\u201c\u201d\u2018\u2019\u00ab\u00bb]+$/gu;
const TRAILING_PUNCT = /[.!?,;:\u3002\uff01\uff1f\u2026]+$/u;
const NUMBER = /^[-+]?\d+(?:\.\d+)?$/;
const WORD_CHAR = /[\p{L}\p{N}]/u;
const DIGIT = /\d/;

/**
 * Canonical form of an answer: NFKC, lower case, currency signs dropped, thousands separators
 * dropped, whitespace collapsed to single spaces and trimmed, wrapping quotes and trailing
 * punctuation removed. `"$1,299.00."` → `"1299.00"`.
 */
export function normalizeAnswer(s: string): string {
  let t = s.normalize('NFKC').toLowerCase().replace(CURRENCY, ' ');
  t = t.replace(THOUSANDS, '$1').replace(/\s+/gu, ' ').trim();
  for (;;) {
    const next = t.replace(WRAPPING_QUOTES, '').replace(TRAILING_PUNCT, '').trim();
    if (next === t) return t;
    t = next;
  }
}

/** Equality of two normalised answers; numbers compare by value (`12.50` = `12.5`). */
function normalizedEqual(a: string, b: string): boolean {
  if (a === b) return true;
  return NUMBER.test(a) && NUMBER.test(b) && Number(a) === Number(b);
}

/**
 * Whether `needle` occurs in `hay` as a whole token: not glued to letters or digits, and not part
 * of a longer number (`12` does not occur in `12.50` nor in `120`).
 */
export function containsToken(hay: string, needle: string): boolean {
  if (needle.length === 0) return false;
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + 1)) {
    const before = hay.slice(0, i);
    const after = hay.slice(i + needle.length);
    if (boundaryBefore(before, needle) && boundaryAfter(after, needle)) return true;
  }
  return false;
}

function boundaryBefore(before: string, needle: string): boolean {
  const c = before.at(-1);
  if (c === undefined) return true;
  if (WORD_CHAR.test(c) && WORD_CHAR.test(needle[0] ?? '')) return false;
  // "1.5" inside "21.5" or "0.5" inside "10.5": a decimal point glued to a digit before it.
  if ((c === '.' || c === ',') && DIGIT.test(before.at(-2) ?? '') && DIGIT.test(needle[0] ?? '')) return false;
  return true;
}

function boundaryAfter(after: string, needle: string): boolean {
  const c = after[0];
  if (c === undefined) return true;
  if (WORD_CHAR.test(c) && WORD_CHAR.test(needle.at(-1) ?? '')) return false;
  if ((c === '.' || c === ',') && DIGIT.test(after[1] ?? '') && DIGIT.test(needle.at(-1) ?? '')) return false;
  return true;
}

/**
 * Checks `answer` against `match.accepted`. With `normalize`, both sides go through
 * {@link normalizeAnswer}; without it only surrounding whitespace is ignored. With `contains`, an
 * accepted string may occur inside the answer (as a whole token when normalising).
 * An AnswerMatch without any non-empty accepted string is a broken task: `unavailable`.
 */
export function matchAnswer(match: AnswerMatch, answer: string): CheckResult {
  const accepted = match.accepted.filter((a) => a.trim().length > 0);
  if (accepted.length === 0) {
    return {
      status: 'unavailable',
      reason: ExcludedReason.InvalidVerifier,
      detail: `AnswerMatch.accepted has no non-empty string (got ${JSON.stringify(match.accepted)})`,
    };
  }
  const norm = match.normalize ? normalizeAnswer : (s: string) => s.trim();
  const got = norm(answer);
  for (const a of accepted) {
    const want = norm(a);
    const hit = match.contains
      ? match.normalize
        ? normalizedEqual(got, want) || containsToken(got, want)
        : got.includes(want)
      : match.normalize
        ? normalizedEqual(got, want)
        : got === want;
    if (hit) return { status: 'pass', detail: `answer matches ${JSON.stringify(a)}` };
  }
  return {
    status: 'fail',
    detail: `answer ${JSON.stringify(truncate(answer, 200))} matches none of ${JSON.stringify(accepted.map((a) => truncate(a, 80)))}`,
  };
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}…`;
}
