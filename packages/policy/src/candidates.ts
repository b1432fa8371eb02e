// Candidate actions of the pointer policy for one observation: clicks on interactive elements,
// instruction phrases written into fields (with and without Enter), scroll, go back, and `done`
// with answer-like page strings or a plain "finish". Order is deterministic for equal inputs.
import { type ElementInfo, type TextItem, type ToolCallSpec } from '@owrl/core';
import {
  DEFAULT_DIM,
  buildFeatureContext,
  featurize,
  type CandidateKind,
  type CandidateSpec,
  type FeatureInput,
  type SparseFeatures,
} from './features.js';
import { CODE_RE, PRICE_RE, normalize, parseInstruction, phraseTokens, overlap, words } from './text.js';

export interface Candidate {
  label: string;
  calls: ToolCallSpec[];
  kind: CandidateKind;
  features: SparseFeatures;
}

export type CandidateInput = FeatureInput;

export interface CandidateOptions {
  /** Hashed feature dimension; default {@link DEFAULT_DIM}. */
  dim?: number;
  /** Most click candidates (in-viewport elements first); default 40. */
  maxClicks?: number;
  /** Most text fields to write into; default 4. */
  maxFields?: number;
  /** Most answer candidates; default 30. */
  maxAnswers?: number;
  /** Offer every answer-like text, not only those near what the instruction names; default false. */
  allAnswers?: boolean;
}

/** Response of the "finish" candidate (state tasks: the page state is what gets verified). */
export const FINISH_RESPONSE = 'ok';

const CLICK_ROLES = new Set([
  'link', 'button', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'switch', 'treeitem',
]);
const FIELD_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton']);
const FIELD_TYPES = new Set(['', 'text', 'search', 'number', 'email', 'tel', 'url']);
const CLICK_INPUT_TYPES = new Set(['submit', 'button', 'checkbox', 'radio', 'image', 'reset']);

export function isTextField(e: ElementInfo): boolean {
  const tag = e.tag.toLowerCase();
  if (tag === 'select') return false;
  if (tag === 'textarea') return true;
  if (tag === 'input') return FIELD_TYPES.has(e.type.toLowerCase());
  return FIELD_ROLES.has(e.role);
}

export function isClickable(e: ElementInfo): boolean {
  if (isTextField(e)) return false;
  const tag = e.tag.toLowerCase();
  if (tag === 'select') return false;
  if (tag === 'input') return CLICK_INPUT_TYPES.has(e.type.toLowerCase());
  return CLICK_ROLES.has(e.role) || tag === 'a' || tag === 'button' || tag === 'summary';
}

function viewportFirst<T extends { inViewport: boolean }>(xs: readonly T[]): T[] {
  return [...xs.filter((x) => x.inViewport), ...xs.filter((x) => !x.inViewport)];
}

function quote(s: string, n = 40): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return JSON.stringify(t.length > n ? t.slice(0, n - 1) + '…' : t);
}

interface AnswerDraft {
  text: string;
  source: string;
  label: string;
  context: string;
  tag: string;
}

