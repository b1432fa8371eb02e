// The site-state spec of the mail tasks (what `/__owrl/verify/mail` checks): expected flags of
// messages, messages the session must have sent (recipients, subject, body phrases, reply/forward
// links), and optional strictness (no other mail sent, no other message moved). Pure logic.
import { TaskError, TaskErrorCode } from '../errors.js';
import type { VerifyResult } from '../verify-result.js';
import { MAIL_FOLDERS, type MailData, type MailFolder, type MailMessage } from './mail-data.js';
import { mailEntry, parseMailLabel, type MailboxState } from './mail-state.js';

export interface MailMessageExpect {
  folder?: MailFolder;
  starred?: boolean;
  unread?: boolean;
  /** Labels the message must carry (others may be there too). */
  labels?: string[];
}

export interface MailSentExpect {
  /** Exact set of To addresses (case-insensitive). */
  to?: string[];
  /** Exact set of Cc addresses (case-insensitive); absent = not checked. */
  cc?: string[];
  /** Exact subject (case-insensitive, whitespace collapsed). */
  subject?: string;
  /** Phrases the body must contain (case-insensitive, whitespace collapsed, end punctuation ignored). */
  bodyContains?: string[];
  /** Id of the message this must reply to. */
  inReplyTo?: string;
  /** Id of the message this must forward. */
  forwardOf?: string;
}

export interface MailSpec {
  /** Message id → expected flags. */
  messages: Record<string, MailMessageExpect>;
  /** Messages the session must have sent; each is matched by a different sent message. */
  sent: MailSentExpect[];
  /** No message may be sent beyond those of `sent`. */
  exactSent: boolean;
  /** Seeded messages without a `folder` expectation must still be in their seeded folder. */
  othersKeepFolder: boolean;
}

/** Serialises a mail spec as the task's `spec_json` (absent optional parts left out). */
export function mailSpecJson(spec: Partial<MailSpec>): string {
  return JSON.stringify({
    messages: spec.messages ?? {},
    sent: spec.sent ?? [],
    exactSent: spec.exactSent ?? false,
    othersKeepFolder: spec.othersKeepFolder ?? false,
  });
}

function bad(message: string): TaskError {
  return new TaskError(TaskErrorCode.BadSpec, message, { field: 'spec_json' });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function onlyKeys(obj: Record<string, unknown>, where: string, keys: readonly string[]): void {
  for (const k of Object.keys(obj)) {
    if (!keys.includes(k)) throw bad(`${where}.${k} is not a known field (fields: ${keys.join(', ')})`);
  }
}

function bool(v: unknown, where: string): boolean | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw bad(`${where} = ${JSON.stringify(v)} must be a boolean`);
  return v;
}

function str(v: unknown, where: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '') throw bad(`${where} = ${JSON.stringify(v)} must be a non-empty string`);
  return v;
}

function strList(v: unknown, where: string): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw bad(`${where} = ${JSON.stringify(v)} must be an array of strings`);
  return v.map((x, i) => str(x, `${where}[${i}]`) as string);
}

function parseMessageExpect(v: unknown, where: string): MailMessageExpect {
  if (!isObject(v)) throw bad(`${where} must be an object like {"folder":"archive","starred":true}`);
  onlyKeys(v, where, ['folder', 'starred', 'unread', 'labels']);
  const out: MailMessageExpect = {};
  if (v['folder'] !== undefined) {
    const f = v['folder'];
    if (typeof f !== 'string' || !(MAIL_FOLDERS as readonly string[]).includes(f)) {
      throw bad(`${where}.folder = ${JSON.stringify(f)} must be one of ${MAIL_FOLDERS.join(', ')}`);
    }
    out.folder = f as MailFolder;
  }
  const starred = bool(v['starred'], `${where}.starred`);
  if (starred !== undefined) out.starred = starred;
  const unread = bool(v['unread'], `${where}.unread`);
  if (unread !== undefined) out.unread = unread;
  const labels = strList(v['labels'], `${where}.labels`);
  if (labels !== undefined) {
    labels.forEach((l, i) => {
      if (parseMailLabel(l) === undefined) throw bad(`${where}.labels[${i}] = ${JSON.stringify(l)} is not a mail label`);
    });
    out.labels = labels;
  }
  if (Object.keys(out).length === 0) throw bad(`${where} expects nothing`);
  return out;
}

const SENT_KEYS = ['to', 'cc', 'subject', 'bodyContains', 'inReplyTo', 'forwardOf'] as const;

