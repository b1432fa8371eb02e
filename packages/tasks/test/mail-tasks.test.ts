// Mail mailbox and task generator: determinism, mailbox structure, every family valid and
// reachable by filters, bad options named, and each family's intended solution, applied to a
// session mailbox with the site's own rules, accepted by its verifier (while no action is not).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchAnswer } from '@owrl/judge-core';
import { toJson, TaskSchema, type Task } from '@owrl/proto';
import {
  getSuite,
  TaskError,
  validateTask,
} from '../src/index.js';
import {
  buildMailData,
  checkMailbox,
  generateMailTasks,
  listMailView,
  MAIL_FAMILIES,
  MAIL_PAGE_SIZE,
  mailEntry,
  mailForwardSubject,
  mailReplyAddressing,
  mailShortDate,
  newMailboxState,
  parseMailRecipients,
  parseMailSpec,
  searchMail,
  sendMail,
  type MailboxState,
  type MailData,
} from '../src/mail/index.js';
import {
  mailFamilySize,
  type MailFamilyName,
} from '../src/mail/mail-tasks.js';

const BASE = 'http://127.0.0.1:8400';
const json = (ts: Task[]) => ts.map((t) => toJson(TaskSchema, t));
const data1 = buildMailData(1);

void test('same data seed → same mailbox; another seed → other names, codes and topics', () => {
  assert.deepEqual(buildMailData(7), buildMailData(7));
  const a = buildMailData(7);
  const b = buildMailData(8);
  assert.notDeepEqual(a.contacts.map((c) => c.name), b.contacts.map((c) => c.name));
  assert.notDeepEqual(a.messages.map((m) => m.subject), b.messages.map((m) => m.subject));
});

void test('mailbox structure: folders, recent rows, unique subjects, heavy senders and topics', () => {
  for (const seed of [1, 2, 3, 4]) {
    const d = buildMailData(seed);
    const count = (f: string) => d.messages.filter((m) => m.folder === f).length;
    assert.deepEqual([d.messages.length, count('inbox'), count('archive'), count('sent'), count('trash'), d.contacts.length], [44, 31, 6, 5, 2, 15]);
    const state = newMailboxState(d);
    const inbox = listMailView(d, state, { kind: 'folder', folder: 'inbox' });
    // The recent messages are the top rows of the first inbox page.
    assert.deepEqual(inbox.slice(0, 12).map((e) => e.message.recent), Array(12).fill(true));
    assert.ok(!inbox.slice(12).some((e) => e.message.recent));
    assert.ok(MAIL_PAGE_SIZE >= 12);
    // Subjects are unique apart from the `Re:` messages of a thread.
    const subjects = d.messages.filter((m) => !m.subject.startsWith('Re:')).map((m) => m.subject.toLowerCase());
    assert.equal(new Set(subjects).size, subjects.length, `seed ${seed}`);
    for (const id of d.heavySenders) {
      const c = d.contacts.find((x) => x.id === id);
      assert.equal(inbox.filter((e) => e.message.from.email === c?.email).length, 3, `${c?.name} sends 3 inbox messages`);
    }
    for (const topic of d.topics) {
      const hits = searchMail(d, state, topic);
      assert.equal(hits.length, 2, `${topic}: ${hits.map((h) => h.message.subject).join(' | ')}`);
      assert.ok(hits.every((h) => h.flags.folder === 'inbox'));
    }
    // Ids run oldest first; every contact has a distinct address.
    assert.equal(d.messages.at(-1)?.id, 'm01');
    assert.equal(new Set(d.contacts.map((c) => c.email)).size, 15);
  }
});

void test('same seed → identical tasks; different seed → different tasks; ids unique', () => {
  const a = generateMailTasks({ seed: 11, n: 40, baseUrl: BASE });
  const b = generateMailTasks({ seed: 11, n: 40, baseUrl: BASE });
  const c = generateMailTasks({ seed: 12, n: 40, baseUrl: BASE });
  assert.deepEqual(json(a), json(b));
  assert.notDeepEqual(json(a), json(c));
  assert.equal(new Set(a.map((t) => t.id)).size, 40);
  const other = generateMailTasks({ seed: 11, n: 40, baseUrl: BASE, dataSeed: 2 });
  assert.notDeepEqual(a.map((t) => t.instruction), other.map((t) => t.instruction), 'the data seed changes the tasks');
});

