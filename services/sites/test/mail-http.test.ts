// HTTP-level tests of the web mail (real sites server on a free port, global fetch): pages and
// their key markup, state changes by form POST, sent mail across reloads, the verifier endpoint,
// the task endpoint, the cookie bar, and session isolation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseTaskFile,
} from '@owrl/tasks';
import {
  buildMailData,
  mailShortDate,
  mailSpecJson,
  type MailData,
  type MailMessage,
} from '@owrl/tasks/mail';
import { startSitesServer, type SitesServer } from '../src/index.js';

let srv: SitesServer;
let data: MailData;

before(async () => {
  srv = await startSitesServer({ port: 0, seed: 4 });
  assert.ok(srv.sites.some((s) => s.name === 'mail'), 'the mail site is hosted');
  data = buildMailData(4);
});
after(async () => {
  await srv.close();
});

async function page(path: string, session: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${srv.url}${path}`, { headers: { cookie: `owrl_session=${session}` } });
  return { status: res.status, body: await res.text() };
}

async function post(path: string, session: string, form: Record<string, string>): Promise<Response> {
  return await fetch(`${srv.url}${path}`, {
    method: 'POST',
    headers: { cookie: `owrl_session=${session}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
}

async function verify(session: string, spec: string): Promise<{ status: number; body: { ok: boolean; detail: string } }> {
  const res = await fetch(`${srv.url}/__owrl/verify/mail?session=${encodeURIComponent(session)}&spec=${encodeURIComponent(spec)}`);
  return { status: res.status, body: (await res.json()) as { ok: boolean; detail: string } };
}

