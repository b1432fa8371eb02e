// Seeded task generator of the bundled web mail (suite `mail`). A task is fully determined by the
// data seed, its family and an index into the family's targets (what its id `mail/<family>/<nnnn>`
// encodes); the task seed only chooses which tasks are drawn and in what order. `difficulty` is
// the number of policy steps of the intended shortest solution (see MAIL_FAMILIES[].route).
import { DEFAULT_DATA_SEED, normalizeBaseUrl, selectFamilies, siteVerifyPath, type SuiteGenerateOptions } from '../suite-options.js';
import { mulberry32 } from '@owrl/core';
import { make, TaskSchema, type Task, type Verifier, VerifierSchema } from '@owrl/proto';
import { TaskError, TaskErrorCode } from '../errors.js';
import { shuffled } from '../shuffle.js';
import type { SuiteDef } from '../suite-options.js';
import {
  buildMailData,
  mailContactByEmail,
  mailDateAnswers,
  type MailContact,
  type MailData,
  type MailFact,
  type MailKind,
  type MailLabel,
  type MailMessage,
} from './mail-data.js';
import { mailForwardSubject, newMailboxState, mailReplyAddressing, searchMail } from './mail-state.js';
import { mailSpecJson, type MailSpec } from './mail-verify.js';

export const MAIL_SUITE = 'mail';
export const MAIL_SITE = 'mail';
/** Path of the mail site-state verifier, relative to the site origin. */
export const MAIL_VERIFY_PATH = siteVerifyPath(MAIL_SITE);

export type MailFamilyName =
  | 'inbox_date'
  | 'inbox_sender'
  | 'open_message'
  | 'message_code'
  | 'star'
  | 'contact_email'
  | 'search_for'
  | 'archive'
  | 'delete'
  | 'mark_unread'
  | 'label'
  | 'folder_code'
  | 'search_code'
  | 'search_delete'
  | 'reply'
  | 'reply_all'
  | 'forward'
  | 'compose'
  | 'search_reply'
  | 'compose_lookup'
  | 'triage';

export interface MailFamily {
  name: MailFamilyName;
  /** Policy steps of the intended shortest solution (the length of `route`). */
  difficulty: number;
  check: 'answer' | 'site_state' | 'page_expression';
  /** The intended solution from the inbox, one entry per step. */
  route: readonly string[];
}

const SEARCH = 'write query into "Search mail" + Enter';

