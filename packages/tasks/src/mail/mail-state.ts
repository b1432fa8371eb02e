// One session's mailbox over the seeded data: current flags of every message (folder, unread,
// star, labels) and the messages sent in the session, with the pure rules the site and the
// verifier share (listing, search, recipients, reply/forward addressing, sending).
import { TaskError, TaskErrorCode } from '../errors.js';
import {
  MAIL_LABELS,
  MAIL_ME,
  MAIL_TODAY_MINUTES,
  mailDateAt,
  mailSearchText,
  type MailAddress,
  type MailData,
  type MailFolder,
  type MailLabel,
  type MailMessage,
} from './mail-data.js';

export interface MailFlags {
  folder: MailFolder;
  unread: boolean;
  starred: boolean;
  labels: MailLabel[];
}

export interface MailboxState {
  /** Current flags of every message (seeded and sent), by id. */
  flags: Map<string, MailFlags>;
  /** Messages sent in this session, oldest first (ids `s1`, `s2`...). */
  sent: MailMessage[];
}

/** A list a page shows: a folder, the starred view, or a label. */
export type MailView = { kind: 'folder'; folder: MailFolder } | { kind: 'starred' } | { kind: 'label'; label: MailLabel };

export interface MailEntry {
  message: MailMessage;
  flags: MailFlags;
}

/** The initial state: every seeded message with its seeded flags, nothing sent. */
export function newMailboxState(data: MailData): MailboxState {
  const flags = new Map<string, MailFlags>();
  for (const m of data.messages) flags.set(m.id, { folder: m.folder, unread: m.unread, starred: m.starred, labels: [...m.labels] });
  return { flags, sent: [] };
}

/** Every message with its current flags, newest first (sent-in-session messages are newest). */
export function mailEntries(data: MailData, state: MailboxState): MailEntry[] {
  const out: MailEntry[] = [];
  for (const m of [...state.sent].reverse()) {
    const f = state.flags.get(m.id);
    if (f) out.push({ message: m, flags: f });
  }
  for (const m of data.messages) {
    const f = state.flags.get(m.id);
    if (f) out.push({ message: m, flags: f });
  }
  return out;
}

export function mailEntry(data: MailData, state: MailboxState, id: string): MailEntry | undefined {
  const message = data.byId.get(id) ?? state.sent.find((m) => m.id === id);
  const flags = state.flags.get(id);
  return message && flags ? { message, flags } : undefined;
}

/** Messages of a view, newest first. Starred and label views leave out Trash. */
export function listMailView(data: MailData, state: MailboxState, view: MailView): MailEntry[] {
  return mailEntries(data, state).filter((e) => {
    switch (view.kind) {
      case 'folder':
        return e.flags.folder === view.folder;
      case 'starred':
        return e.flags.starred && e.flags.folder !== 'trash';
      case 'label':
        return e.flags.labels.includes(view.label) && e.flags.folder !== 'trash';
    }
  });
}

/** Words of a search query (lower case; empty words dropped). */
export function mailQueryTerms(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter((w) => w.length > 0);
}

/**
 * Search over all folders but Trash: a message matches when every query word occurs in its
 * sender, recipients, subject, body or attachment names (case-insensitive). Newest first.
 */
export function searchMail(data: MailData, state: MailboxState, query: string): MailEntry[] {
  const terms = mailQueryTerms(query);
  if (terms.length === 0) return [];
  return mailEntries(data, state).filter((e) => {
    if (e.flags.folder === 'trash') return false;
    const text = mailSearchText(e.message);
    return terms.every((t) => text.includes(t));
  });
}

/** Label by name, case-insensitive (`finance` → `Finance`). */
export function parseMailLabel(s: string): MailLabel | undefined {
  return MAIL_LABELS.find((l) => l.toLowerCase() === s.trim().toLowerCase());
}

const EMAIL_RE = /^[^@\s<>,;]+@[^@\s<>,;]+\.[^@\s<>,;]+$/;

/**
 * Parses a recipient field: comma- or semicolon-separated entries, each an address, `Name
 * <address>`, or the exact name of a contact. Duplicates are dropped.
 * @throws TaskError TASK_BAD_ARGUMENT naming the entry that is none of these.
 */