const recent = (kind: string): MailMessage => data.messages.find((m) => m.recent && m.kind === kind) ?? assert.fail(kind);
function rowOf(body: string, id: string): string {
  return [...body.matchAll(/<li class="msg[^"]*" data-id="([^"]+)">[\s\S]*?<\/li>/g)].find((m) => m[1] === id)?.[0] ?? '';
}

void test('health lists the mail site with its data seed', async () => {
  const res = await fetch(`${srv.url}/__owrl/health`);
  const body = (await res.json()) as { sites: Record<string, { dataSeed?: number; messages?: number; contacts?: number }> };
  assert.deepEqual(body.sites['mail'], { dataSeed: 4, messages: 44, contacts: 15 });
  const portal = await (await fetch(`${srv.url}/`)).text();
  assert.ok(portal.includes('<a href="/mail/">Lark Mail</a>'));
});

void test('inbox: search box, folders, 15 newest rows with star buttons, labelled dates, pager, cookie bar', async () => {
  const { status, body } = await page('/mail/', 'h-inbox');
  assert.equal(status, 200);
  assert.match(body, /<label for="q">Search mail<\/label>\s*<input id="q" type="search" name="q"/);
  for (const [name, href] of [['Inbox', '/mail/'], ['Starred', '/mail/starred'], ['Sent', '/mail/folder/sent'], ['Archive', '/mail/folder/archive'], ['Trash', '/mail/folder/trash'], ['Contacts', '/mail/contacts']]) {
    assert.ok(body.includes(`<a href="${href}"`) && body.includes(`>${name}</a>`), name);
  }
  const rows = [...body.matchAll(/<li class="msg[^"]*" data-id="([^"]+)">/g)].map((m) => m[1]);
  const inbox = data.messages.filter((m) => m.folder === 'inbox');
  assert.deepEqual(rows, inbox.slice(0, 15).map((m) => m.id));
  const m = recent('shipping');
  const row = rowOf(body, m.id);
  assert.ok(row.includes(`<a class="subj" href="/mail/m/${m.id}">${m.subject}</a>`), row);
  assert.ok(row.includes(`<span class="vh">Received: </span>${mailShortDate(m.date)}</time>`), row);
  assert.ok(row.includes(`<span class="vh">From: </span>${m.from.name}</span>`), row);
  assert.match(row, /<button class="star" type="submit" name="id" value="m\d+" aria-label="Star" aria-pressed="false">/);
  assert.match(row, /class="msg unread"/);
  assert.match(body, /<p class="range">1–15 of 31<\/p>/);
  assert.ok(body.includes('<a href="/mail/?page=2">Older</a>'));
  assert.match(body, /<div class="cookies" role="region" aria-label="Cookie consent">[\s\S]*>Accept<\/button><button[^>]*>Reject<\/button>/);
  const interactive = (body.match(/<a |<button|<input(?![^>]*type="hidden")/g) ?? []).length;
  assert.ok(interactive >= 40 && interactive <= 52, `interactive elements ${interactive}`);
  const p2 = await page('/mail/?page=2', 'h-inbox');
  assert.deepEqual([...p2.body.matchAll(/data-id="([^"]+)"/g)].map((x) => x[1]), inbox.slice(15, 30).map((x) => x.id));
});

void test('a message shows its header lines, facts and actions; opening it marks it read', async () => {
  const m = recent('invoice');
  const s = 'h-open';
  const fact = m.facts[0] ?? assert.fail('invoice facts');
  const { status, body } = await page(`/mail/m/${m.id}`, s);
  assert.equal(status, 200);
  assert.ok(body.includes(`<article class="message" data-message-id="${m.id}">`));
  assert.ok(body.includes(`<h1>${m.subject}</h1>`));
  assert.ok(body.includes(`<p><span class="k">From:</span> ${m.from.name} &lt;${m.from.email}&gt;</p>`));
  assert.match(body, /<p><span class="k">Date:<\/span> \w{3}, \w{3} \d+, 2026, \d+:\d\d [AP]M<\/p>/);
  assert.ok(body.includes(`<p>${fact.label}: ${fact.value}</p>`));
  for (const a of ['Reply', 'Reply all', 'Forward']) assert.ok(body.includes(`">${a}</a>`), a);
  for (const b of ['Archive', 'Delete', 'Star', 'Mark as unread', 'Finance', 'Travel', 'Team', 'Personal']) assert.ok(body.includes(`>${b}</button>`), b);
  assert.ok(body.includes(`<span class="fname">${m.attachments[0]?.name ?? ''}</span>`));

  const q = recent('question');
  const unreadBefore = rowOf((await page('/mail/', s)).body, q.id);
  assert.match(unreadBefore, /class="msg unread"/);
  await page(`/mail/m/${q.id}`, s);
  assert.match(rowOf((await page('/mail/', s)).body, q.id), /class="msg"/);
  assert.equal((await verify(s, mailSpecJson({ messages: { [q.id]: { unread: false } } }))).body.ok, true);
  assert.equal((await page('/mail/m/m99', s)).status, 404);
  assert.equal((await page('/mail/label/urgent', s)).status, 404);
});

void test('search finds every message with all the words, across folders, and escapes the query', async () => {
  const s = 'h-search';
  const topic = data.topics[0] ?? assert.fail();
  const { body } = await page(`/mail/search?q=${encodeURIComponent(topic.toLowerCase())}`, s);
  assert.equal([...body.matchAll(/data-id="/g)].length, 2);
  assert.ok(body.includes(`value="${topic.toLowerCase()}"`), 'the box keeps the query');
  const archived = data.messages.find((m) => m.folder === 'archive') ?? assert.fail();
  const found = (await page(`/mail/search?q=${encodeURIComponent(archived.subject)}`, s)).body;
  assert.ok(found.includes(`data-id="${archived.id}"`));
  assert.ok(found.includes('<span class="chip folder">Archive</span>'), 'the row shows its folder');
  const evil = (await page(`/mail/search?q=${encodeURIComponent('<script>x</script>')}`, s)).body;
  assert.ok(!evil.includes('<script>x</script>') && evil.includes('&lt;script&gt;x&lt;/script&gt;'));
  assert.ok(evil.includes('No messages match'));
});

void test('star from a list returns to it; archive and unread return to the last list with a notice', async () => {
  const s = 'h-actions';
  const m = recent('shipping');
  await page('/mail/', s);
  let res = await post('/mail/star', s, { id: m.id, back: '/mail/?page=1' });
  assert.deepEqual([res.status, res.headers.get('location')], [303, '/mail/?page=1']);
  assert.match(rowOf((await page('/mail/', s)).body, m.id), /aria-label="Unstar" aria-pressed="true"/);
  assert.ok((await page('/mail/starred', s)).body.includes(`data-id="${m.id}"`));
  assert.equal((await verify(s, mailSpecJson({ messages: { [m.id]: { starred: true } } }))).body.ok, true);
  // An outside `back` is not followed.
  res = await post('/mail/star', s, { id: m.id, back: 'https://evil.example/' });
  assert.equal(res.headers.get('location'), '/mail/');

  await page('/mail/folder/archive', s);
  await page(`/mail/m/${m.id}`, s);
  res = await post(`/mail/m/${m.id}/archive`, s, { back: `/mail/m/${m.id}` });
  assert.deepEqual([res.status, res.headers.get('location')], [303, '/mail/folder/archive']);
  const arch = (await page('/mail/folder/archive', s)).body;
  assert.ok(arch.includes(`Archived &quot;${m.subject}&quot;.`), 'one-shot notice');
  assert.ok(arch.includes(`data-id="${m.id}"`));
  assert.ok(!(await page('/mail/folder/archive', s)).body.includes('Archived &quot;'), 'shown once');
  const spec = mailSpecJson({ messages: { [m.id]: { folder: 'archive' } }, othersKeepFolder: true });
  assert.deepEqual((await verify(s, spec)).body.ok, true);

  const other = recent('travel');
  await post(`/mail/m/${other.id}/delete`, s, {});
  const r = await verify(s, spec);
  assert.equal(r.body.ok, false);
  assert.match(r.body.detail, new RegExp(`${other.id} ".+": moved from inbox to trash`));
  await post(`/mail/m/${other.id}/inbox`, s, {});
  assert.equal((await verify(s, spec)).body.ok, true);
  await post(`/mail/m/${other.id}/unread`, s, {});
  await post(`/mail/m/${other.id}/label`, s, { label: 'Travel' });
  assert.match((await page(`/mail/m/${other.id}`, s)).body, /value="Travel" aria-pressed="true">Travel<\/button>/);
  assert.equal((await verify(s, mailSpecJson({ messages: { [other.id]: { unread: false, labels: ['Travel'] } } }))).body.ok, true);
  assert.equal((await post('/mail/m/m99/archive', s, {})).status, 404);
});

void test('compose: labelled fields with autocomplete; replies are prefilled; sent mail survives reloads', async () => {
  const s = 'h-send';
  const c = await page('/mail/compose', s);
  for (const [id, label] of [['to', 'To'], ['cc', 'Cc'], ['subject', 'Subject'], ['body', 'Message']]) {
    assert.ok(c.body.includes(`<label for="${id}">${label}</label>`), label);
  }
  assert.match(c.body, /<div id="to-suggest" class="suggest" role="listbox" aria-label="Suggested contacts" hidden><\/div>/);
  assert.ok(c.body.includes('<button class="send" type="submit">Send</button>'));
  const firstContact = data.contacts[0] ?? assert.fail();
  assert.ok(c.body.includes(JSON.stringify(firstContact.email)), 'contacts for the autocomplete');

  const q = recent('question');
  const reply = await page(`/mail/m/${q.id}/reply`, s);
  assert.ok(reply.body.includes(`value="${q.from.name} &lt;${q.from.email}&gt;"`));
  assert.ok(reply.body.includes(`value="Re: ${q.subject}"`));
  assert.ok(reply.body.includes(`<input type="hidden" name="reply_to" value="${q.id}">`));

  const res = await post('/mail/send', s, { to: `${q.from.name} <${q.from.email}>`, cc: '', subject: `Re: ${q.subject}`, body: 'We will be 12.', reply_to: q.id, title: 'Reply' });
  assert.equal(res.status, 303);
  const spec = mailSpecJson({ sent: [{ to: [q.from.email], subject: `Re: ${q.subject}`, bodyContains: ['we will be 12'], inReplyTo: q.id }], exactSent: true });
  assert.deepEqual((await verify(s, spec)).body, { ok: true, detail: 'mailbox matches: 1 sent' });
  assert.ok((await page('/mail/', s)).body.includes(`Message sent to ${q.from.name}.`));
  for (let i = 0; i < 2; i++) {
    const sent = (await page('/mail/folder/sent', s)).body;
    assert.ok(sent.includes('<a class="subj" href="/mail/m/s1">'), 'the sent message stays listed on reload');
  }
  const opened = (await page('/mail/m/s1', s)).body;
  assert.ok(opened.includes('<p>We will be 12.</p>'));

  // A contact's name resolves; an unknown recipient keeps the draft and names the problem.
  const friend = data.contacts[13] ?? assert.fail();
  const bad = await post('/mail/send', s, { to: `${friend.name}, nobody-here`, cc: '', subject: 'Hello', body: 'Hi there' });
  assert.equal(bad.headers.get('location'), '/mail/compose?draft=1');
  const draft = (await page('/mail/compose?draft=1', s)).body;
  assert.ok(draft.includes('Not sent: recipient &quot;nobody-here&quot; is not an email address or the name of a contact.'));
  assert.ok(draft.includes(`value="${friend.name}, nobody-here"`) && draft.includes('>Hi there</textarea>'));
  await post('/mail/send', s, { to: friend.name, cc: '', subject: 'Hello', body: 'Hi there' });
  const two = mailSpecJson({ sent: [{ to: [friend.email], cc: [], subject: 'hello', bodyContains: ['hi there'] }], exactSent: true });
  const r = await verify(s, two);
  assert.equal(r.body.ok, false);
  assert.match(r.body.detail, /1 more message sent than expected/);
  assert.equal((await verify(s, mailSpecJson({ sent: [{ to: [friend.email], subject: 'hello' }] }))).body.ok, true);

  const inv = recent('invoice');
  const fwd = (await page(`/mail/m/${inv.id}/forward`, s)).body;
  assert.ok(fwd.includes(`value="Fwd: ${inv.subject}"`) && fwd.includes(`Attached: ${inv.attachments[0]?.name ?? '?'}`));
});

void test('contacts list names, addresses and phones', async () => {
  const { body } = await page('/mail/contacts', 'h-contacts');
  for (const c of data.contacts) {
    assert.ok(body.includes(`<h2>${c.name}</h2>`) && body.includes(`<p>Email: ${c.email}</p>`) && body.includes(`<p>Phone: ${c.phone}</p>`), c.name);
  }
});

void test('the cookie choice is remembered per session', async () => {
  const res = await post('/mail/cookies', 'h-cookie', { choice: 'reject', back: '/mail/contacts' });
  assert.deepEqual([res.status, res.headers.get('location')], [303, '/mail/contacts']);
  assert.ok(!(await page('/mail/', 'h-cookie')).body.includes('class="cookies"'));
  assert.ok((await page('/mail/', 'h-cookie-2')).body.includes('class="cookies"'));
});

void test('verifier endpoint: bad specs are 400 with the field named; unknown sessions fail; sessions stay apart', async () => {
  const bad = await verify('x', '{"messages":{"m01":{"folder":"spam"}}}');
  assert.equal(bad.status, 400);
  assert.equal(bad.body.ok, false);
  assert.match(bad.body.detail, /spec\.messages\["m01"\]\.folder = "spam" must be one of/);
  const m = recent('security');
  const spec = mailSpecJson({ messages: { [m.id]: { starred: true } } });
  const unknown = await verify('never-seen', spec);
  assert.equal(unknown.body.ok, false);
  assert.match(unknown.body.detail, /^unknown session; mailbox differs/);
  await post('/mail/star', 'iso-A', { id: m.id });
  await page('/mail/', 'iso-B');
  assert.equal((await verify('iso-A', spec)).body.ok, true);
  assert.equal((await verify('iso-B', spec)).body.ok, false);
  assert.ok(!rowOf((await page('/mail/', 'iso-B')).body, m.id).includes('aria-pressed="true"'));
});

void test('the task endpoint serves mail tasks for this data seed', async () => {
  const res = await fetch(`${srv.url}/__owrl/tasks?suite=mail&seed=3&n=5&difficulties=1,2`);
  assert.equal(res.status, 200);
  const tasks = parseTaskFile(await res.text());
  assert.equal(tasks.length, 5);
  for (const t of tasks) {
    assert.equal(t.startUrl, `${srv.url}/mail/`);
    assert.ok(t.difficulty <= 2);
    assert.equal(t.metadata['data_seed'], '4');
  }
  assert.equal((await fetch(`${srv.url}/mail/`, { method: 'PUT' })).status, 405);
});