function parseSentExpect(v: unknown, where: string): MailSentExpect {
  if (!isObject(v)) throw bad(`${where} must be an object like {"to":["a@b.example"],"subject":"Hello"}`);
  onlyKeys(v, where, SENT_KEYS);
  const out: MailSentExpect = {};
  const to = strList(v['to'], `${where}.to`);
  if (to !== undefined) {
    if (to.length === 0) throw bad(`${where}.to must name at least one address`);
    out.to = to;
  }
  const cc = strList(v['cc'], `${where}.cc`);
  if (cc !== undefined) out.cc = cc;
  const subject = str(v['subject'], `${where}.subject`);
  if (subject !== undefined) out.subject = subject;
  const body = strList(v['bodyContains'], `${where}.bodyContains`);
  if (body !== undefined) out.bodyContains = body;
  const irt = str(v['inReplyTo'], `${where}.inReplyTo`);
  if (irt !== undefined) out.inReplyTo = irt;
  const fwd = str(v['forwardOf'], `${where}.forwardOf`);
  if (fwd !== undefined) out.forwardOf = fwd;
  if (out.to === undefined) throw bad(`${where}.to is missing`);
  return out;
}

/**
 * Parses `spec_json` of the mail site-state check.
 * @throws TaskError TASK_BAD_SPEC naming what is wrong (not JSON, unknown field, wrong type, an
 *   unknown folder or label, a spec that expects nothing).
 */
export function parseMailSpec(json: string): MailSpec {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (cause) {
    throw new TaskError(TaskErrorCode.BadSpec, `spec ${JSON.stringify(json)} is not JSON`, { cause, field: 'spec_json' });
  }
  if (!isObject(raw)) throw bad('spec must be a JSON object like {"messages":{"m07":{"starred":true}},"sent":[]}');
  onlyKeys(raw, 'spec', ['messages', 'sent', 'exactSent', 'othersKeepFolder']);
  const msgsRaw = raw['messages'] ?? {};
  if (!isObject(msgsRaw)) throw bad('spec.messages must be an object of message id → expected flags');
  const messages: Record<string, MailMessageExpect> = {};
  for (const [id, v] of Object.entries(msgsRaw)) messages[id] = parseMessageExpect(v, `spec.messages[${JSON.stringify(id)}]`);
  const sentRaw = raw['sent'] ?? [];
  if (!Array.isArray(sentRaw)) throw bad('spec.sent must be an array of expected sent messages');
  const sent = sentRaw.map((v, i) => parseSentExpect(v, `spec.sent[${i}]`));
  const exactSent = bool(raw['exactSent'], 'spec.exactSent') ?? false;
  const othersKeepFolder = bool(raw['othersKeepFolder'], 'spec.othersKeepFolder') ?? false;
  if (Object.keys(messages).length === 0 && sent.length === 0 && !exactSent) throw bad('spec expects nothing (no messages, no sent mail)');
  return { messages, sent, exactSent, othersKeepFolder };
}

/** Lower case, whitespace collapsed, trailing sentence punctuation dropped. */
function norm(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim().replace(/[.!?]+$/, '').trim();
}

function sameSet(want: readonly string[], have: readonly string[]): boolean {
  const w = new Set(want.map((x) => x.trim().toLowerCase()));
  const h = new Set(have.map((x) => x.trim().toLowerCase()));
  return w.size === h.size && [...w].every((x) => h.has(x));
}

/** What differs between a sent message and an expectation (empty = it matches). */
function sentDiffs(m: MailMessage, e: MailSentExpect): string[] {
  const out: string[] = [];
  const to = m.to.map((a) => a.email);
  const cc = m.cc.map((a) => a.email);
  if (e.to && !sameSet(e.to, to)) out.push(`to: want ${e.to.join(', ')}, have ${to.join(', ') || '(none)'}`);
  if (e.cc && !sameSet(e.cc, cc)) out.push(`cc: want ${e.cc.join(', ') || '(none)'}, have ${cc.join(', ') || '(none)'}`);
  if (e.subject !== undefined && norm(e.subject) !== norm(m.subject)) out.push(`subject: want ${JSON.stringify(e.subject)}, have ${JSON.stringify(m.subject)}`);
  const body = norm(m.lines.join(' '));
  for (const p of e.bodyContains ?? []) {
    if (!body.includes(norm(p))) out.push(`body lacks ${JSON.stringify(p)}`);
  }
  if (e.inReplyTo !== undefined && m.inReplyTo !== e.inReplyTo) out.push(`not a reply to ${e.inReplyTo}`);
  if (e.forwardOf !== undefined && m.forwardOf !== e.forwardOf) out.push(`not a forward of ${e.forwardOf}`);
  return out;
}