export const MAIL_FAMILIES: readonly MailFamily[] = [
  { name: 'inbox_date', difficulty: 1, check: 'answer', route: ['done(date of the row)'] },
  { name: 'inbox_sender', difficulty: 1, check: 'answer', route: ['done(sender of the row)'] },
  { name: 'open_message', difficulty: 2, check: 'page_expression', route: ['click subject', 'done'] },
  { name: 'message_code', difficulty: 2, check: 'answer', route: ['click subject', 'done(fact)'] },
  { name: 'star', difficulty: 2, check: 'site_state', route: ['click "Star" in the row', 'done'] },
  { name: 'contact_email', difficulty: 2, check: 'answer', route: ['click "Contacts"', 'done(email)'] },
  { name: 'search_for', difficulty: 2, check: 'page_expression', route: [SEARCH, 'done'] },
  { name: 'archive', difficulty: 3, check: 'site_state', route: ['click subject', 'click "Archive"', 'done'] },
  { name: 'delete', difficulty: 3, check: 'site_state', route: ['click subject', 'click "Delete"', 'done'] },
  { name: 'mark_unread', difficulty: 3, check: 'site_state', route: ['click subject', 'click "Mark as unread"', 'done'] },
  { name: 'label', difficulty: 3, check: 'site_state', route: ['click subject', 'click the label button', 'done'] },
  { name: 'folder_code', difficulty: 3, check: 'answer', route: ['click "Archive" folder', 'click subject', 'done(fact)'] },
  { name: 'search_code', difficulty: 3, check: 'answer', route: [SEARCH, 'click subject', 'done(fact)'] },
  { name: 'search_delete', difficulty: 4, check: 'site_state', route: [SEARCH, 'click subject', 'click "Delete"', 'done'] },
  {
    name: 'reply', difficulty: 5, check: 'site_state',
    route: ['click subject', 'click "Reply"', 'write text into "Message"', 'click "Send"', 'done'],
  },
  {
    name: 'reply_all', difficulty: 5, check: 'site_state',
    route: ['click subject', 'click "Reply all"', 'write text into "Message"', 'click "Send"', 'done'],
  },
  {
    name: 'forward', difficulty: 5, check: 'site_state',
    route: ['click subject', 'click "Forward"', 'write contact into "To"', 'click "Send"', 'done'],
  },
  {
    name: 'compose', difficulty: 6, check: 'site_state',
    route: ['click "Compose"', 'write contact into "To"', 'write subject into "Subject"', 'write text into "Message"', 'click "Send"', 'done'],
  },
  {
    name: 'search_reply', difficulty: 6, check: 'site_state',
    route: [SEARCH, 'click subject', 'click "Reply"', 'write text into "Message"', 'click "Send"', 'done'],
  },
  {
    // Multi-constraint: the recipient is only named in the introduction's body.
    name: 'compose_lookup', difficulty: 9, check: 'site_state',
    route: [
      'click introduction', 'click "Star"', 'click "Compose"', 'write introduced person into "To"', 'write introducer into "Cc"',
      'write subject into "Subject"', 'write text into "Message"', 'click "Send"', 'done',
    ],
  },
  {
    // Archive the sender's three inbox messages, star the two that mention the topic, reply to a
    // question and forward an invoice.
    name: 'triage', difficulty: 21, check: 'site_state',
    route: [
      'write sender into "Search mail" + Enter',
      'click 1st message of sender', 'click "Archive"', 'click 2nd message of sender', 'click "Archive"', 'click 3rd message of sender', 'click "Archive"',
      'write topic into "Search mail" + Enter', 'click "Star" in 1st row', 'click "Star" in 2nd row',
      'write question subject into "Search mail" + Enter', 'click question', 'click "Reply"', 'write text into "Message"', 'click "Send"',
      'write invoice subject into "Search mail" + Enter', 'click invoice', 'click "Forward"', 'write accountant into "To"', 'click "Send"',
      'done',
    ],
  },
];

const REPLY_TEXTS = ['Thanks, that works for me.', 'Sounds good, see you then.', 'Got it, I will take a look today.', 'Thank you! I will confirm by Friday.'];
const COMPOSE_TEXTS = [
  { subject: 'Project kickoff', text: 'Are you free on Thursday at 10:00?' },
  { subject: 'Studio tour', text: 'Would you like a tour of the studio next week?' },
  { subject: 'Quick question', text: 'Could you send me the latest figures?' },
  { subject: 'Coffee next week', text: 'How about coffee on Tuesday morning?' },
];
const LOOKUP_TEXTS = [
  { subject: 'Project kickoff', phrase: 'Thursday at 10:00' },
  { subject: 'Studio visit', phrase: 'next Tuesday' },
  { subject: 'Proposal next steps', phrase: 'the budget range' },
  { subject: 'Welcome', phrase: 'our rate card' },
];
const NATURAL_LABEL: Partial<Record<MailKind, MailLabel>> = {
  invoice: 'Finance', receipt: 'Finance', travel: 'Travel', meeting: 'Team', agenda: 'Team', question: 'Team', topic: 'Team',
  intro: 'Team', personal: 'Personal',
};

/** Options of the generator (dataSeed defaults to DEFAULT_DATA_SEED). */
export type GenerateMailTasksOptions = SuiteGenerateOptions;

/** One drawable task of a family (what an index selects). */
interface Target {
  message?: MailMessage;
  fact?: MailFact;
  contact?: MailContact;
  text?: string;
  subject?: string;
  label?: MailLabel;
  query?: string;
  triage?: { sender: MailContact; topic: string; question: MailMessage; invoice: MailMessage };
}

/** Subject no other message outside Trash has (so a quoted subject names one row). */
function uniqueSubject(data: MailData, m: MailMessage): boolean {
  const s = m.subject.toLowerCase();
  return !data.messages.some((x) => x.id !== m.id && x.folder !== 'trash' && x.subject.toLowerCase() === s);
}

const fromContact = (data: MailData, m: MailMessage): MailContact | undefined => mailContactByEmail(data, m.from.email);

