// HTTP-level tests of the wiki (real sites server on a free port, global fetch): pages and their
// key markup, search, sorting, the digest popup and cookie bar, the reading list through form
// posts, the verifier endpoint, the seeded random article and session isolation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTaskFile, validateTask } from '@owrl/tasks';
import { listOfKind, sortedRows, type WikiArticle, type WikiData } from '@owrl/tasks/wiki';
import { startSitesServer, type SitesServer } from '../src/index.js';

let srv: SitesServer;
let data: WikiData;

before(async () => {
  srv = await startSitesServer({ port: 0, seed: 6 });
  const wiki = srv.sites.find((s) => s.name === 'wiki') as unknown as { data: WikiData } | undefined;
  assert.ok(wiki, 'the server hosts the wiki');
  data = wiki.data;
});
after(async () => {
  await srv.close();
});

async function get(path: string, session?: string): Promise<{ status: number; body: string; res: Response }> {
  const res = await fetch(`${srv.url}${path}`, { headers: session ? { cookie: `owrl_session=${session}` } : {}, redirect: 'manual' });
  return { status: res.status, body: await res.text(), res };
}

async function post(path: string, session: string, form: Record<string, string>, json = false): Promise<Response> {
  return await fetch(`${srv.url}${path}`, {
    method: 'POST',
    headers: { cookie: `owrl_session=${session}`, 'content-type': 'application/x-www-form-urlencoded', ...(json ? { accept: 'application/json' } : {}) },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
}

async function verify(session: string, spec: unknown): Promise<{ status: number; body: { ok: boolean; detail: string } }> {
  const res = await fetch(`${srv.url}/__owrl/verify/wiki?session=${encodeURIComponent(session)}&spec=${encodeURIComponent(JSON.stringify(spec))}`);
  return { status: res.status, body: (await res.json()) as { ok: boolean; detail: string } };
}

const article = (kind: WikiArticle['kind'], i = 0): WikiArticle => data.articles.filter((a) => a.kind === kind)[i] as WikiArticle;

void test('health and portal list the wiki with its 60 articles', async () => {
  const body = (await (await fetch(`${srv.url}/__owrl/health`)).json()) as { sites: Record<string, { articles?: number; dataSeed?: number }> };
  assert.deepEqual([body.sites['wiki']?.articles, body.sites['wiki']?.dataSeed], [60, 6]);
  assert.ok((await get('/')).body.includes('<a href="/wiki/">Lorewell</a>'));
  const moved = await get('/wiki');
  assert.equal(moved.status, 301);
});

void test('main page: labelled search box, lists, categories, site links and the cookie bar', async () => {
  const { status, body } = await get('/wiki/', 'h-main');
  assert.equal(status, 200);
  assert.match(body, /<label for="wiki-q">Search Lorewell<\/label>\s*<input id="wiki-q" type="search" name="q"/);
  for (const l of ['List_of_cities', 'List_of_rivers', 'List_of_people', 'List_of_inventions']) assert.ok(body.includes(`href="/wiki/${l}"`), l);
  for (const name of ['Main page', 'All articles', 'Categories', 'Random article']) assert.ok(body.includes(`>${name}</a>`), name);
  assert.match(body, /<div id="cookie-bar" class="cookie" role="region" aria-label="Cookie consent">/);
  assert.ok(body.includes('>Accept</button>') && body.includes('>Reject</button>'));
  assert.ok(!body.includes('role="dialog"'), 'no popup on the main page');
});

void test('article page: title, save button, labelled infobox rows, contents, long sections and the timeline', async () => {
  const a = article('river', 3);
  const { status, body } = await get(`/wiki/${a.slug}`, 'h-article');
  assert.equal(status, 200);
  assert.ok(body.includes(`<h1>${a.title}</h1>`));
  assert.match(body, /<button type="submit" class="quiet">Save to reading list<\/button>/);
  for (const f of a.facts) {
    if (f.links.length === 0) assert.ok(body.includes(`<td><span class="k">${f.label}:</span> ${f.display}</td>`), f.label);
  }
  for (const s of a.sections) {
    assert.ok(body.includes(`<li><a href="#${s.id}">${s.heading}</a></li>`), `contents link ${s.heading}`);
    assert.ok(body.includes(`<h2 id="${s.id}">${s.heading}</h2>`));
  }
  for (const e of a.timeline) assert.ok(body.includes(`<tr><td class="num">${e.year}</td><td>${e.text}</td></tr>`), e.text);
  assert.ok(body.indexOf('class="data timeline"') > body.length / 2, 'the timeline is far down the page');
  const words = body.replace(/<[^>]+>/g, ' ').split(/\s+/).length;
  assert.ok(words > 1500, `a long page (${words} words)`);
  assert.ok(!body.includes('role="dialog"') && !body.includes(' inert'), 'the first article has no popup');
  const missing = await get('/wiki/No_such_page', 'h-article');
  assert.equal(missing.status, 404);
  assert.match(missing.body, /There is no article called &quot;No such page&quot;/);
});

void test('the digest popup covers the second article until dismissed, and stays dismissed', async () => {
  const s = 'h-digest';
  const [a, b, c] = [article('city', 0), article('city', 1), article('city', 2)];
  assert.ok(!(await get(`/wiki/${a.slug}`, s)).body.includes('role="dialog"'));
  const second = (await get(`/wiki/${b.slug}`, s)).body;
  assert.match(second, /<div id="page" inert>/);
  assert.match(second, /role="dialog" aria-modal="true" aria-labelledby="digest-title"/);
  assert.ok(second.includes('>Subscribe to our digest</h2>') && second.includes('>No thanks</button>') && second.includes('aria-label="Close"'));
  assert.ok((await get(`/wiki/${c.slug}`, s)).body.includes('role="dialog"'), 'shown again while not dismissed');
  const bad = await post('/wiki/Special:Digest', s, { digest: 'subscribe', email: 'nope', back: `/wiki/${c.slug}` }, true);
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { text: string }).text, /"nope" is not an email address/);
  const res = await post('/wiki/Special:Digest', s, { digest: 'dismiss', back: `/wiki/${c.slug}` }, true);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { ok: true, text: '' });
  const after = (await get(`/wiki/${a.slug}`, s)).body;
  assert.ok(!after.includes('role="dialog"') && !after.includes('<div id="page" inert>'));
  // Without the page script the same form redirects back.
  const s2 = 'h-digest-2';
  await get(`/wiki/${a.slug}`, s2);
  await get(`/wiki/${b.slug}`, s2);
  const plain = await post('/wiki/Special:Digest', s2, { digest: 'subscribe', email: 'reader@example.com', back: `/wiki/${b.slug}` });
  assert.equal(plain.status, 303);
  assert.equal(plain.headers.get('location'), `/wiki/${b.slug}`);
  const shown = (await get(`/wiki/${b.slug}`, s2)).body;
  assert.ok(shown.includes('Subscribed to the weekly digest: reader@example.com') && !shown.includes('role="dialog"'));
});