/** Assigns a different sent message to each expectation (backtracking; lists are tiny). */
function assign(exps: readonly MailSentExpect[], sent: readonly MailMessage[], i = 0, used = new Set<number>()): boolean {
  if (i === exps.length) return true;
  const e = exps[i] as MailSentExpect;
  for (let k = 0; k < sent.length; k++) {
    if (used.has(k) || sentDiffs(sent[k] as MailMessage, e).length > 0) continue;
    used.add(k);
    if (assign(exps, sent, i + 1, used)) return true;
    used.delete(k);
  }
  return false;
}

function describeExpect(e: MailSentExpect): string {
  return `${e.subject !== undefined ? JSON.stringify(e.subject) : 'a message'} to ${(e.to ?? []).join(', ')}`;
}

/**
 * Checks a session's mailbox against a spec; `detail` names every difference (message flags,
 * the closest sent message of each unmatched expectation, extra sent mail, moved messages).
 */
export function checkMailbox(data: MailData, state: MailboxState, spec: MailSpec): VerifyResult {
  const problems: string[] = [];
  const good: string[] = [];
  for (const [id, exp] of Object.entries(spec.messages)) {
    const entry = mailEntry(data, state, id);
    if (entry === undefined) {
      problems.push(`${id}: no such message`);
      continue;
    }
    const f = entry.flags;
    const what = `${id} ${JSON.stringify(entry.message.subject)}`;
    const before = problems.length;
    if (exp.folder !== undefined && f.folder !== exp.folder) problems.push(`${what}: want folder ${exp.folder}, have ${f.folder}`);
    if (exp.starred !== undefined && f.starred !== exp.starred) problems.push(`${what}: want ${exp.starred ? 'starred' : 'not starred'}, have ${f.starred ? 'starred' : 'not starred'}`);
    if (exp.unread !== undefined && f.unread !== exp.unread) problems.push(`${what}: want ${exp.unread ? 'unread' : 'read'}, have ${f.unread ? 'unread' : 'read'}`);
    for (const l of exp.labels ?? []) {
      const label = parseMailLabel(l);
      if (label !== undefined && !f.labels.includes(label)) problems.push(`${what}: want label ${label}, have ${f.labels.join(', ') || 'no labels'}`);
    }
    if (problems.length === before) good.push(id);
  }

  if (!assign(spec.sent, state.sent)) {
    // Name, for each expectation, the sent message closest to it.
    for (const e of spec.sent) {
      if (state.sent.some((m) => sentDiffs(m, e).length === 0)) continue;
      if (state.sent.length === 0) {
        problems.push(`no message sent; want ${describeExpect(e)}`);
        continue;
      }
      const ranked = state.sent.map((m) => ({ m, d: sentDiffs(m, e) })).sort((a, b) => a.d.length - b.d.length);
      const best = ranked[0] as { m: MailMessage; d: string[] };
      problems.push(`want ${describeExpect(e)}; closest sent ${best.m.id} ${JSON.stringify(best.m.subject)}: ${best.d.join('; ')}`);
    }
    if (!problems.some((p) => p.startsWith('want ') || p.startsWith('no message sent'))) {
      problems.push(`the ${spec.sent.length} expected messages need ${spec.sent.length} different sent messages`);
    }
  } else if (spec.sent.length > 0) {
    good.push(`${spec.sent.length} sent`);
  }
  if (spec.exactSent && state.sent.length > spec.sent.length) {
    const extra = state.sent.length - spec.sent.length;
    problems.push(`${extra} more message${extra === 1 ? '' : 's'} sent than expected (sent: ${state.sent.map((m) => JSON.stringify(m.subject)).join(', ')})`);
  }
  if (spec.othersKeepFolder) {
    for (const m of data.messages) {
      if (spec.messages[m.id]?.folder !== undefined) continue;
      const f = state.flags.get(m.id);
      if (f && f.folder !== m.folder) problems.push(`${m.id} ${JSON.stringify(m.subject)}: moved from ${m.folder} to ${f.folder}`);
    }
  }
  if (problems.length > 0) return { ok: false, detail: `mailbox differs: ${problems.join('; ')}` };
  return { ok: true, detail: `mailbox matches${good.length > 0 ? `: ${good.join(', ')}` : ''}` };
}
