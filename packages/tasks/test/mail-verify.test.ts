// Mail verifier and mailbox rules: spec parsing names what is wrong, the check names what
// differs, and the shared rules (recipients, reply addressing, search, sending) behave.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TaskError,
} from '../src/index.js';
import {
  buildMailData,
  checkMailbox,
  MAIL_ME,
  mailEntry,
  mailReplyAddressing,
  mailSpecJson,
  newMailboxState,
  parseMailRecipients,
  parseMailSpec,
  searchMail,
  sendMail,
  type MailMessage,
} from '../src/mail/index.js';

const d = buildMailData(3);
const contact = (i: number) => d.contacts[i] ?? assert.fail(`contact ${i}`);
const byKind = (kind: string): MailMessage => d.messages.find((m) => m.kind === kind && m.folder === 'inbox') ?? assert.fail(kind);

void test('parseMailSpec rejects bad specs naming the field', () => {
  const bad = (spec: string, re: RegExp) =>
    assert.throws(() => parseMailSpec(spec), (e: unknown) => e instanceof TaskError && e.code === 'TASK_BAD_SPEC' && e.field === 'spec_json' && re.test(e.message));
  bad('{', /is not JSON/);
  bad('[]', /spec must be a JSON object/);
  bad('{}', /spec expects nothing/);
  bad('{"messages":{"m01":{"folder":"spam"}}}', /spec\.messages\["m01"\]\.folder = "spam" must be one of inbox, archive, sent, trash/);
  bad('{"messages":{"m01":{"starred":"yes"}}}', /spec\.messages\["m01"\]\.starred = "yes" must be a boolean/);
  bad('{"messages":{"m01":{"labels":["Urgent"]}}}', /labels\[0\] = "Urgent" is not a mail label/);
  bad('{"messages":{"m01":{}}}', /spec\.messages\["m01"\] expects nothing/);
  bad('{"messages":{"m01":{"flagged":true}}}', /spec\.messages\["m01"\]\.flagged is not a known field/);
  bad('{"sent":[{"subject":"Hi"}]}', /spec\.sent\[0\]\.to is missing/);
  bad('{"sent":[{"to":[]}]}', /spec\.sent\[0\]\.to must name at least one address/);
  bad('{"sent":[{"to":["a@b.example"],"bodyContains":"hi"}]}', /spec\.sent\[0\]\.bodyContains = "hi" must be an array of strings/);
  bad('{"sent":{}}', /spec\.sent must be an array/);
  bad('{"messages":{},"exact":true}', /spec\.exact is not a known field/);
  const ok = parseMailSpec(mailSpecJson({ messages: { m02: { folder: 'archive', labels: ['finance'] } }, exactSent: true }));
  assert.deepEqual(ok, { messages: { m02: { folder: 'archive', labels: ['finance'] } }, sent: [], exactSent: true, othersKeepFolder: false });
});

void test('message flags: each difference is named; othersKeepFolder catches a moved message', () => {
  const s = newMailboxState(d);
  const inv = byKind('invoice');
  const spec = parseMailSpec(mailSpecJson({ messages: { [inv.id]: { folder: 'archive', starred: true, labels: ['Finance'] }, m99: { starred: true } }, othersKeepFolder: true }));
  let r = checkMailbox(d, s, spec);
  assert.equal(r.ok, false);
  assert.match(r.detail, new RegExp(`${inv.id} ".+": want folder archive, have inbox`));
  assert.match(r.detail, /want starred, have not starred/);
  assert.match(r.detail, /m99: no such message/);
  const e = mailEntry(d, s, inv.id) ?? assert.fail();
  e.flags.folder = 'archive';
  e.flags.starred = true;
  if (!e.flags.labels.includes('Finance')) e.flags.labels.push('Finance');
  const other = byKind('newsletter');
  (mailEntry(d, s, other.id) ?? assert.fail()).flags.folder = 'trash';
  const spec2 = parseMailSpec(mailSpecJson({ messages: { [inv.id]: { folder: 'archive', starred: true, labels: ['Finance'] } }, othersKeepFolder: true }));
  r = checkMailbox(d, s, spec2);
  assert.equal(r.ok, false);
  assert.match(r.detail, new RegExp(`${other.id} ".+": moved from inbox to trash`));
  (mailEntry(d, s, other.id) ?? assert.fail()).flags.folder = 'inbox';
  r = checkMailbox(d, s, spec2);
  assert.deepEqual(r, { ok: true, detail: `mailbox matches: ${inv.id}` });
});