/** Targets of a family, in a fixed order (index = position). */
function familyTargets(data: MailData, family: MailFamilyName): Target[] {
  const recent = data.messages.filter((m) => m.recent && uniqueSubject(data, m));
  const olderInbox = data.messages.filter((m) => m.folder === 'inbox' && !m.recent && uniqueSubject(data, m));
  const archived = data.messages.filter((m) => m.folder === 'archive' && uniqueSubject(data, m));
  const withFacts = (ms: MailMessage[]): Target[] => ms.flatMap((m) => m.facts.map((fact) => ({ message: m, fact })));
  const withTexts = (ms: MailMessage[]): Target[] => ms.flatMap((m) => REPLY_TEXTS.map((text) => ({ message: m, text })));
  switch (family) {
    case 'inbox_date':
    case 'inbox_sender':
    case 'open_message':
    case 'archive':
    case 'delete':
      return recent.map((message) => ({ message }));
    case 'star':
      return recent.filter((m) => !m.starred).map((message) => ({ message }));
    case 'mark_unread':
      return recent.filter((m) => !m.unread).map((message) => ({ message }));
    case 'message_code':
      return withFacts(recent);
    case 'contact_email':
      return data.contacts.map((contact) => ({ contact }));
    case 'search_for':
      return [...data.topics.map((query) => ({ query })), ...data.contacts.map((c) => ({ query: c.name }))];
    case 'label':
      return recent.flatMap((m) => {
        const label = NATURAL_LABEL[m.kind];
        return label !== undefined && !m.labels.includes(label) ? [{ message: m, label }] : [];
      });
    case 'folder_code':
      return withFacts(archived);
    case 'search_code':
      return withFacts(olderInbox);
    case 'search_delete':
      return olderInbox.map((message) => ({ message }));
    case 'reply':
      return withTexts(recent.filter((m) => fromContact(data, m) !== undefined));
    case 'reply_all':
      return withTexts(recent.filter((m) => fromContact(data, m) !== undefined && mailReplyAddressing(m, true).to.length + mailReplyAddressing(m, true).cc.length > 1));
    case 'search_reply':
      return withTexts(olderInbox.filter((m) => fromContact(data, m) !== undefined));
    case 'forward':
      return recent.flatMap((m) =>
        data.contacts.filter((c) => c.email !== m.from.email && !m.to.some((a) => a.email === c.email)).map((contact) => ({ message: m, contact })),
      );
    case 'compose':
      return data.contacts.flatMap((contact) => COMPOSE_TEXTS.map((x) => ({ contact, subject: x.subject, text: x.text })));
    case 'compose_lookup':
      return recent
        .filter((m) => m.introduces !== undefined && fromContact(data, m) !== undefined)
        .flatMap((m) => LOOKUP_TEXTS.map((x) => ({ message: m, subject: x.subject, text: x.phrase })));
    case 'triage': {
      const state = newMailboxState(data);
      const invoices = data.messages.filter((m) => m.folder === 'inbox' && m.kind === 'invoice' && uniqueSubject(data, m));
      const out: Target[] = [];
      for (const senderId of data.heavySenders) {
        const sender = data.contacts.find((c) => c.id === senderId) as MailContact;
        const questions = data.messages.filter(
          (m) => m.folder === 'inbox' && m.kind === 'question' && m.from.email !== sender.email && uniqueSubject(data, m),
        );
        for (const topic of data.topics) {
          const mentions = searchMail(data, state, topic).filter((e) => e.flags.folder === 'inbox');
          if (mentions.some((e) => e.message.from.email === sender.email)) continue;
          for (const invoice of invoices) {
            const question = questions[out.length % Math.max(1, questions.length)];
            if (question === undefined || invoice.from.email === sender.email) continue;
            out.push({ triage: { sender, topic, question, invoice }, text: REPLY_TEXTS[out.length % REPLY_TEXTS.length] as string });
          }
        }
      }
      return out;
    }
  }
}

/** Families selected by the options, in {@link MAIL_FAMILIES} order. */
export function selectMailFamilies(opts: Pick<GenerateMailTasksOptions, 'difficulties' | 'families'>): MailFamily[] {
  return selectFamilies('mail', MAIL_FAMILIES, opts);
}

/** Number of distinct tasks of a family in a mailbox. */
export function mailFamilySize(data: MailData, family: MailFamilyName): number {
  return familyTargets(data, family).length;
}