const LABELLED = /^([A-Za-z][A-Za-z0-9 .#/-]{0,30}):\s*(.+)$/;

/** Answer strings a text offers: prices, codes, a labelled value, or the text itself when short and on-topic. */
function answersOf(t: TextItem, instrTokens: readonly string[]): AnswerDraft[] {
  const source = t.text.replace(/\s+/g, ' ').trim();
  if (source === '' || source.length > 200) return [];
  const out: AnswerDraft[] = [];
  const m = LABELLED.exec(source);
  const label = m ? (m[1] ?? '').trim() : '';
  const value = m ? (m[2] ?? '').trim() : source;
  const base = { source, label, context: t.context, tag: t.tag };
  const short = words(source).length <= 8;
  if (short) {
    for (const p of source.matchAll(new RegExp(PRICE_RE.source, 'g'))) out.push({ ...base, text: p[0].trim() });
    for (const c of source.matchAll(new RegExp(CODE_RE.source, 'g'))) out.push({ ...base, text: c[0] });
  }
  if (m && words(value).length <= 6) out.push({ ...base, text: value });
  if (short && overlap(phraseTokens(source), instrTokens) >= 0.5) out.push({ ...base, text: source });
  return out;
}

/** Candidate specs (before featurisation), in their final order. */
export function buildCandidateSpecs(input: CandidateInput, opts: CandidateOptions = {}): CandidateSpec[] {
  const maxClicks = opts.maxClicks ?? 40;
  const maxFields = opts.maxFields ?? 4;
  const maxAnswers = opts.maxAnswers ?? 30;
  const obs = input.observation;
  const instr = parseInstruction(input.instruction);
  const specs: CandidateSpec[] = [];

  for (const e of viewportFirst(obs.elements.filter(isClickable)).slice(0, maxClicks)) {
    specs.push({ kind: 'click', label: `click #${e.id} ${quote(e.name || e.context)}`, calls: [{ name: 'click', args: { element_id: e.id } }], element: e });
  }

  const phrases = [...instr.quoted.map((text) => ({ text, quoted: true })), ...instr.numbers.map((text) => ({ text, quoted: false }))];
  for (const e of viewportFirst(obs.elements.filter(isTextField)).slice(0, maxFields)) {
    const numeric = e.type.toLowerCase() === 'number' || e.role === 'spinbutton';
    for (const p of phrases) {
      if (numeric && !/^-?\d+(?:\.\d+)?$/.test(p.text)) continue;
      const write: ToolCallSpec = { name: 'write', args: { element_id: e.id, message: p.text } };
      const target = `#${e.id} ${quote(e.name, 30)}`;
      specs.push({ kind: 'write', label: `write ${quote(p.text)} into ${target}`, calls: [write], element: e, phrase: p });
      specs.push({
        kind: 'write_enter',
        label: `write ${quote(p.text)} into ${target} + Enter`,
        calls: [write, { name: 'press_keys', args: { keys: ['Enter'] } }],
        element: e,
        phrase: p,
      });
    }
  }

  if (obs.scrollMaxY > obs.scrollY + 1) {
    specs.push({ kind: 'scroll', label: 'scroll down', calls: [{ name: 'scroll', args: { direction: 'down', amount: 0.5 } }] });
  }
  if (input.step > 0) specs.push({ kind: 'back', label: 'go back', calls: [{ name: 'go_back', args: {} }] });

  // Answers come from where the instruction points: when some answer-like texts sit in or next
  // to what the instruction names (quoted phrases, else its content words), only those are
  // offered. This keeps `done` from dominating an untrained policy on pages full of prices.
  const drafts = viewportFirst(obs.texts).flatMap((t) => answersOf(t, instr.allTokens));
  const want = instr.quotedTokens.length > 0 ? instr.quotedTokens : instr.allTokens;
  const relevant = (a: AnswerDraft): boolean =>
    want.length > 0 && Math.max(overlap(want, phraseTokens(a.context)), overlap(want, phraseTokens(a.source))) >= 0.5;
  const pool = opts.allAnswers || !drafts.some(relevant) ? drafts : drafts.filter(relevant);
  const byAnswer = new Map<string, AnswerDraft>();
  for (const a of pool) {
    const key = normalize(a.text);
    const prev = byAnswer.get(key);
    // The same string in several places: keep the first, remember every context it sits in.
    if (prev) {
      if (!prev.context.includes(a.context)) prev.context = `${prev.context} | ${a.context}`;
      if (prev.label === '' && a.label !== '') prev.label = a.label;
    } else if (byAnswer.size < maxAnswers) byAnswer.set(key, { ...a });
  }
  for (const a of byAnswer.values()) {
    specs.push({ kind: 'done', label: `done ${quote(a.text)}`, calls: [{ name: 'done', args: { response: a.text } }], answer: a });
  }
  specs.push({ kind: 'done', label: 'done (finish)', calls: [{ name: 'done', args: { response: FINISH_RESPONSE } }], finish: true });
  return specs;
}

/**
 * Builds the candidate actions of one step with their hashed features. Never empty: the finish
 * candidate is always present.
 */
export function buildCandidates(input: CandidateInput, opts: CandidateOptions = {}): Candidate[] {
  const specs = buildCandidateSpecs(input, opts);
  const ctx = buildFeatureContext(input, specs);
  const dim = opts.dim ?? DEFAULT_DIM;
  return specs.map((s) => ({ label: s.label, calls: s.calls, kind: s.kind, features: featurize(s, ctx, dim) }));
}

/** A call chain in the candidates' shape: a click on a field followed by a write becomes one write into that field. */
function canonicalCalls(calls: readonly ToolCallSpec[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i];
    if (c === undefined) continue;
    const a = c.args as Record<string, unknown>;
    const next = calls[i + 1];
    if (c.name === 'click' && next?.name === 'write' && (next.args as Record<string, unknown>)['element_id'] === undefined) {
      out.push(`write|${String(a['element_id'])}|${normalize(String((next.args as Record<string, unknown>)['message'] ?? ''))}`);
      i++;
      continue;
    }
    switch (c.name) {
      case 'click':
        out.push(`click|${String(a['element_id'])}`);
        break;
      case 'write':
        out.push(`write|${String(a['element_id'])}|${normalize(String(a['message'] ?? ''))}`);
        break;
      case 'press_keys':
        out.push(`press|${JSON.stringify(a['keys'])}`);
        break;
      case 'scroll':
        out.push(`scroll|${String(a['direction'])}`);
        break;
      case 'done':
        out.push(`done|${normalize(String(a['response'] ?? ''))}`);
        break;
      default:
        out.push(c.name);
    }
  }
  return out;
}

/**
 * The index of the candidate that does what `calls` do (a demonstrator's step: a click on a
 * field then a write count as one write into it; scrolls match by direction; answers match after
 * normalisation), or -1 when no candidate does.
 */
export function matchCandidate(candidates: readonly Pick<Candidate, 'calls'>[], calls: readonly ToolCallSpec[]): number {
  const want = canonicalCalls(calls).join('\n');
  if (want === '') return -1;
  return candidates.findIndex((c) => canonicalCalls(c.calls).join('\n') === want);
}
