// Hashed sparse features of candidate actions for the pointer policy.
//
// Every feature is a string hashed with FNV-1a into [0, dim); duplicates are summed; indices come
// out sorted. Feature kinds ("fk") split `done` into `ans` (answer with a page string) and `fin`
// (finish, for state tasks). Values are 1 or a bounded real in [0, 1], scaled by a tier:
//
// With Adam every weight moves at about the same rate, so a feature's value is its effective
// learning-rate multiplier. The tiers below were tuned on the fake shop of packages/rl/test (8
// families, fresh random catalog per task): without them, what the easiest family learns first
// ("answer the price at once") swamps the others, whose groups then all fail and stop training.
//   • crossed (×1): a copy of the feature per instruction keyword ("price", "sku", "add", "cart",
//     "search", "cheapest", "#num" ...), so each task type learns its own use of it;
//   • generic copy: the same feature without keyword, at GENERIC_VALUE (0.2) for answer details,
//     MATCH_VALUE (0.3) for "the target is what the instruction names", 0 for step context;
//   • uncrossed instruction-relative features (×1) that mean the same in every task.
//
// Step context (crossed, no generic copy):
//   b|fk  st|fk|step  left|fk|steps-left  pg|fk|page-type (first two URL path segments)
//   qp|fk (title/heading shows a quoted phrase: "on its page")  eff|fk|last-effect-kind
//   lastk|fk|previous-action-kind  numset|fk (a field holds the instruction's number)
// Uncrossed: rep|fk (same calls already made on this URL), stat|fk|w (words of short page texts
//   sharing a keyword, e.g. "Added 1 × Mug to the cart." for "Add ... to the cart").
// Click / write targets: qn|fk qeq|fk qc|fk (quoted phrase in name / equal to name / in card
//   context), ovq|fk (share of quoted tokens in the name), ovin|fk (share of the name's words the
//   instruction uses: 1 for the named product and for "Add to cart") — crossed + MATCH_VALUE copy;
//   ovk|fk (share of keywords in the name); kwxn|fk|kw|token and kwxr|fk|kw|role crosses; nm, role,
//   dest (link destination page type, G) and destkw|fk|page|kw; self / visited links (crossed);
//   pmin / pmax / pmid (the card holds the lowest / highest price on the page; G + crossed).
// Writes: wq / wn (quoted phrase / number), wf|fk|type|field-token, wt|fk|type|input-type (G);
//   wkw|fk|kw|field-token ("search" × "search products"); wval (field already holds it), wvalne.
// Answers: sh (shape: price, code, number, short, long), lab (label of "Label: value"), tag, qt
//   (text contains a quoted phrase), qc (context does), ovq, ovqb, ovk, pmin/pmax — crossed + G
//   copy; uncrossed: asked|ans (the answer is of the kind asked: a price for "price", a code or a
//   "SKU:" label for "sku") and qcasked|ans (and it sits next to the named thing).
// Finish: finlast|kw and finlastov (the previous step's reasoning mentions the keywords).
import { fnv1a, type ElementInfo, type HistoryEntry, type Observation, type ToolCallSpec } from '@owrl/core';
import {
  answerShape,
  contentTokens,
  normalize,
  overlap,
  pageType,
  parseInstruction,
  parsePrice,
  phraseTokens,
  stem,
  words,
  type ParsedInstruction,
} from './text.js';

/**
 * Value of task-agnostic features (kind biases, page type, step, roles...). With Adam every weight
 * moves at about the same rate, so a feature's value is its effective learning-rate multiplier:
 * keeping these small lets instruction-conditioned crosses decide, and stops what one task
 * family learns (e.g. "answer at once" from price questions) from swamping the others.
 */
export const GENERIC_VALUE = 0.2;
const G = GENERIC_VALUE;
/** Value of the uncrossed copy of step-context features (kind × step, page, last effect...). */
export const STATE_GENERIC_VALUE = 0;

/** Value of the kind-agnostic match features (qn|*, qc|*, qt|*, ovq|*). */
export const MATCH_VALUE = 0.3;

/** Instruction words that ask for an answer of each shape ("how much" → price, "sku" → code). */
const SHAPE_WORDS: Record<string, readonly string[]> = {
  price: ['price', 'cost', 'much', 'total', 'amount', 'pay'],
  code: ['sku', 'code', 'id', 'model', 'part', 'reference', 'serial', 'number'],
  number: ['number', 'many', 'count', 'quantity', 'stock', 'rating'],
};