void test('cookie choice is remembered per session; unsafe return paths go to the main page', async () => {
  const res = await post('/wiki/Special:Consent', 'h-cookie', { choice: 'reject', back: 'https://evil.example/' });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get('location'), '/wiki/');
  assert.ok(!(await get('/wiki/', 'h-cookie')).body.includes('id="cookie-bar"'));
  assert.ok((await get('/wiki/', 'h-cookie-other')).body.includes('id="cookie-bar"'));
  assert.equal((await post('/wiki/Special:Consent', 'h-cookie', { choice: 'maybe' }, true)).status, 400);
});

void test('search: an exact title redirects to the article, other queries list results, input is escaped', async () => {
  const a = article('invention', 4);
  const exact = await get(`/wiki/Special:Search?q=${encodeURIComponent(a.title.toLowerCase())}`);
  assert.equal(exact.status, 302);
  assert.equal(exact.res.headers.get('location'), `/wiki/${a.slug}`);
  const words = await get('/wiki/Special:Search?q=machine+introduced');
  assert.equal(words.status, 200);
  assert.ok(words.body.includes(`<a href="/wiki/${a.slug}">${a.title}</a>`));
  const evil = await get(`/wiki/Special:Search?q=${encodeURIComponent('<b>x</b>')}`);
  assert.ok(!evil.body.includes('<b>x</b>') && evil.body.includes('&lt;b&gt;x&lt;/b&gt;'));
});

void test('list pages sort by a column header; the header link flips the order', async () => {
  const list = listOfKind('river');
  const plain = (await get('/wiki/List_of_rivers')).body;
  assert.match(plain, /<th scope="col" data-col="name" aria-sort="ascending"><a href="\/wiki\/List_of_rivers\?sort=name&amp;order=desc">River<\/a><\/th>/);
  assert.ok(plain.includes('<a href="/wiki/List_of_rivers?sort=length&amp;order=asc">Length (km)</a>'));
  const desc = (await get('/wiki/List_of_rivers?sort=length&order=desc')).body;
  assert.match(desc, /data-col="length" aria-sort="descending" class="num"><a href="\/wiki\/List_of_rivers\?sort=length&amp;order=asc">/);
  const order = [...desc.matchAll(/<tr><th scope="row"><a href="\/wiki\/([^"]+)">/g)].map((m) => m[1]);
  assert.deepEqual(order, sortedRows(data, list, 'length', 'desc').map((a) => a.slug));
  const bogus = (await get('/wiki/List_of_rivers?sort=nonsense&order=sideways')).body;
  assert.match(bogus, /data-col="name" aria-sort="ascending"/);
});