export function parseMailRecipients(data: MailData, field: string): MailAddress[] {
  const out: MailAddress[] = [];
  for (const rawEntry of field.split(/[,;]/)) {
    const entry = rawEntry.replace(/\s+/g, ' ').trim();
    if (entry === '') continue;
    let addr: MailAddress | undefined;
    const angle = /^(.*?)\s*<([^<>]+)>$/.exec(entry);
    if (angle && EMAIL_RE.test((angle[2] ?? '').trim())) {
      const email = (angle[2] ?? '').trim().toLowerCase();
      const contact = data.contacts.find((c) => c.email === email);
      addr = { name: contact?.name ?? ((angle[1] ?? '').trim() || email), email };
    } else if (EMAIL_RE.test(entry)) {
      const email = entry.toLowerCase();
      const contact = data.contacts.find((c) => c.email === email);
      addr = { name: contact?.name ?? email, email };
    } else {
      const contact = data.contacts.find((c) => c.name.toLowerCase() === entry.toLowerCase());
      if (contact) addr = { name: contact.name, email: contact.email };
    }
    if (addr === undefined) {
      throw new TaskError(TaskErrorCode.BadArgument, `recipient "${entry}" is not an email address or the name of a contact`, { field: 'recipients' });
    }
    if (!out.some((a) => a.email === addr.email)) out.push(addr);
  }
  return out;
}

/** `Name <address>, ...` of a list of addresses (the form a recipient field is prefilled with). */
export function formatMailRecipients(list: readonly MailAddress[]): string {
  return list.map((a) => (a.name && a.name !== a.email ? `${a.name} <${a.email}>` : a.email)).join(', ');
}

const isMe = (a: MailAddress): boolean => a.email.toLowerCase() === MAIL_ME.email;

function prefixed(prefix: 'Re' | 'Fwd', subject: string): string {
  return new RegExp(`^${prefix}:`, 'i').test(subject) ? subject : `${prefix}: ${subject}`;
}

/** Addressing of a reply (or reply-all) to `m`: my own messages are answered to their recipients. */
export function mailReplyAddressing(m: MailMessage, all: boolean): { to: MailAddress[]; cc: MailAddress[]; subject: string } {
  const subject = prefixed('Re', m.subject);
  if (isMe(m.from)) return { to: [...m.to], cc: all ? [...m.cc] : [], subject };
  if (!all) return { to: [m.from], cc: [], subject };
  const to = [m.from, ...m.to.filter((a) => !isMe(a) && a.email !== m.from.email)];
  return { to, cc: m.cc.filter((a) => !isMe(a)), subject };
}

export function mailForwardSubject(m: MailMessage): string {
  return prefixed('Fwd', m.subject);
}

export interface MailOutgoing {
  to: MailAddress[];
  cc: MailAddress[];
  subject: string;
  body: string;
  /** Id of the message replied to, when this is a reply. */
  inReplyTo?: string | undefined;
  /** Id of the forwarded message (its attachments go along). */
  forwardOf?: string | undefined;
}

/**
 * Sends a message in this session: it is stored in Sent with the next `s<n>` id.
 * @throws TaskError TASK_BAD_ARGUMENT when there is no recipient or the replied/forwarded
 *   message does not exist.
 */
export function sendMail(data: MailData, state: MailboxState, out: MailOutgoing): MailMessage {
  if (out.to.length === 0) throw new TaskError(TaskErrorCode.BadArgument, 'add at least one recipient in "To"', { field: 'to' });
  const parent = out.inReplyTo !== undefined ? mailEntry(data, state, out.inReplyTo) : undefined;
  if (out.inReplyTo !== undefined && parent === undefined) {
    throw new TaskError(TaskErrorCode.BadArgument, `the message replied to (${out.inReplyTo}) does not exist`, { field: 'reply_to' });
  }
  const fwd = out.forwardOf !== undefined ? mailEntry(data, state, out.forwardOf) : undefined;
  if (out.forwardOf !== undefined && fwd === undefined) {
    throw new TaskError(TaskErrorCode.BadArgument, `the forwarded message (${out.forwardOf}) does not exist`, { field: 'forward_of' });
  }
  const n = state.sent.length + 1;
  const id = `s${n}`;
  const m: MailMessage = {
    id,
    threadId: parent?.message.threadId ?? `t-${id}`,
    from: MAIL_ME,
    to: out.to,
    cc: out.cc,
    subject: out.subject.replace(/\s+/g, ' ').trim(),
    lines: out.body.split(/\r?\n/).map((l) => l.trimEnd()),
    date: mailDateAt(MAIL_TODAY_MINUTES + n),
    attachments: fwd ? [...fwd.message.attachments] : [],
    folder: 'sent',
    unread: false,
    starred: false,
    labels: [],
    kind: 'note',
    facts: [],
    recent: false,
  };
  if (parent) m.inReplyTo = parent.message.id;
  if (fwd) m.forwardOf = fwd.message.id;
  state.sent.push(m);
  state.flags.set(id, { folder: 'sent', unread: false, starred: false, labels: [] });
  return m;
}