void test('every family is reachable by name and difficulty, valid, and its difficulty is its route length', () => {
  const suite = getSuite('mail');
  assert.deepEqual(suite.families.map((f) => f.name), MAIL_FAMILIES.map((f) => f.name));
  assert.ok(MAIL_FAMILIES.some((f) => f.difficulty >= 15), 'a family of 15+ steps');
  for (const fam of MAIL_FAMILIES) {
    assert.equal(fam.route.length, fam.difficulty, fam.name);
    assert.ok(mailFamilySize(data1, fam.name) > 0, fam.name);
    const [t] = suite.generate({ seed: 3, n: 1, baseUrl: `${BASE}/`, families: [fam.name] });
    assert.ok(t, fam.name);
    assert.deepEqual(validateTask(t), [], fam.name);
    assert.match(t.id, new RegExp(`^mail/${fam.name}/\\d{4}$`));
    assert.deepEqual([t.suite, t.site, t.family, t.difficulty, t.startUrl], ['mail', 'mail', fam.name, fam.difficulty, `${BASE}/mail/`]);
    assert.deepEqual([t.metadata['family'], t.metadata['seed'], t.metadata['data_seed']], [fam.name, '3', '1']);
    const kind = t.verifier?.kind.case;
    assert.equal(kind, { answer: 'answer', site_state: 'siteState', page_expression: 'pageExpression' }[fam.check], fam.name);
    if (kind === 'siteState') {
      assert.equal(t.verifier?.kind.value.endpoint, `${BASE}/__owrl/verify/mail`);
      parseMailSpec(t.verifier?.kind.value.specJson ?? '');
    }
    const byDiff = suite.generate({ seed: 3, n: 1, baseUrl: BASE, difficulties: [fam.difficulty], families: [fam.name] });
    assert.equal(byDiff[0]?.family, fam.name);
  }
  const easy = generateMailTasks({ seed: 5, n: 22, baseUrl: BASE, difficulties: [1] });
  assert.deepEqual([...new Set(easy.map((t) => t.family))].sort(), ['inbox_date', 'inbox_sender']);
});

void test('easy instructions quote what is clicked or typed', () => {
  const tasks = generateMailTasks({ seed: 9, n: 60, baseUrl: BASE, difficulties: [1, 2, 3] });
  for (const t of tasks) {
    const subject = t.metadata['subject'];
    if (subject !== undefined) assert.ok(t.instruction.includes(`"${subject}"`), t.instruction);
    if (t.metadata['contact'] !== undefined) assert.ok(t.instruction.includes(`"${t.metadata['contact']}"`), t.instruction);
    if (t.metadata['query'] !== undefined) assert.ok(t.instruction.includes(`"${t.metadata['query']}"`), t.instruction);
  }
});

void test('the id determines the task whatever the task seed', () => {
  const a = generateMailTasks({ seed: 100, n: 30, baseUrl: BASE, families: ['message_code', 'reply'] });
  const b = generateMailTasks({ seed: 200, n: 30, baseUrl: BASE, families: ['message_code', 'reply'] });
  const byId = new Map(b.map((t) => [t.id, t.instruction]));
  let common = 0;
  for (const t of a) {
    const other = byId.get(t.id);
    if (other === undefined) continue;
    common++;
    assert.equal(other, t.instruction);
  }
  assert.ok(common > 0);
});

void test('bad options are rejected with the option named', () => {
  const bad = (opts: Parameters<typeof generateMailTasks>[0], re: RegExp) =>
    assert.throws(() => generateMailTasks(opts), (e: unknown) => e instanceof TaskError && e.code === 'TASK_BAD_ARGUMENT' && re.test(e.message));
  bad({ seed: 1, n: 5, baseUrl: BASE, difficulties: [7] }, /no mail family has difficulty in \[7\]/);
  bad({ seed: 1, n: 5, baseUrl: BASE, families: ['spam'] }, /family "spam" is not a mail family/);
  bad({ seed: 1, n: 5, baseUrl: BASE, difficulties: [0] }, /difficulty 0 must be a positive integer/);
  bad({ seed: 1, n: 1000, baseUrl: BASE, families: ['inbox_date'] }, /n 1000 exceeds the 11 distinct tasks of families inbox_date/);
  bad({ seed: 1, n: -1, baseUrl: BASE }, /n -1/);
  bad({ seed: 0.5, n: 1, baseUrl: BASE }, /seed 0.5/);
  bad({ seed: 1, n: 1, baseUrl: BASE, dataSeed: 1.5 }, /dataSeed 1.5/);
  bad({ seed: 1, n: 1, baseUrl: 'ftp://x' }, /baseUrl "ftp:\/\/x" must be http\(s\)/);
  assert.deepEqual(generateMailTasks({ seed: 1, n: 0, baseUrl: BASE }), []);
});

/** The right answer of an answer task, read from the mailbox like the solver reads the page. */
function rightAnswer(d: MailData, t: Task): string {
  const m = d.byId.get(t.metadata['message'] ?? '');
  switch (t.family) {
    case 'inbox_date':
      return mailShortDate(m?.date ?? '');
    case 'inbox_sender':
      return m?.from.name ?? '';
    case 'contact_email':
      return d.contacts.find((c) => c.name === t.metadata['contact'])?.email ?? '';
    default:
      return m?.facts.find((f) => f.label === t.metadata['fact'])?.value ?? '';
  }
}

function byContactName(d: MailData, name: string): string {
  return parseMailRecipients(d, name)[0]?.email ?? '';
}