void test('categories, all articles and the category index render their members', async () => {
  const cats = (await get('/wiki/Category:Rivers')).body;
  for (const r of data.articles.filter((a) => a.kind === 'river')) assert.ok(cats.includes(`<a href="/wiki/${r.slug}">${r.title}</a>`), r.slug);
  assert.match(cats, /<h2>Subcategories<\/h2>/);
  const all = (await get('/wiki/Special:AllPages')).body;
  const content = all.slice(all.indexOf('<h1>All articles</h1>'), all.indexOf('</main>'));
  assert.equal([...content.matchAll(/<li><a href="\/wiki\/[^"]+">/g)].length, 60 + 4, 'every article and list');
  const index = (await get('/wiki/Special:Categories')).body;
  for (const c of data.categories) assert.ok(index.includes(`<a href="/wiki/${c.slug}">${c.title}</a>`), c.slug);
});

void test('reading list: save and remove through posts, verifier answers, sessions stay apart', async () => {
  const [a, b] = [article('person', 2), article('city', 5)];
  const res = await post('/wiki/Special:ReadingList/add', 'h-rl-A', { slug: a.slug, back: `/wiki/${a.slug}` }, true);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { ok: true, text: `Saved to your reading list: ${a.title}`, saved: true, count: 1 });
  const plain = await post('/wiki/Special:ReadingList/add', 'h-rl-A', { slug: b.slug, back: `/wiki/${b.slug}` });
  assert.equal(plain.status, 303);
  const page = (await get(`/wiki/${b.slug}`, 'h-rl-A')).body;
  assert.ok(page.includes(`Saved to your reading list: ${b.title}`) && page.includes('>Remove from reading list</button>'));
  assert.ok(page.includes('Reading list (<span id="rl-count">2</span>)'));
  const list = (await get('/wiki/Special:ReadingList', 'h-rl-A')).body;
  assert.ok(list.includes(`aria-label="Remove ${a.title}"`) && list.includes(`aria-label="Remove ${b.title}"`));
  assert.ok((await get('/wiki/Special:ReadingList', 'h-rl-B')).body.includes('Your reading list is empty.'));

  assert.equal((await verify('h-rl-A', { saved: [a.slug, b.slug], exact: true })).body.ok, true);
  const partial = await verify('h-rl-A', { saved: [a.slug], exact: true });
  assert.equal(partial.body.ok, false);
  assert.match(partial.body.detail, new RegExp(`not asked for ${b.slug}`));
  assert.equal((await verify('h-rl-A', { saved: [a.slug], exact: false })).body.ok, true);
  assert.equal((await verify('h-rl-B', { saved: [a.slug], exact: true })).body.ok, false, 'another session has its own list');

  await post('/wiki/Special:ReadingList/remove', 'h-rl-A', { slug: b.slug, back: '/wiki/Special:ReadingList' });
  assert.equal((await verify('h-rl-A', { saved: [a.slug], exact: true })).body.ok, true);
  const missing = await post('/wiki/Special:ReadingList/add', 'h-rl-A', { slug: 'Nowhere', back: '/wiki/' }, true);
  assert.equal(missing.status, 404);
});

void test('verifier endpoint: bad specs are 400 naming the field; an unknown session has an empty list', async () => {
  const bad = await verify('v-1', { saved: 'x' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.ok, false);
  assert.match(bad.body.detail, /spec\.saved = "x" must be a list/);
  const unknown = await verify('v-1', { saved: ['Atlantis'] });
  assert.equal(unknown.status, 400);
  assert.match(unknown.body.detail, /spec\.saved\[0\] = "Atlantis" is not an article/);
  const never = await verify('never-seen', { saved: [article('city').slug], exact: true });
  assert.deepEqual([never.status, never.body.ok], [200, false]);
  assert.match(never.body.detail, /unknown session/);
  assert.equal((await verify('never-seen', { saved: [], exact: true })).body.ok, true);
});

void test('random article: deterministic per session and data seed, different across sessions', async () => {
  const draws = async (server: SitesServer, session: string): Promise<string[]> => {
    const out: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${server.url}/wiki/Special:Random`, { headers: { cookie: `owrl_session=${session}` }, redirect: 'manual' });
      assert.equal(res.status, 302);
      out.push(res.headers.get('location') ?? '');
    }
    return out;
  };
  const first = await draws(srv, 'h-rand-1');
  assert.ok(first.every((l) => /^\/wiki\/[A-Z]/.test(l)), first.join(' '));
  const twin = await startSitesServer({ port: 0, seed: 6 });
  try {
    assert.deepEqual(await draws(twin, 'h-rand-1'), first);
  } finally {
    await twin.close();
  }
  assert.notDeepEqual(await draws(srv, 'h-rand-2'), first);
});

void test('methods: posts only where forms post; tasks endpoint serves valid wiki tasks for this server', async () => {
  assert.equal((await get('/wiki/Special:Digest')).status, 405);
  assert.equal((await post('/wiki/Special:AllPages', 'm', {})).status, 405);
  const res = await fetch(`${srv.url}/__owrl/tasks?suite=wiki&seed=3&n=12`);
  assert.equal(res.status, 200);
  const tasks = parseTaskFile(await res.text());
  assert.equal(tasks.length, 12);
  for (const t of tasks) {
    assert.deepEqual(validateTask(t), []);
    assert.ok(t.startUrl.startsWith(`${srv.url}/wiki/`), t.startUrl);
    assert.equal(t.metadata['data_seed'], '6');
  }
  const bad = await fetch(`${srv.url}/__owrl/tasks?suite=wiki&families=nope`);
  assert.equal(bad.status, 400);
});