/** Default hashed feature dimension (2^18). */
export const DEFAULT_DIM = 1 << 18;

/** Sparse feature vector of one candidate: parallel arrays, indices sorted ascending. */
export interface SparseFeatures {
  index: Uint32Array;
  value: Float32Array;
}

export type CandidateKind = 'click' | 'write' | 'write_enter' | 'scroll' | 'back' | 'done';

/** What a candidate acts on, for featurisation (not part of the public candidate). */
export interface CandidateSpec {
  kind: CandidateKind;
  label: string;
  calls: ToolCallSpec[];
  element?: ElementInfo;
  phrase?: { text: string; quoted: boolean };
  answer?: { text: string; source: string; label: string; context: string; tag: string };
  finish?: boolean;
}

export interface FeatureInput {
  instruction: string;
  observation: Observation;
  history: readonly HistoryEntry[];
  step: number;
  maxSteps: number;
}

/** Per-observation facts shared by all candidates of one step. */
export interface FeatureContext {
  instr: ParsedInstruction;
  page: string;
  url: string;
  step: number;
  left: number;
  quotedOnPage: boolean;
  effects: string[];
  lastKind: string;
  lastReasonTokens: string[];
  repeated: Set<string>;
  visited: Set<string>;
  numberSet: boolean;
  statusWords: string[];
  clickPriceMin: number | undefined;
  clickPriceMax: number | undefined;
  answerPriceMin: number | undefined;
  answerPriceMax: number | undefined;
}

function stripHash(u: string): string {
  const i = u.indexOf('#');
  return i >= 0 ? u.slice(0, i) : u;
}

/** Key identifying "the same calls on the same page" for the repeat feature. */
export function callKey(url: string, calls: readonly ToolCallSpec[]): string {
  return stripHash(url) + '|' + JSON.stringify(calls);
}

function kindOfCalls(calls: readonly ToolCallSpec[]): string {
  const first = calls[0];
  if (!first) return 'none';
  if (first.name === 'write') return calls.some((c) => c.name === 'press_keys') ? 'write_enter' : 'write';
  return first.name;
}

function minMax(xs: readonly (number | undefined)[]): [number | undefined, number | undefined] {
  const vals = xs.filter((x): x is number => x !== undefined);
  if (new Set(vals).size < 2) return [undefined, undefined];
  return [Math.min(...vals), Math.max(...vals)];
}

/** Builds the per-step context; `specs` are the candidates of the step (for price ranks). */
export function buildFeatureContext(input: FeatureInput, specs: readonly CandidateSpec[]): FeatureContext {
  const { observation: obs, history } = input;
  const instr = parseInstruction(input.instruction);
  const title = normalize(obs.title);
  const headings = obs.texts.filter((t) => /^h[1-3]$/i.test(t.tag)).map((t) => normalize(t.text));
  const quotedOnPage = instr.quotedNorm.some((q) => title.includes(q) || headings.some((h) => h.includes(q)));
  const effects = [...new Set(obs.lastEffects.map((e) => /^[a-z_]+/i.exec(e.trim())?.[0]?.toLowerCase() ?? 'other'))];
  const last = history[history.length - 1];
  const repeated = new Set(history.map((h) => callKey(h.url, h.calls)));
  const visited = new Set(history.map((h) => stripHash(h.url)));
  const numberSet = instr.numbers.length > 0 && obs.elements.some((e) => e.value !== '' && instr.numbers.includes(e.value.trim()));
  const kw = new Set(instr.keywords);
  const statusWords = new Set<string>();
  for (const t of obs.texts) {
    const ws = words(t.text);
    if (ws.length === 0 || ws.length > 12) continue;
    if (!ws.some((w) => kw.has(stem(w)))) continue;
    for (const w of ws) statusWords.add(w);
  }
  const [clickPriceMin, clickPriceMax] = minMax(specs.filter((s) => s.kind === 'click').map((s) => parsePrice(s.element?.context ?? '')));
  const [answerPriceMin, answerPriceMax] = minMax(
    specs.filter((s) => s.answer && answerShape(s.answer.text) === 'price').map((s) => parsePrice(s.answer?.text ?? '')),
  );
  return {
    instr,
    page: pageType(obs.url),
    url: stripHash(obs.url),
    step: input.step,
    left: input.maxSteps - input.step,
    quotedOnPage,
    effects,
    lastKind: last ? kindOfCalls(last.calls) : 'none',
    lastReasonTokens: last ? contentTokens(last.reasoning).slice(0, 16) : [],
    repeated,
    visited,
    numberSet,
    statusWords: [...statusWords].slice(0, 12),
    clickPriceMin,
    clickPriceMax,
    answerPriceMin,
    answerPriceMax,
  };
}

