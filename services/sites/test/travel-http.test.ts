// HTTP-level tests of the travel site (real sites server on a free port, global fetch): pages,
// canonical results with sort and filters, bookings and cancellation by form POST, the verifier
// endpoint, the cookie choice, and sessions that never see each other's state.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseTaskFile,
} from '@owrl/tasks';
import {
  buildTravelData,
  filterFlights,
  flightsOn,
  presetBookings,
  sortFlights,
  travelSpecJson,
  type TravelData,
  type TravelSpec,
} from '@owrl/tasks/travel';
import { startSitesServer, type SitesServer } from '../src/index.js';

const SEED = 6;
let srv: SitesServer;
let data: TravelData;

before(async () => {
  srv = await startSitesServer({ port: 0, seed: SEED });
  data = buildTravelData(SEED);
});
after(async () => {
  await srv.close();
});

async function get(path: string, session: string): Promise<{ status: number; body: string; location: string | null }> {
  const res = await fetch(`${srv.url}${path}`, { headers: { cookie: `owrl_session=${session}` }, redirect: 'manual' });
  return { status: res.status, body: await res.text(), location: res.headers.get('location') };
}

async function post(path: string, session: string, form: Record<string, string> | URLSearchParams): Promise<{ status: number; body: string; location: string | null }> {
  const res = await fetch(`${srv.url}${path}`, {
    method: 'POST',
    headers: { cookie: `owrl_session=${session}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
  return { status: res.status, body: await res.text(), location: res.headers.get('location') };
}

async function verify(session: string, spec: TravelSpec | string): Promise<{ status: number; body: { ok: boolean; detail: string } }> {
  const s = typeof spec === 'string' ? spec : travelSpecJson(spec);
  const res = await fetch(`${srv.url}/__owrl/verify/travel?session=${encodeURIComponent(session)}&spec=${encodeURIComponent(s)}`);
  return { status: res.status, body: (await res.json()) as { ok: boolean; detail: string } };
}

/** Flight numbers of the result cards, in page order. */
function cardNumbers(body: string): string[] {
  return [...body.matchAll(/aria-label="Select ([A-Z]{2}\d{3})"/g)].map((m) => m[1] ?? '');
}

void test('search page: labelled comboboxes, calendars, passengers, cabin radios, cookie bar', async () => {
  const { status, body } = await get('/travel/', 'h1');
  assert.equal(status, 200);
  for (const id of ['from', 'to']) assert.match(body, new RegExp(`<input id="${id}" name="${id}"[^>]*role="combobox"[^>]*aria-controls="${id}-list"`));
  assert.match(body, /<label for="date">Departure date<\/label>/);
  assert.match(body, /<button type="button" class="link" data-calendar="date"[^>]*>Choose departure date<\/button>/);
  assert.match(body, /data-calendar="ret"[^>]*>Choose return date</);
  assert.match(body, /<div id="ret-row" hidden>/, 'one way by default: the return date is hidden');
  assert.match(body, /<label for="pax">Passengers<\/label><input id="pax" name="pax" type="number"/);
  for (const c of ['Economy', 'Premium economy', 'Business']) assert.ok(body.includes(`>${c}</label>`), c);
  assert.match(body, /<button type="submit">Search flights<\/button>/);
  assert.match(body, /<script type="application\/json" id="airports">\[\{"code":"LIS","name":"Lisbon","label":"Lisbon \(LIS\)"/);
  assert.match(body, /role="region" aria-label="Cookie consent"[\s\S]*>Accept<\/button><button[^>]*>Reject<\/button>/);
  assert.match(body, /<a href="\/travel\/trips">My trips<\/a>/);
  // The portal lists the site; health reports its data.
  assert.match(await (await fetch(`${srv.url}/`)).text(), /<a href="\/travel\/">Skyward<\/a>/);
  const health = (await (await fetch(`${srv.url}/__owrl/health`)).json()) as { sites: Record<string, Record<string, number>> };
  assert.deepEqual(health.sites['travel'], { dataSeed: SEED, cities: 12, airlines: 5, services: data.services.length });
});

void test('a typed search redirects to the canonical results; sorts and filters list what the rules say', async () => {
  const typed = await get('/travel/flights?trip=oneway&from=lisbon&to=Oslo+(OSL)&date=2027-03-14&ret=&pax=1&cabin=economy', 'r1');
  assert.equal(typed.status, 302);
  assert.equal(typed.location, '/travel/flights?from=LIS&to=OSL&date=2027-03-14');
  const list = flightsOn(data, 'LIS', 'OSL', '2027-03-14');
  const plain = await get(typed.location ?? '', 'r1');
  assert.equal(plain.status, 200);
  assert.deepEqual(cardNumbers(plain.body), list.map((f) => f.service.number), 'by departure time by default');
  assert.match(plain.body, /<a href="[^"]*" aria-current="true">Earliest departure<\/a>/);
  assert.ok(plain.body.includes(`${list.length} of ${list.length} flights`));
  for (const f of list) assert.ok(plain.body.includes(`<p class="price">$${f.fares.economy.toLocaleString('en-US')}</p>`), f.id);

  const cheap = await get('/travel/flights?from=LIS&to=OSL&date=2027-03-14&cabin=business&sort=price', 'r1');
  assert.deepEqual(cardNumbers(cheap.body), sortFlights(list, 'price', 'business').map((f) => f.service.number));
  const nonstop = await get('/travel/flights?from=LIS&to=OSL&date=2027-03-14&sort=duration&stops=0', 'r1');
  const want = sortFlights(filterFlights(list, { stops: [0], airlines: [], maxPrice: undefined }, 'economy'), 'duration', 'economy');
  assert.deepEqual(cardNumbers(nonstop.body), want.map((f) => f.service.number));
  assert.match(nonstop.body, /<input type="checkbox" name="stops" value="0" checked> Nonstop/);
  const top = sortFlights(list, 'price', 'economy')[0];
  assert.ok(top);
  const capped = await get(`/travel/flights?from=LIS&to=OSL&date=2027-03-14&airline=${top.service.airline}&max=${top.fares.economy}`, 'r1');
  assert.deepEqual(cardNumbers(capped.body), [top.service.number]);
  // A filter form submit (fields in form order) lands on the canonical URL too.
  const form = await get('/travel/flights?from=LIS&to=OSL&date=2027-03-14&sort=price&stops=1&stops=0&max=', 'r1');
  assert.equal(form.location, '/travel/flights?from=LIS&to=OSL&date=2027-03-14&sort=price&stops=0&stops=1');
  const none = await get('/travel/flights?from=LIS&to=OSL&date=2027-03-14&max=1', 'r1');
  assert.match(none.body, /No flights match your filters\./);
});

void test('search mistakes re-show the form with messages naming the field and value', async () => {
  const { status, body } = await get('/travel/flights?from=Lisbn&to=Oslo&date=2027-06-01&pax=9', 'e1');
  assert.equal(status, 200);
  assert.match(body, /role="alert"/);
  assert.match(body, /We do not fly from &quot;Lisbn&quot;: choose an airport from the suggestions\./);
  assert.match(body, /1 June 2027 is outside/);
  assert.match(body, /Passengers &quot;9&quot; must be a whole number from 1 to 6\./);
  assert.match(body, /<input id="from" name="from" value="Lisbn"/, 'typed values are kept');
  const round = await get('/travel/flights?trip=round&from=LIS&to=OSL&date=2027-03-14&ret=2027-03-10', 'e1');
  assert.match(round.body, /The return date 10 March 2027 is before the departure date\./);
  const same = await get('/travel/flights?from=Oslo&to=OSL&date=2027-03-14', 'e1');
  assert.match(same.body, /Origin and destination must be different\./);
});

void test('flight details show the fare of every cabin with a Book link; unknown flights are 404', async () => {
  const f = flightsOn(data, 'MAD', 'ATH', '2027-04-02')[0];
  assert.ok(f);
  const { status, body } = await get(`/travel/flight/${f.id}`, 'd1');
  assert.equal(status, 200);
  assert.ok(body.includes(`<h1>Flight ${f.service.number}: Madrid → Athens</h1>`));
  for (const [cabin, label] of [['economy', 'Economy'], ['premium', 'Premium economy'], ['business', 'Business']] as const) {
    assert.ok(body.includes(`<tr><th scope="row">${label}</th><td>$${f.fares[cabin].toLocaleString('en-US')}</td>`), label);
    assert.ok(body.includes(`href="/travel/book?flights=${f.id}&amp;cabin=${cabin}">Book ${label}</a>`), label);
  }
  assert.equal((await get('/travel/flight/ZZ999-20270402', 'd1')).status, 404);
  assert.equal((await get('/travel/nowhere', 'd1')).status, 404);
  const put = await fetch(`${srv.url}/travel/trips`, { method: 'PUT' });
  assert.equal(put.status, 405);
});

void test('booking by form POST: errors re-show the form; success confirms, lists and verifies', async () => {
  const s = 'b1';
  const f = flightsOn(data, 'BER', 'FCO', '2027-03-20')[1];
  assert.ok(f);
  const form = await get(`/travel/book?flights=${f.id}&cabin=premium`, s);
  assert.equal(form.status, 200);
  assert.match(form.body, /<input type="radio" id="seat-premium" name="cabin" value="premium" checked>/);
  assert.match(form.body, /<label for="passenger-1">Passenger name<\/label>/);
  assert.match(form.body, /<label for="email">Email<\/label>/);

  const bad = await post('/travel/book', s, { flights: f.id, pax: '1', cabin: 'premium', passenger: ' ', email: 'nope' });
  assert.equal(bad.status, 200);
  assert.match(bad.body, /Enter the passenger name\./);
  assert.match(bad.body, /Email &quot;nope&quot; is not an email address\./);

  const ok = await post('/travel/book', s, { flights: f.id, pax: '1', cabin: 'premium', passenger: 'Greta  Weber', email: 'greta@example.com' });
  assert.equal(ok.status, 303);
  const ref = /^\/travel\/confirmation\/([A-Z]{3}\d{3})$/.exec(ok.location ?? '')?.[1];
  assert.ok(ref, ok.location ?? '');
  const conf = await get(ok.location ?? '', s);
  assert.match(conf.body, /<h1>Booking confirmed<\/h1>/);
  assert.ok(conf.body.includes(`data-booking-ref="${ref}" data-status="confirmed" data-flights="${f.id}"`));
  assert.ok(conf.body.includes(`Booking reference: <strong>${ref}</strong>`));
  assert.ok(conf.body.includes(`<dt>Total</dt><dd>$${f.fares.premium.toLocaleString('en-US')}</dd>`));

  const spec: TravelSpec = { bookings: [{ flights: [f.id], cabin: 'premium', passengers: ['Greta Weber'], email: 'greta@example.com' }], cancelled: [], exact: true };
  assert.deepEqual((await verify(s, spec)).body.ok, true);
  const wrongCabin = await verify(s, { ...spec, bookings: [{ ...spec.bookings[0]!, cabin: 'business' }] });
  assert.equal(wrongCabin.body.ok, false);
  assert.match(wrongCabin.body.detail, /cabin premium, want business/);
  // Another session has none of it.
  assert.equal((await verify('b2', spec)).body.ok, false);
  assert.doesNotMatch((await get('/travel/trips', 'b2')).body, new RegExp(ref));
  assert.match((await get('/travel/trips', s)).body, new RegExp(`<a href="/travel/trips/${ref}">${ref}</a>`));
  // Two flights that are not a round trip cannot be booked together.
  const g = flightsOn(data, 'LIS', 'OSL', '2027-03-20')[0];
  assert.equal((await get(`/travel/book?flights=${f.id},${g?.id ?? ''}`, s)).status, 404);
});

void test('round trip: outbound list, then returns, then a two-leg booking', async () => {
  const s = 'rt1';
  const base = '/travel/flights?from=CPH&to=VIE&date=2027-04-03&ret=2027-04-08&cabin=business&sort=price';
  const outPage = await get(base, s);
  assert.equal(outPage.status, 200);
  assert.match(outPage.body, /Step 1 of 2:<\/strong> choose your outbound flight/);
  const out = sortFlights(flightsOn(data, 'CPH', 'VIE', '2027-04-03'), 'price', 'business')[0];
  assert.ok(out);
  assert.ok(outPage.body.includes(`href="${base.replaceAll('&', '&amp;')}&amp;out=${out.id}" aria-label="Select ${out.service.number}"`));
  const backPage = await get(`${base}&out=${out.id}`, s);
  assert.match(backPage.body, /Step 2 of 2:<\/strong> choose your return flight/);
  assert.match(backPage.body, /<h1>Vienna → Copenhagen<\/h1>/);
  const back = sortFlights(flightsOn(data, 'VIE', 'CPH', '2027-04-08'), 'price', 'business')[0];
  assert.ok(back);
  assert.deepEqual(cardNumbers(backPage.body)[0], back.service.number);
  assert.ok(backPage.body.includes(`href="/travel/book?flights=${out.id}%2C${back.id}&amp;cabin=business" aria-label="Select ${back.service.number}"`));
  // An outbound that is not on the list sends back to the outbound step.
  assert.equal((await get(`${base}&out=ZZ999-20270403`, s)).location, base);
  const done = await post('/travel/book', s, { flights: `${out.id},${back.id}`, pax: '1', cabin: 'business', passenger: 'Hugo Costa', email: 'hugo@example.com' });
  assert.equal(done.status, 303);
  const trip = await get(done.location?.replace('/confirmation/', '/trips/') ?? '', s);
  assert.match(trip.body, /<h1>Copenhagen ⇄ Vienna<\/h1>/);
  const spec: TravelSpec = { bookings: [{ flights: [out.id, back.id], cabin: 'business', passengers: ['Hugo Costa'] }], cancelled: [], exact: true };
  assert.equal((await verify(s, spec)).body.ok, true);
});

void test('My trips lists the account trips; cancelling one changes only that session', async () => {
  const presets = presetBookings(data);
  const ref = presets[2]?.ref ?? '';
  const trips = await get('/travel/trips', 'c1');
  for (const b of presets) assert.ok(trips.body.includes(`<a href="/travel/trips/${b.ref}">${b.ref}</a>`), b.ref);
  assert.doesNotMatch(trips.body, /<h2>Cancelled<\/h2>/);
  const spec: TravelSpec = { bookings: [], cancelled: [ref], exact: true };
  const before = await verify('c1', spec);
  assert.equal(before.body.ok, false);
  assert.match(before.body.detail, new RegExp(`booking ${ref} is confirmed, want cancelled`));

  const tripPage = await get(`/travel/trips/${ref}`, 'c1');
  assert.match(tripPage.body, /<button type="submit">Cancel booking<\/button>/);
  const res = await post(`/travel/trips/${ref}/cancel`, 'c1', {});
  assert.deepEqual([res.status, res.location], [303, '/travel/trips']);
  const after = await get('/travel/trips', 'c1');
  assert.match(after.body, new RegExp(`role="status">Booking ${ref} has been cancelled\\.`));
  assert.match(after.body, new RegExp(`<h2>Cancelled</h2>[\\s\\S]*${ref}`));
  assert.equal((await verify('c1', spec)).body.ok, true);
  assert.match((await get(`/travel/trips/${ref}`, 'c1')).body, /This booking was cancelled\./);
  // Other sessions, and sessions the server never saw, still hold the trip.
  assert.equal((await verify('c2', spec)).body.ok, false);
  const unknown = await verify('never-seen', spec);
  assert.match(unknown.body.detail, /^unknown session; /);
  assert.equal((await post(`/travel/trips/${ref}/cancel`, 'c1', {})).status, 303);
  assert.match((await get('/travel/trips', 'c1')).body, /was already cancelled/);
  assert.equal((await post('/travel/trips/ZZZ999/cancel', 'c1', {})).status, 404);
});

void test('the verifier answers bad specs with 400 and the reason; tasks are served as JSONL', async () => {
  const bad = await verify('v1', '{"bookings":[{"flights":["x"],"cabin":"economy","passengers":["A"]}]}');
  assert.equal(bad.status, 400);
  assert.equal(bad.body.ok, false);
  assert.match(bad.body.detail, /spec\.bookings\[0\]\.flights\[0\] = "x"/);
  const res = await fetch(`${srv.url}/__owrl/tasks?suite=travel&seed=4&n=9&difficulties=1,2,22`);
  assert.equal(res.status, 200);
  const tasks = parseTaskFile(await res.text());
  assert.equal(tasks.length, 9);
  assert.ok(tasks.every((t) => [1, 2, 22].includes(t.difficulty) && t.startUrl.startsWith(`${srv.url}/travel/`)));
  assert.ok(tasks.some((t) => t.verifier?.kind.case === 'siteState' && t.verifier.kind.value.endpoint === `${srv.url}/__owrl/verify/travel`));
  assert.equal((await fetch(`${srv.url}/__owrl/tasks?suite=travel&families=nope`)).status, 400);
});

void test('the cookie choice is remembered per session and returns to the page', async () => {
  const res = await post('/travel/cookies', 'k1', { choice: 'reject', back: '/travel/trips' });
  assert.deepEqual([res.status, res.location], [303, '/travel/trips']);
  assert.doesNotMatch((await get('/travel/', 'k1')).body, /Cookie consent/);
  assert.match((await get('/travel/', 'k2')).body, /Cookie consent/);
  const away = await post('/travel/cookies', 'k2', { choice: 'accept', back: '//evil.example/' });
  assert.equal(away.location, '/travel/');
});