function answerVerifier(accepted: string[], contains: boolean): Verifier {
  return make(VerifierSchema, { kind: { case: 'answer', value: { accepted, normalize: true, contains } } });
}

function stateVerifier(base: string, spec: Partial<MailSpec>): Verifier {
  return make(VerifierSchema, { kind: { case: 'siteState', value: { endpoint: `${base}${MAIL_VERIFY_PATH}`, specJson: mailSpecJson(spec) } } });
}

function pageVerifier(expression: string): Verifier {
  return make(VerifierSchema, { kind: { case: 'pageExpression', value: { expression } } });
}

function need<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new TaskError(TaskErrorCode.BadArgument, `task target has no ${what}`, { field: 'index' });
  return v;
}

interface Built {
  instruction: string;
  verifier: Verifier;
  metadata: Record<string, string>;
}

function buildParts(data: MailData, family: MailFamilyName, t: Target, base: string): Built {
  const m = t.message;
  const meta: Record<string, string> = {};
  if (m) {
    meta['message'] = m.id;
    meta['subject'] = m.subject;
    meta['sender'] = m.from.name;
  }
  const S = m ? m.subject : '';
  switch (family) {
    case 'inbox_date':
      return { instruction: `When did "${S}" arrive? Answer with the date shown in the inbox.`, verifier: answerVerifier(mailDateAnswers(need(m, 'message').date), false), metadata: meta };
    case 'inbox_sender':
      return { instruction: `Who sent "${S}"?`, verifier: answerVerifier([need(m, 'message').from.name, need(m, 'message').from.email], true), metadata: meta };
    case 'open_message':
      return {
        instruction: `Open the message "${S}".`,
        verifier: pageVerifier(`document.querySelector('article.message')?.getAttribute('data-message-id') === ${JSON.stringify(need(m, 'message').id)}`),
        metadata: meta,
      };
    case 'message_code':
    case 'folder_code':
    case 'search_code': {
      const f = need(t.fact, 'fact');
      meta['fact'] = f.label;
      const what = f.label.charAt(0).toLowerCase() + f.label.slice(1);
      const instruction =
        family === 'message_code'
          ? `Open "${S}" and report the ${what}.`
          : family === 'folder_code'
            ? `Open the "Archive" folder and report the ${what} in "${S}".`
            : `Search for "${S}" and report the ${what}.`;
      return { instruction, verifier: answerVerifier([...f.accepted, `${f.label}: ${f.value}`], false), metadata: meta };
    }
    case 'star':
      return { instruction: `Star the message "${S}".`, verifier: stateVerifier(base, { messages: { [need(m, 'message').id]: { starred: true } } }), metadata: meta };
    case 'contact_email': {
      const c = need(t.contact, 'contact');
      meta['contact'] = c.name;
      return { instruction: `What is the email address of "${c.name}" in your contacts?`, verifier: answerVerifier([c.email], true), metadata: meta };
    }
    case 'search_for': {
      const q = need(t.query, 'query');
      meta['query'] = q;
      const expression =
        `location.pathname === '/mail/search' && ` +
        `(new URLSearchParams(location.search).get('q') || '').replace(/\\s+/g, ' ').trim().toLowerCase() === ${JSON.stringify(q.toLowerCase())}`;
      return { instruction: `Search your mail for "${q}".`, verifier: pageVerifier(expression), metadata: meta };
    }
    case 'archive':
      return {
        instruction: `Archive the message "${S}".`,
        verifier: stateVerifier(base, { messages: { [need(m, 'message').id]: { folder: 'archive' } }, othersKeepFolder: true }),
        metadata: meta,
      };
    case 'delete':
    case 'search_delete':
      return {
        instruction: family === 'delete' ? `Delete the message "${S}".` : `Search for "${S}" and delete that message.`,
        verifier: stateVerifier(base, { messages: { [need(m, 'message').id]: { folder: 'trash' } }, othersKeepFolder: true }),
        metadata: meta,
      };
    case 'mark_unread':
      return {
        instruction: `Mark the message "${S}" as unread.`,
        verifier: stateVerifier(base, { messages: { [need(m, 'message').id]: { unread: true, folder: 'inbox' } } }),
        metadata: meta,
      };
    case 'label': {
      const label = need(t.label, 'label');
      meta['label'] = label;
      return {
        instruction: `Add the label "${label}" to "${S}".`,
        verifier: stateVerifier(base, { messages: { [need(m, 'message').id]: { labels: [label] } } }),
        metadata: meta,
      };
    }
    case 'reply':
    case 'reply_all':
    case 'search_reply': {
      const msg = need(m, 'message');
      const text = need(t.text, 'text');
      const a = mailReplyAddressing(msg, family === 'reply_all');
      meta['text'] = text;
      const instruction =
        family === 'reply'
          ? `Reply to "${S}" with the text "${text}".`
          : family === 'reply_all'
            ? `Reply to all recipients of "${S}" with the text "${text}".`
            : `Search for "${S}" and reply with the text "${text}".`;
      const sent = { to: a.to.map((x) => x.email), cc: a.cc.map((x) => x.email), subject: a.subject, bodyContains: [text], inReplyTo: msg.id };
      return { instruction, verifier: stateVerifier(base, { sent: [sent], exactSent: true }), metadata: meta };
    }
    case 'forward': {
      const msg = need(m, 'message');
      const c = need(t.contact, 'contact');
      meta['contact'] = c.name;
      return {
        instruction: `Forward "${S}" to "${c.name}".`,
        verifier: stateVerifier(base, { sent: [{ to: [c.email], subject: mailForwardSubject(msg), forwardOf: msg.id }], exactSent: true }),
        metadata: meta,
      };
    }
    case 'compose': {
      const c = need(t.contact, 'contact');
      const subject = need(t.subject, 'subject');
      const text = need(t.text, 'text');
      Object.assign(meta, { contact: c.name, subject, text });
      return {
        instruction: `Send a new message to "${c.name}" with the subject "${subject}" and the text "${text}".`,
        verifier: stateVerifier(base, { sent: [{ to: [c.email], cc: [], subject, bodyContains: [text] }], exactSent: true }),
        metadata: meta,
      };
    }
    case 'compose_lookup': {
      const intro = need(m, 'message');
      const introduced = need(data.contacts.find((c) => c.id === intro.introduces), 'introduced contact');
      const introducer = need(fromContact(data, intro), 'introducer');
      const subject = need(t.subject, 'subject');
      const phrase = need(t.text, 'text');
      Object.assign(meta, { contact: introduced.name, cc: introducer.name, new_subject: subject, text: phrase });
      return {
        instruction:
          `Open "${S}" and star it. Then send the person it introduces a new message with the subject "${subject}" ` +
          `and a text that includes "${phrase}", with "${introducer.name}" in Cc.`,
        verifier: stateVerifier(base, {
          messages: { [intro.id]: { starred: true } },
          sent: [{ to: [introduced.email], cc: [introducer.email], subject, bodyContains: [phrase] }],
          exactSent: true,
        }),
        metadata: meta,
      };
    }
    case 'triage': {
      const tr = need(t.triage, 'triage plan');
      const text = need(t.text, 'text');
      const state = newMailboxState(data);
      const fromSender = data.messages.filter((x) => x.folder === 'inbox' && x.from.email === tr.sender.email);
      const mentions = searchMail(data, state, tr.topic).filter((e) => e.flags.folder === 'inbox').map((e) => e.message);
      const accountant = need(data.contacts.find((c) => c.id === data.accountant), 'accountant');
      const messages: MailSpec['messages'] = {};
      for (const x of fromSender) messages[x.id] = { folder: 'archive' };
      for (const x of mentions) messages[x.id] = { starred: true };
      const reply = mailReplyAddressing(tr.question, false);
      Object.assign(meta, {
        sender: tr.sender.name,
        topic: tr.topic,
        archive_subjects: JSON.stringify(fromSender.map((x) => x.subject)),
        star_subjects: JSON.stringify(mentions.map((x) => x.subject)),
        question: tr.question.subject,
        invoice: tr.invoice.subject,
        contact: accountant.name,
        text,
      });
      return {
        instruction:
          `Process your inbox: archive every message from "${tr.sender.name}" in the Inbox, star the messages that mention "${tr.topic}", ` +
          `reply to "${tr.question.subject}" with the text "${text}", and forward "${tr.invoice.subject}" to "${accountant.name}".`,
        verifier: stateVerifier(base, {
          messages,
          sent: [
            { to: reply.to.map((x) => x.email), subject: reply.subject, bodyContains: [text], inReplyTo: tr.question.id },
            { to: [accountant.email], subject: mailForwardSubject(tr.invoice), forwardOf: tr.invoice.id },
          ],
          exactSent: true,
          othersKeepFolder: true,
        }),
        metadata: meta,
      };
    }
  }
}