void test('sent mail: recipients, subject, body phrase, reply link; closest message and extras named', () => {
  const s = newMailboxState(d);
  const q = byKind('question');
  const a = mailReplyAddressing(q, false);
  const spec = parseMailSpec(
    mailSpecJson({ sent: [{ to: [q.from.email.toUpperCase()], subject: a.subject.toLowerCase(), bodyContains: ['We will be  12 people.'], inReplyTo: q.id }], exactSent: true }),
  );
  assert.match(checkMailbox(d, s, spec).detail, /no message sent; want ".+" to /);
  // A fresh message with the right words is not a reply.
  sendMail(d, s, { to: a.to, cc: [], subject: a.subject, body: 'we will be 12 people' });
  let r = checkMailbox(d, s, spec);
  assert.equal(r.ok, false);
  assert.match(r.detail, new RegExp(`closest sent s1 ".+": not a reply to ${q.id}`));
  const wrongTo = newMailboxState(d);
  sendMail(d, wrongTo, { to: [contact(4)], cc: [], subject: a.subject, body: 'We will be 12 people', inReplyTo: q.id });
  assert.match(checkMailbox(d, wrongTo, spec).detail, new RegExp(`closest sent s1 ".+": to: want ${q.from.email.toUpperCase()}, have ${contact(4).email}$`));
  sendMail(d, s, { to: [contact(4)], cc: [], subject: a.subject, body: 'We will be 12 people', inReplyTo: q.id });
  sendMail(d, s, { to: a.to, cc: [], subject: a.subject, body: 'Hi!\nWe will be 12 people.\nSam', inReplyTo: q.id });
  r = checkMailbox(d, s, spec);
  assert.equal(r.ok, false);
  assert.match(r.detail, /2 more messages sent than expected/);
  const loose = parseMailSpec(mailSpecJson({ sent: [{ to: [q.from.email], bodyContains: ['12 people'], inReplyTo: q.id }] }));
  assert.deepEqual(checkMailbox(d, s, loose), { ok: true, detail: 'mailbox matches: 1 sent' });
  // Two expectations need two different messages.
  const twice = parseMailSpec(mailSpecJson({ sent: [{ to: [q.from.email], inReplyTo: q.id }, { to: [q.from.email], inReplyTo: q.id }] }));
  assert.equal(checkMailbox(d, s, twice).ok, false);
});

void test('cc must match exactly when given; forwards carry the attachments', () => {
  const s = newMailboxState(d);
  const inv = byKind('invoice');
  const m = sendMail(d, s, { to: [contact(8)], cc: [contact(1)], subject: `Fwd: ${inv.subject}`, body: '', forwardOf: inv.id });
  assert.deepEqual(m.attachments, inv.attachments);
  assert.equal(m.forwardOf, inv.id);
  assert.equal(m.from, MAIL_ME);
  const want = (cc: string[]) => parseMailSpec(mailSpecJson({ sent: [{ to: [contact(8).email], cc, forwardOf: inv.id }] }));
  assert.equal(checkMailbox(d, s, want([contact(1).email])).ok, true);
  assert.match(checkMailbox(d, s, want([])).detail, /cc: want \(none\), have /);
  assert.throws(() => sendMail(d, s, { to: [], cc: [], subject: 'x', body: '' }), /add at least one recipient/);
  assert.throws(() => sendMail(d, s, { to: [contact(1)], cc: [], subject: 'x', body: '', inReplyTo: 'm99' }), /replied to \(m99\) does not exist/);
});

void test('recipients: address, Name <address>, exact contact name; anything else is named', () => {
  const c = contact(2);
  const got = parseMailRecipients(d, ` ${c.name.toUpperCase()} ;someone@else.example, ${c.name} <${c.email}>, Pat <pat@x.example>`);
  assert.deepEqual(got, [
    { name: c.name, email: c.email },
    { name: 'someone@else.example', email: 'someone@else.example' },
    { name: 'Pat', email: 'pat@x.example' },
  ]);
  assert.deepEqual(parseMailRecipients(d, ' , '), []);
  assert.throws(
    () => parseMailRecipients(d, `${c.first}`),
    (e: unknown) => e instanceof TaskError && e.message === `recipient "${c.first}" is not an email address or the name of a contact`,
  );
});

void test('reply and reply-all addressing; search matches every word over all folders but Trash', () => {
  const agenda = byKind('agenda');
  const one = mailReplyAddressing(agenda, false);
  assert.deepEqual(one.to, [agenda.from]);
  assert.deepEqual(one.cc, []);
  assert.equal(one.subject, `Re: ${agenda.subject}`);
  const all = mailReplyAddressing(agenda, true);
  assert.deepEqual(all.to, [agenda.from, ...agenda.to.filter((a) => a.email !== MAIL_ME.email)]);
  assert.deepEqual(all.cc, agenda.cc);
  assert.ok(all.to.length + all.cc.length >= 3);
  const s = newMailboxState(d);
  const sender = byKind('invoice').from;
  const hits = searchMail(d, s, sender.name.toUpperCase());
  assert.ok(hits.some((h) => h.message.kind === 'invoice'));
  assert.ok(hits.every((h) => h.flags.folder !== 'trash'));
  assert.deepEqual(searchMail(d, s, '   '), []);
  const promo = d.messages.find((m) => m.folder === 'trash' && m.kind === 'promo') ?? assert.fail();
  assert.deepEqual(searchMail(d, s, promo.subject), []);
});