class FeatureSink {
  readonly acc = new Map<number, number>();
  constructor(
    private readonly dim: number,
    private readonly crossWith: readonly string[] = [],
  ) {}
  /** The feature at the generic value, plus one full-value copy per instruction keyword. */
  addX(name: string, value = 1, generic = GENERIC_VALUE): void {
    this.add(name, value * generic);
    for (const k of this.crossWith) this.add(`${name}|${k}`, value);
  }
  add(name: string, value = 1): void {
    if (value === 0 || !Number.isFinite(value)) return;
    const i = fnv1a(name) % this.dim;
    this.acc.set(i, (this.acc.get(i) ?? 0) + value);
  }
  build(): SparseFeatures {
    const idx = [...this.acc.keys()].sort((a, b) => a - b);
    const value = new Float32Array(idx.length);
    idx.forEach((i, k) => (value[k] = this.acc.get(i) ?? 0));
    return { index: Uint32Array.from(idx), value };
  }
}

function bucket(x: number): string {
  if (x <= 0) return '0';
  if (x < 0.34) return 'lo';
  if (x < 0.67) return 'mid';
  if (x < 1) return 'hi';
  return '1';
}

function featureKind(spec: CandidateSpec): string {
  if (spec.kind === 'done') return spec.finish ? 'fin' : 'ans';
  return spec.kind;
}