/** The intended solution of a site-state task, applied with the site's own state rules. */
function solve(d: MailData, s: MailboxState, t: Task): void {
  const md = t.metadata;
  const e = (id: string) => {
    const x = mailEntry(d, s, id);
    assert.ok(x, id);
    return x;
  };
  const reply = (id: string, text: string, all: boolean) => {
    const m = e(id).message;
    const a = mailReplyAddressing(m, all);
    sendMail(d, s, { ...a, body: `${text}\n`, inReplyTo: m.id });
  };
  const forward = (id: string, to: string) => {
    const m = e(id).message;
    sendMail(d, s, { to: parseMailRecipients(d, to), cc: [], subject: mailForwardSubject(m), body: '', forwardOf: m.id });
  };
  const bySubject = (subject: string) => d.messages.find((m) => m.subject === subject)?.id ?? '';
  const id = md['message'] ?? '';
  switch (t.family as MailFamilyName) {
    case 'star':
      e(id).flags.starred = true;
      return;
    case 'archive':
      e(id).flags.folder = 'archive';
      return;
    case 'delete':
    case 'search_delete':
      e(id).flags.folder = 'trash';
      return;
    case 'mark_unread':
      e(id).flags.unread = true;
      return;
    case 'label':
      e(id).flags.labels.push(md['label'] as never);
      return;
    case 'reply':
    case 'search_reply':
      reply(id, md['text'] ?? '', false);
      return;
    case 'reply_all':
      reply(id, md['text'] ?? '', true);
      return;
    case 'forward':
      forward(id, md['contact'] ?? '');
      return;
    case 'compose':
      sendMail(d, s, { to: parseMailRecipients(d, md['contact'] ?? ''), cc: [], subject: md['subject'] ?? '', body: md['text'] ?? '' });
      return;
    case 'compose_lookup':
      e(id).flags.starred = true;
      sendMail(d, s, {
        to: [{ name: md['contact'] ?? '', email: byContactName(d, md['contact'] ?? '') }],
        cc: parseMailRecipients(d, md['cc'] ?? ''),
        subject: md['new_subject'] ?? '',
        body: `Hello! Shall we meet ${md['text'] ?? ''}?`,
      });
      return;
    case 'triage':
      for (const subj of JSON.parse(md['archive_subjects'] ?? '[]') as string[]) e(bySubject(subj)).flags.folder = 'archive';
      for (const subj of JSON.parse(md['star_subjects'] ?? '[]') as string[]) e(bySubject(subj)).flags.starred = true;
      reply(bySubject(md['question'] ?? ''), md['text'] ?? '', false);
      forward(bySubject(md['invoice'] ?? ''), md['contact'] ?? '');
      return;
    default:
      throw new Error(`no state solution for ${t.family}`);
  }
}

void test('every task of every family: the intended solution passes its verifier, doing nothing or a wrong answer does not', () => {
  for (const fam of MAIL_FAMILIES) {
    const n = Math.min(mailFamilySize(data1, fam.name), 12);
    const tasks = generateMailTasks({ seed: 4, n, baseUrl: BASE, families: [fam.name] });
    for (const t of tasks) {
      const v = t.verifier?.kind;
      if (v?.case === 'answer') {
        const right = rightAnswer(data1, t);
        assert.equal(matchAnswer(v.value, right).status, 'pass', `${t.id}: ${right}`);
        assert.equal(matchAnswer(v.value, 'Nobody Special').status, 'fail', t.id);
      } else if (v?.case === 'siteState') {
        const spec = parseMailSpec(v.value.specJson);
        const fresh = newMailboxState(data1);
        assert.equal(checkMailbox(data1, fresh, spec).ok, false, `${t.id}: the untouched mailbox fails`);
        solve(data1, fresh, t);
        const r = checkMailbox(data1, fresh, spec);
        assert.equal(r.ok, true, `${t.id}: ${r.detail}`);
      } else {
        assert.equal(v?.case, 'pageExpression');
        if (v?.case !== 'pageExpression') continue;
        const target = t.metadata['message'] ?? t.metadata['query']?.toLowerCase() ?? '';
        assert.ok(v.value.expression.includes(JSON.stringify(target)), v.value.expression);
      }
    }
  }
});

void test('triage tasks name the sender, the topic, a question and an invoice of the inbox', () => {
  const tasks = generateMailTasks({ seed: 1, n: mailFamilySize(data1, 'triage'), baseUrl: BASE, families: ['triage'] });
  assert.equal(tasks.length, 18);
  for (const t of tasks) {
    const archive = JSON.parse(t.metadata['archive_subjects'] ?? '[]') as string[];
    const star = JSON.parse(t.metadata['star_subjects'] ?? '[]') as string[];
    assert.equal(archive.length, 3);
    assert.equal(star.length, 2);
    assert.ok(!star.some((s) => archive.includes(s)));
    assert.match(t.instruction, /^Process your inbox: archive every message from ".+" in the Inbox, star the messages that mention ".+", reply to ".+" with the text ".+", and forward "Invoice INV-\d{4} from .+" to ".+"\.$/);
    const spec = parseMailSpec(t.verifier?.kind.case === 'siteState' ? t.verifier.kind.value.specJson : '');
    assert.deepEqual([spec.exactSent, spec.othersKeepFolder, spec.sent.length, Object.keys(spec.messages).length], [true, true, 2, 5]);
  }
});
