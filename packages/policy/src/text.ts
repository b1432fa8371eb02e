// Text helpers shared by candidate building and featurisation: normalisation, tokenisation with
// light stemming, instruction parsing (quoted phrases, numbers, keywords) and answer shapes.

const STOPWORDS = new Set([
  'a', 'an', 'the', 'of', 'to', 'in', 'on', 'for', 'and', 'or', 'is', 'are', 'was', 'be', 'it', 'its',
  'this', 'that', 'these', 'those', 'what', 'which', 'me', 'my', 'please', 'with', 'from', 'by', 'at',
  'as', 'your', 'you', 'i', 'do', 'does', 'then', 'there', 'their', 'into',
]);

/** Lowercases, folds curly quotes and collapses whitespace. */
export function normalize(s: string): string {
  return s
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Light suffix stripping so that "prices"/"price" and "added"/"add" share a token. */
export function stem(t: string): string {
  if (t.length > 5 && t.endsWith('ing')) return t.slice(0, -3);
  if (t.length > 4 && t.endsWith('ed')) return t.slice(0, -2);
  if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss')) return t.slice(0, -1);
  return t;
}

/** Raw lowercase word tokens (letters/digits), no stemming, no stopword removal. */
export function words(s: string): string[] {
  return normalize(s).match(/[a-z0-9]+/g) ?? [];
}

/** Content tokens: stemmed words without stopwords; numbers become "#num". */
export function contentTokens(s: string): string[] {
  const out: string[] = [];
  for (const w of words(s)) {
    if (STOPWORDS.has(w)) continue;
    out.push(/^\d+$/.test(w) ? '#num' : stem(w));
  }
  return out;
}

/** Stemmed tokens of a phrase, stopwords kept out, numbers kept verbatim (for overlap). */
export function phraseTokens(s: string): string[] {
  return words(s).filter((w) => !STOPWORDS.has(w)).map((w) => (/^\d+$/.test(w) ? w : stem(w)));
}

export interface ParsedInstruction {
  raw: string;
  /** Double-quoted spans, verbatim (order of appearance, deduplicated). */
  quoted: string[];
  /** Normalised quoted spans. */
  quotedNorm: string[];
  /** Standalone numbers outside quotes, verbatim. */
  numbers: string[];
  /** Content keywords outside quotes (stemmed, stopwords removed, numbers as "#num"). */
  keywords: string[];
  /** Stemmed tokens of all quoted spans together. */
  quotedTokens: string[];
  /** Every content token of the instruction (keywords plus quoted tokens). */
  allTokens: string[];
  /** "?ask" for questions (an answer is expected), "!do" for commands (a state change is). */
  intent: '?ask' | '!do';
}

const ASK_WORDS = new Set(['what', 'which', 'how', 'who', 'when', 'where', 'report', 'tell', 'name', 'list', 'give']);

const QUOTED = /["\u201c]([^"\u201c\u201d]+)["\u201d]/g;

export function parseInstruction(instruction: string): ParsedInstruction {
  const quoted: string[] = [];
  for (const m of instruction.matchAll(QUOTED)) {
    const q = (m[1] ?? '').trim();
    if (q.length > 0 && !quoted.includes(q)) quoted.push(q);
  }
  const outside = instruction.replace(QUOTED, ' ');
  const numbers: string[] = [];
  for (const m of outside.matchAll(/(?<![\w.$-])\d+(?:\.\d+)?(?![\w-])/g)) {
    if (!numbers.includes(m[0])) numbers.push(m[0]);
  }
  const keywords = uniq(contentTokens(outside));
  const quotedTokens = uniq(quoted.flatMap((q) => phraseTokens(q)));
  return {
    raw: instruction,
    quoted,
    quotedNorm: quoted.map(normalize),
    numbers,
    keywords,
    quotedTokens,
    allTokens: uniq([...keywords, ...quotedTokens]),
    intent: outside.includes('?') || words(outside).some((w) => ASK_WORDS.has(w)) ? '?ask' : '!do',
  };
}

export function uniq<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}

/** Fraction of `want` tokens present in `have` (0 when `want` is empty). */
export function overlap(want: readonly string[], have: readonly string[]): number {
  if (want.length === 0) return 0;
  const set = new Set(have);
  let n = 0;
  for (const w of want) if (set.has(w)) n++;
  return n / want.length;
}

export const PRICE_RE = /[$\u20ac\u00a3]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|GBP)\b/;
export const CODE_RE = /\b[A-Z][A-Z0-9]{0,5}-[A-Z0-9-]*\d[A-Z0-9-]*\b|\b[A-Z]{2,}\d{2,}[A-Z0-9]*\b/;

export type AnswerShape = 'price' | 'code' | 'number' | 'short' | 'long';

export function answerShape(s: string): AnswerShape {
  const t = s.trim();
  if (new RegExp(`^(?:${PRICE_RE.source})$`).test(t)) return 'price';
  if (new RegExp(`^(?:${CODE_RE.source})$`).test(t)) return 'code';
  if (/^-?\d[\d,]*(?:\.\d+)?$/.test(t)) return 'number';
  return words(t).length <= 6 ? 'short' : 'long';
}

/** Parses a numeric price out of a string ("$1,299.50" → 1299.5), or undefined. */
export function parsePrice(s: string): number | undefined {
  const m = PRICE_RE.exec(s);
  if (!m) return undefined;
  const n = Number(m[0].replace(/[^\d.]/g, ''));
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Page-type token of a URL: the first two path segments, any segment with a digit replaced by
 * "#", e.g. "http://h/shop/p/12" → "/shop/p", "http://h/" → "/".
 */
export function pageType(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url.split(/[?#]/)[0] ?? '';
  }
  const segs = path.split('/').filter((s) => s.length > 0).slice(0, 2).map((s) => (/\d/.test(s) ? '#' : s.toLowerCase()));
  return '/' + segs.join('/');
}