/** Computes the sparse features of one candidate. Deterministic for equal inputs. */
export function featurize(spec: CandidateSpec, ctx: FeatureContext, dim: number = DEFAULT_DIM): SparseFeatures {
  const kws = ctx.instr.keywords;
  const f = new FeatureSink(dim, kws);
  const fk = featureKind(spec);
  const qn = ctx.instr.quotedNorm;

  // Step context, shared by every kind: a weak generic copy plus one copy per keyword (and the
  // instruction intent), so "answer at once on a category page" is learned per task type.
  f.addX(`b|${fk}`, 1, STATE_GENERIC_VALUE);
  f.addX(`st|${fk}|${Math.min(ctx.step, 6)}`, 1, STATE_GENERIC_VALUE);
  f.addX(`left|${fk}|${Math.min(Math.max(ctx.left, 0), 3)}`, 1, STATE_GENERIC_VALUE);
  f.addX(`pg|${fk}|${ctx.page}`, 1, STATE_GENERIC_VALUE);
  if (ctx.quotedOnPage) f.addX(`qp|${fk}`, 1, STATE_GENERIC_VALUE);
  for (const e of ctx.effects) f.addX(`eff|${fk}|${e}`, 1, STATE_GENERIC_VALUE);
  f.addX(`lastk|${fk}|${ctx.lastKind}`, 1, STATE_GENERIC_VALUE);
  if (ctx.repeated.has(callKey(ctx.url, spec.calls))) f.add(`rep|${fk}`);
  if (ctx.numberSet) f.addX(`numset|${fk}`, 1, STATE_GENERIC_VALUE);
  for (const w of ctx.statusWords) f.add(`stat|${fk}|${w}`);

  const el = spec.element;
  if (el && (spec.kind === 'click' || spec.kind === 'write' || spec.kind === 'write_enter')) {
    const name = normalize(el.name);
    const ctxText = normalize(el.context);
    const nameToks = phraseTokens(el.name).slice(0, 8);
    f.add(`role|${fk}|${el.role}`, G);
    // Match features of the target: crossed with the keywords (a family learns its own use of
    // them: "price" answers in place, "sku" clicks the product) plus a generic copy that carries
    // "act on what the instruction names" to families that have not succeeded yet.
    if (qn.some((q) => name.includes(q))) f.addX(`qn|${fk}`, 1, MATCH_VALUE);
    if (qn.some((q) => name === q)) f.addX(`qeq|${fk}`, 1, MATCH_VALUE);
    if (qn.some((q) => ctxText.includes(q))) f.addX(`qc|${fk}`, 1, MATCH_VALUE);
    const ovq = overlap(ctx.instr.quotedTokens, nameToks);
    f.addX(`ovq|${fk}`, ovq, MATCH_VALUE);
    f.addX(`ovqb|${fk}|${bucket(ovq)}`, 1, G);
    f.add(`ovk|${fk}`, overlap(ctx.instr.keywords, nameToks));
    // Share of the element's own words that the instruction uses: "Blue Mug" for a quoted
    // "Blue Mug" and "Add to cart" for "Add ... to the cart" both score 1, so what is learned
    // clicking products transfers to clicking the right button.
    const ovin = overlap(nameToks, ctx.instr.allTokens);
    f.addX(`ovin|${fk}`, ovin, MATCH_VALUE);
    f.addX(`ovinb|${fk}|${bucket(ovin)}`, 1, G);
    for (const t of nameToks.slice(0, 6)) f.add(`nm|${fk}|${t}`, G);
    for (const k of kws) {
      f.add(`kwxr|${fk}|${k}|${el.role}`);
      for (const t of nameToks.slice(0, 6)) f.add(`kwxn|${fk}|${k}|${t}`);
    }
    if (spec.kind === 'click') {
      if (el.href) {
        const dest = pageType(el.href);
        f.add(`dest|${fk}|${dest}`, G);
        for (const k of kws) f.add(`destkw|${fk}|${dest}|${k}`);
        const h = stripHash(el.href);
        if (h === ctx.url) f.addX(`self|${fk}`);
        else if (ctx.visited.has(h)) f.addX(`visited|${fk}`);
      }
      const p = parsePrice(el.context);
      if (p !== undefined && ctx.clickPriceMin !== undefined) {
        const tag = p === ctx.clickPriceMin ? 'pmin' : p === ctx.clickPriceMax ? 'pmax' : 'pmid';
        f.add(`${tag}|${fk}`, G);
        for (const k of kws) f.add(`${tag}|${fk}|${k}`);
      }
    }
  }

  const ph = spec.phrase;
  if (el && ph) {
    const pt = ph.quoted ? 'q' : 'n';
    f.add(`w${pt}|${fk}`, G);
    const fieldToks = phraseTokens(el.name).slice(0, 6);
    for (const t of fieldToks) f.add(`wf|${fk}|${pt}|${t}`, G);
    f.add(`wt|${fk}|${pt}|${el.type || el.tag}`, G);
    for (const k of kws) for (const t of fieldToks) f.add(`wkw|${fk}|${k}|${t}`);
    const v = normalize(el.value);
    if (v !== '' && v === normalize(ph.text)) f.add(`wval|${fk}`);
    else if (v !== '') f.add(`wvalne|${fk}`);
  }

  const ans = spec.answer;
  if (ans) {
    // Answers end the episode, so what one question family learns must not leak into others:
    // answer features are crossed with the instruction keywords (plus a weak generic copy). The
    // uncrossed exceptions are instruction-relative: the answer is of the kind asked for (a price
    // for "price", a code or a "SKU:" label for "sku"), which transfers from one question to the next.
    const text = normalize(ans.text);
    const ctxText = normalize(ans.context);
    const shape = answerShape(ans.text);
    f.addX(`sh|${fk}|${shape}`);
    const labToks = phraseTokens(ans.label).slice(0, 4);
    for (const t of labToks) f.addX(`lab|${fk}|${t}`);
    const asked = labToks.some((t) => kws.includes(t)) || (SHAPE_WORDS[shape] ?? []).some((w) => kws.includes(w));
    if (asked) f.add(`asked|${fk}`);
    f.addX(`tag|${fk}|${ans.tag.toLowerCase()}`);
    if (qn.some((q) => text.includes(q))) f.addX(`qt|${fk}`);
    if (qn.some((q) => ctxText.includes(q))) {
      f.addX(`qc|${fk}`);
      if (asked) f.add(`qcasked|${fk}`);
    }
    const ovq = overlap(ctx.instr.quotedTokens, phraseTokens(ans.context));
    f.addX(`ovq|${fk}`, ovq);
    f.addX(`ovqb|${fk}|${bucket(ovq)}`);
    f.addX(`ovk|${fk}`, overlap(ctx.instr.keywords, contentTokens(ans.source)));
    if (shape === 'price' && ctx.answerPriceMin !== undefined) {
      const p = parsePrice(ans.text);
      f.addX(`${p === ctx.answerPriceMin ? 'pmin' : p === ctx.answerPriceMax ? 'pmax' : 'pmid'}|${fk}`);
    }
  }

  if (spec.finish) {
    // What the previous step did, in the words of its reasoning ("click "Add to cart"").
    const lr = new Set(ctx.lastReasonTokens);
    for (const k of kws) if (lr.has(k)) f.add(`finlast|${k}`);
    f.add('finlastov', overlap(ctx.instr.keywords, ctx.lastReasonTokens));
  }
  return f.build();
}
