// Pure verifier logic of the bundled tasks: answer matching with normalisation (AnswerMatch) and
// the cart spec that the shop's `/__owrl/verify` endpoint checks (SiteStateCheck spec_json).
import type { AnswerMatch } from '@owrl/proto';
import { TaskError, TaskErrorCode } from './errors.js';

export interface VerifyResult {
  ok: boolean;
  detail: string;
}

// A thousands separator: comma, apostrophe or a (thin/no-break) space between a digit and a group
// of exactly three digits that is not followed by a further digit.
const THOUSANDS = /(\d)[,'\u2019\u00a0\u202f\u2009 ](?=\d{3}(?!\d))/g;
const CURRENCY = /\p{Sc}/gu;
const WRAPPING_QUOTES = /^["'`\u201c\u201d\u2018\u2019]+|["'`\u201c\u201d\u2018\u2019]+$/gu;
const TRAILING_PUNCT = /[.!?,;:\u2026]+$/u;
const NUMBER = /^[-+]?\d+(?:\.\d+)?$/;

/**
 * Canonical form used when `AnswerMatch.normalize` is set: NFKC, lower case, currency signs and
 * thousands separators dropped, whitespace removed, wrapping quotes and trailing punctuation
 * stripped. `" $1,249.50. "` → `"1249.50"`, `"Blue  Ceramic Mug"` → `"blueceramicmug"`.
 */
export function normalizeAnswer(s: string): string {
  let t = s.normalize('NFKC').toLowerCase().replace(CURRENCY, '');
  t = t.replace(THOUSANDS, '$1').replace(/\s+/gu, '');
  for (;;) {
    const next = t.replace(WRAPPING_QUOTES, '').replace(TRAILING_PUNCT, '');
    if (next === t) return t;
    t = next;
  }
}

function sameAnswer(a: string, b: string, normalized: boolean): boolean {
  if (a === b) return true;
  // "12.5" and "12.50" are the same price.
  return normalized && NUMBER.test(a) && NUMBER.test(b) && Number(a) === Number(b);
}

/**
 * Checks a `done()` answer against an AnswerMatch: equality with one accepted string, or
 * occurrence inside the answer when `contains` is set; after {@link normalizeAnswer} on both sides
 * when `normalize` is set (otherwise only surrounding whitespace is ignored). No accepted strings
 * → not ok.
 */
export function matchAnswer(answer: string, spec: Pick<AnswerMatch, 'accepted' | 'normalize' | 'contains'>): VerifyResult {
  const accepted = spec.accepted.filter((a) => a.trim().length > 0);
  if (accepted.length === 0) return { ok: false, detail: 'the verifier has no accepted answers' };
  const prep = spec.normalize ? normalizeAnswer : (s: string): string => s.trim();
  const got = prep(answer);
  for (const a of accepted) {
    const want = prep(a);
    const ok = spec.contains ? want.length > 0 && got.includes(want) : sameAnswer(got, want, spec.normalize);
    if (ok) return { ok: true, detail: `answer ${JSON.stringify(answer)} matches ${JSON.stringify(a)}` };
  }
  const list = accepted.map((a) => JSON.stringify(a)).join(', ');
  return { ok: false, detail: `answer ${JSON.stringify(answer)} matches none of ${list}` };
}

/** Expected cart of a SiteStateCheck: product id → quantity; `exact` forbids any other line. */
export interface CartSpec {
  cart: Record<string, number>;
  exact: boolean;
}

/** Serialises a cart spec as the task's `spec_json`. */
export function cartSpecJson(spec: CartSpec): string {
  return JSON.stringify({ cart: spec.cart, exact: spec.exact });
}

/**
 * Parses `spec_json` of the shop's site-state check.
 * @throws TaskError TASK_BAD_SPEC naming what is wrong (not JSON, no `cart` object, a quantity
 *   that is not a positive integer, `exact` not a boolean).
 */
export function parseCartSpec(json: string): CartSpec {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (cause) {
    throw new TaskError(TaskErrorCode.BadSpec, `spec ${JSON.stringify(json)} is not JSON`, { cause, field: 'spec_json' });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new TaskError(TaskErrorCode.BadSpec, 'spec must be a JSON object like {"cart":{"<id>":1},"exact":true}', { field: 'spec_json' });
  }
  const obj = raw as Record<string, unknown>;
  const cartRaw = obj['cart'];
  if (typeof cartRaw !== 'object' || cartRaw === null || Array.isArray(cartRaw)) {
    throw new TaskError(TaskErrorCode.BadSpec, 'spec.cart must be an object of product id → quantity', { field: 'spec_json' });
  }
  const cart: Record<string, number> = {};
  for (const [id, qty] of Object.entries(cartRaw as Record<string, unknown>)) {
    if (typeof qty !== 'number' || !Number.isInteger(qty) || qty < 1) {
      throw new TaskError(TaskErrorCode.BadSpec, `spec.cart[${JSON.stringify(id)}] = ${JSON.stringify(qty)} must be a positive integer`, {
        field: 'spec_json',
      });
    }
    cart[id] = qty;
  }
  const exact = obj['exact'] ?? false;
  if (typeof exact !== 'boolean') {
    throw new TaskError(TaskErrorCode.BadSpec, `spec.exact = ${JSON.stringify(exact)} must be a boolean`, { field: 'spec_json' });
  }
  return { cart, exact };
}

/**
 * Checks a session's cart against a spec: every listed product has exactly the listed quantity;
 * with `exact`, no other product is in the cart either.
 */
export function checkCart(cart: ReadonlyMap<string, number>, spec: CartSpec): VerifyResult {
  const problems: string[] = [];
  for (const [id, want] of Object.entries(spec.cart)) {
    const have = cart.get(id) ?? 0;
    if (have !== want) problems.push(`${id}: want ${want}, have ${have}`);
  }
  if (spec.exact) {
    for (const [id, have] of cart) {
      if (have > 0 && !(id in spec.cart)) problems.push(`${id}: want 0, have ${have}`);
    }
  }
  if (problems.length > 0) return { ok: false, detail: `cart differs: ${problems.join('; ')}` };
  const lines = [...cart].filter(([, q]) => q > 0).map(([id, q]) => `${id}×${q}`);
  return { ok: true, detail: `cart matches${lines.length > 0 ? `: ${lines.join(', ')}` : ' (empty)'}` };
}