/**
 * Builds one task: `index` selects the family's target (message, fact, contact...).
 * @throws TaskError TASK_BAD_ARGUMENT for an index out of range or a bad baseUrl.
 */
export function buildMailTask(data: MailData, family: MailFamily, index: number, baseUrl: string, seed: number): Task {
  const base = normalizeBaseUrl(baseUrl);
  const targets = familyTargets(data, family.name);
  const t = targets[index];
  if (!Number.isInteger(index) || t === undefined) {
    throw new TaskError(TaskErrorCode.BadArgument, `task index ${index} is out of range for mail family ${family.name} (${targets.length} tasks)`, { field: 'index' });
  }
  const built = buildParts(data, family.name, t, base);
  return make(TaskSchema, {
    id: `${MAIL_SUITE}/${family.name}/${String(index).padStart(4, '0')}`,
    suite: MAIL_SUITE,
    site: MAIL_SITE,
    startUrl: `${base}/mail/`,
    // A quoted phrase that ends a sentence keeps its own final punctuation (`... "Thanks."`).
    instruction: built.instruction.replace(/([.!?]")[.?]$/, '$1'),
    difficulty: family.difficulty,
    family: family.name,
    verifier: built.verifier,
    metadata: { family: family.name, ...built.metadata, seed: String(seed), data_seed: String(data.seed) },
  });
}

/**
 * Generates `n` mail tasks, drawing round-robin over the selected families (each family's tasks
 * in a seeded random order, without repeats). Same options → identical tasks.
 * @throws TaskError TASK_BAD_ARGUMENT for a non-integer seed, a bad `n` (negative, not an integer,
 *   more than the distinct tasks available), a bad `baseUrl`, unknown families, or difficulties
 *   matching no family.
 */
export function generateMailTasks(opts: GenerateMailTasksOptions): Task[] {
  const { seed, n } = opts;
  if (!Number.isInteger(seed)) throw new TaskError(TaskErrorCode.BadArgument, `seed ${String(seed)} must be an integer`, { field: 'seed' });
  if (!Number.isInteger(n) || n < 0) throw new TaskError(TaskErrorCode.BadArgument, `n ${String(n)} must be a non-negative integer`, { field: 'n' });
  const dataSeed = opts.dataSeed ?? DEFAULT_DATA_SEED;
  if (!Number.isInteger(dataSeed)) throw new TaskError(TaskErrorCode.BadArgument, `dataSeed ${String(dataSeed)} must be an integer`, { field: 'dataSeed' });
  const base = normalizeBaseUrl(opts.baseUrl);
  const families = selectMailFamilies(opts);
  const data = buildMailData(dataSeed);
  const sizes = families.map((f) => mailFamilySize(data, f.name));
  const available = sizes.reduce((s, x) => s + x, 0);
  if (n > available) {
    throw new TaskError(TaskErrorCode.BadArgument, `n ${n} exceeds the ${available} distinct tasks of families ${families.map((f) => f.name).join(', ')}`, {
      field: 'n',
    });
  }
  const rng = mulberry32((seed ^ 0x6d61696c) >>> 0);
  const queues = families.map((f, i) => ({ family: f, order: shuffled(rng, Array.from({ length: sizes[i] ?? 0 }, (_, k) => k)) }));
  let cursor = Math.floor(rng() * queues.length);
  const tasks: Task[] = [];
  while (tasks.length < n) {
    const q = queues[cursor % queues.length];
    cursor++;
    if (q === undefined) continue;
    const index = q.order.shift();
    if (index === undefined) continue;
    tasks.push(buildMailTask(data, q.family, index, base, seed));
  }
  return tasks;
}

/** The mail suite for the SUITES registry. */
export const MAIL_SUITE_DEF: SuiteDef = {
  name: MAIL_SUITE,
  site: MAIL_SITE,
  families: MAIL_FAMILIES.map((f) => ({ name: f.name, difficulty: f.difficulty, check: f.check })),
  generate: (o) => generateMailTasks(o),
};
