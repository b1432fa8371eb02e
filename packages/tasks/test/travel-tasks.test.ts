// The travel task generator (determinism, every family, filters, bad options, verifiers that agree
// with the timetable) and the bookings verifier (spec parsing and checks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchAnswer } from '@owrl/judge-core';
import { toJson, TaskSchema, type Task } from '@owrl/proto';
import {
  generateSuiteTasks,
  getSuite,
  TaskError,
  validateTask,
} from '../src/index.js';
import {
  buildTravelData,
  checkTravel,
  filterFlights,
  findFlight,
  flightsOn,
  generateTravelTasks,
  makeBooking,
  parseTravelSpec,
  presetBookings,
  sortFlights,
  TRAVEL_FAMILIES,
  travelSpecJson,
  type TravelBooking,
} from '../src/travel/index.js';
import {
  TRAVEL_POOL_SIZE,
} from '../src/travel/travel-families.js';

const BASE = 'http://127.0.0.1:8400';
const json = (ts: Task[]) => ts.map((t) => toJson(TaskSchema, t));
const SEARCH = ['from_name', 'to_name', 'date_label'];
const TRAVELLER = ['cabin_label', 'passenger', 'email'];
/** Metadata whose values the instruction quotes (what gets clicked or typed), per family. */
const QUOTED: Record<string, readonly string[]> = {
  fare: ['flight_number'],
  class_fare: ['flight_number', 'cabin_label'],
  sorted_first: ['sort_label'],
  cheapest_nonstop: [],
  cancel_booking: ['ref'],
  book_flight: ['flight_number', ...TRAVELLER],
  search_cheapest: SEARCH,
  book_cheapest_nonstop: [...SEARCH, ...TRAVELLER],
  round_trip_rebook: ['ref', ...SEARCH, 'ret_label', ...TRAVELLER],
};
const all = (dataSeed = 1) => generateTravelTasks({ seed: 3, n: TRAVEL_POOL_SIZE * 8 + 4, baseUrl: BASE, dataSeed });

void test('same seeds → identical tasks; another task or data seed → different tasks', () => {
  const a = generateTravelTasks({ seed: 11, n: 30, baseUrl: BASE });
  assert.deepEqual(json(a), json(generateTravelTasks({ seed: 11, n: 30, baseUrl: BASE })));
  assert.notDeepEqual(json(a), json(generateTravelTasks({ seed: 12, n: 30, baseUrl: BASE })));
  assert.notDeepEqual(json(a), json(generateTravelTasks({ seed: 11, n: 30, baseUrl: BASE, dataSeed: 2 })));
  assert.equal(new Set(a.map((t) => t.id)).size, 30, 'ids are unique');
  // The suite registry serves the same generator.
  assert.deepEqual(json(generateSuiteTasks('travel', { seed: 11, n: 30, baseUrl: BASE, dataSeed: 1 })), json(a));
  assert.equal(getSuite('travel').site, 'travel');
});

void test('every family is generated and valid; difficulty is the route length; grades run from 1 to 15+', () => {
  const tasks = all();
  assert.equal(new Set(tasks.map((t) => t.id)).size, tasks.length);
  for (const fam of TRAVEL_FAMILIES) {
    const mine = tasks.filter((t) => t.family === fam.name);
    assert.equal(mine.length, fam.name === 'cancel_booking' ? 4 : TRAVEL_POOL_SIZE, fam.name);
    assert.equal(fam.route.length, fam.difficulty, fam.name);
    for (const t of mine) {
      assert.deepEqual(validateTask(t), [], t.id);
      assert.match(t.id, new RegExp(`^travel/${fam.name}/\\d{4}$`));
      assert.equal(t.suite, 'travel');
      assert.equal(t.site, 'travel');
      assert.equal(t.difficulty, fam.difficulty);
      assert.equal(t.metadata['family'], fam.name);
      assert.ok(t.startUrl.startsWith(`${BASE}/travel/`), t.startUrl);
      const kind = t.verifier?.kind.case;
      assert.equal(kind, { answer: 'answer', site_state: 'siteState', page_expression: 'pageExpression' }[fam.check], t.id);
      // Names to click or type are quoted in the instruction.
      for (const key of QUOTED[fam.name] ?? ['missing']) {
        const v = t.metadata[key];
        assert.ok(v !== undefined && t.instruction.includes(`"${v}"`), `${t.id}: ${key} quoted in ${t.instruction}`);
      }
    }
  }
  const diffs = TRAVEL_FAMILIES.map((f) => f.difficulty);
  assert.ok(diffs.includes(1) && diffs.includes(2) && diffs.includes(3));
  assert.ok(Math.max(...diffs) >= 20 && diffs.some((d) => d >= 12 && d <= 18));
  assert.ok(TRAVEL_FAMILIES.some((f) => f.check === 'page_expression'));
});

void test('answers and bookings agree with the timetable, and the route steps are needed', () => {
  const data = buildTravelData(1);
  for (const t of all()) {
    const m = t.metadata;
    const list = flightsOn(data, m['from'] ?? '', m['to'] ?? '', m['date'] ?? '');
    const cabin = (m['cabin'] ?? 'economy') as 'economy' | 'premium' | 'business';
    const v = t.verifier?.kind;
    const pass = (answer: string) => v?.case === 'answer' && matchAnswer(v.value, answer).status === 'pass';
    const nonstopCheapest = sortFlights(filterFlights(list, { stops: [0], airlines: [], maxPrice: undefined }, cabin), 'price', cabin)[0];
    switch (t.family) {
      case 'fare':
      case 'class_fare': {
        const f = list.find((x) => x.id === m['flight']);
        assert.ok(f, t.id);
        assert.ok(pass(`$${f.fares[cabin]}`) && pass(String(f.fares[cabin])), t.id);
        assert.equal(pass(`$${f.fares[cabin] + 1}`), false);
        if (t.family === 'class_fare') assert.notEqual(cabin, 'economy');
        break;
      }
      case 'sorted_first': {
        const sort = { 'Lowest price': 'price', 'Shortest duration': 'duration', 'Best value': 'best' }[m['sort_label'] ?? ''] as 'price';
        const first = sortFlights(list, sort, 'economy')[0];
        assert.ok(first && pass(first.service.number), t.id);
        assert.notEqual(first, list[0], `${t.id}: not already first without sorting`);
        assert.equal(pass(list[0]?.service.number ?? ''), false);
        break;
      }
      case 'cheapest_nonstop':
        assert.ok(nonstopCheapest && pass(nonstopCheapest.service.number), t.id);
        assert.notEqual(nonstopCheapest, sortFlights(list, 'price', 'economy')[0], `${t.id}: the filter matters`);
        assert.notEqual(nonstopCheapest, list.find((f) => f.service.via.length === 0), `${t.id}: the sort matters`);
        break;
      case 'search_cheapest': {
        const cheapest = sortFlights(list, 'price', 'economy')[0];
        assert.ok(cheapest && pass(`$${cheapest.fares.economy}`), t.id);
        assert.equal(m['months_ahead'], '0', 'the calendar opens on the right month');
        break;
      }
      case 'book_cheapest_nonstop':
      case 'round_trip_rebook': {
        assert.ok(v?.case === 'siteState');
        const spec = parseTravelSpec(v.value.specJson);
        assert.equal(spec.exact, true);
        assert.equal(spec.bookings[0]?.flights[0], nonstopCheapest?.id, t.id);
        assert.equal(m['months_ahead'], '1');
        assert.notEqual(cabin, 'economy', 'the cabin step is needed');
        if (t.family === 'round_trip_rebook') {
          const back = flightsOn(data, m['to'] ?? '', m['from'] ?? '', m['ret'] ?? '');
          const backCheapest = sortFlights(filterFlights(back, { stops: [0], airlines: [], maxPrice: undefined }, cabin), 'price', cabin)[0];
          assert.equal(spec.bookings[0]?.flights[1], backCheapest?.id);
          assert.deepEqual(spec.cancelled, [m['ref']]);
          assert.ok((m['ret'] ?? '') > (m['date'] ?? ''));
        }
        break;
      }
      case 'book_flight':
        assert.ok(v?.case === 'pageExpression');
        assert.doesNotThrow(() => new Function(`return ${v.value.expression};`), 'the expression parses');
        assert.ok(v.value.expression.includes(JSON.stringify(m['flight'])));
        break;
      case 'cancel_booking':
        assert.ok(v?.case === 'siteState');
        assert.deepEqual(parseTravelSpec(v.value.specJson), { bookings: [], cancelled: [m['ref']], exact: true });
        break;
      default:
        assert.fail(`untested family ${t.family}`);
    }
  }
});

void test('family and difficulty filters reach every family; bad options are rejected', () => {
  for (const fam of TRAVEL_FAMILIES) {
    const byName = generateTravelTasks({ seed: 2, n: 2, baseUrl: BASE, families: [fam.name] });
    assert.ok(byName.every((t) => t.family === fam.name));
    const byDiff = generateTravelTasks({ seed: 2, n: 3, baseUrl: BASE, difficulties: [fam.difficulty] });
    assert.ok(byDiff.every((t) => t.difficulty === fam.difficulty));
  }
  const rejects = (opts: Parameters<typeof generateTravelTasks>[0], re: RegExp) =>
    assert.throws(() => generateTravelTasks(opts), (e: unknown) => e instanceof TaskError && e.code === 'TASK_BAD_ARGUMENT' && re.test(e.message));
  rejects({ seed: 1, n: 1, baseUrl: BASE, families: ['nope'] }, /family "nope" is not a travel family/);
  rejects({ seed: 1, n: 1, baseUrl: BASE, difficulties: [5] }, /no travel family has difficulty in \[5\]/);
  rejects({ seed: 1, n: 1, baseUrl: BASE, difficulties: [0] }, /difficulty 0 must be a positive integer/);
  rejects({ seed: 1, n: 5, baseUrl: BASE, families: ['cancel_booking'] }, /n 5 exceeds the 4 distinct tasks/);
  rejects({ seed: 1, n: -1, baseUrl: BASE }, /n -1 must be a non-negative integer/);
  rejects({ seed: 1.5, n: 1, baseUrl: BASE }, /seed 1.5 must be an integer/);
  rejects({ seed: 1, n: 1, baseUrl: 'ftp://x' }, /must be http\(s\)/);
  rejects({ seed: 1, n: 1, baseUrl: BASE, dataSeed: 0.5 }, /dataSeed 0.5 must be an integer/);
});

void test('travel spec parsing names what is wrong', () => {
  const good = { bookings: [{ flights: ['AQ123-20270314'], cabin: 'business', passengers: ['Ana Silva'], email: 'a@b.co' }], cancelled: ['ABC123'], exact: true };
  assert.deepEqual(parseTravelSpec(JSON.stringify(good)), good);
  assert.deepEqual(parseTravelSpec('{}'), { bookings: [], cancelled: [], exact: false });
  for (const [bad, re] of [
    ['nope', /not JSON/],
    ['[]', /JSON object/],
    ['{"bookings":3}', /spec\.bookings must be an array/],
    ['{"bookings":[7]}', /spec\.bookings\[0\] must be an object/],
    ['{"bookings":[{"flights":["AQ1"],"cabin":"economy","passengers":["A"]}]}', /spec\.bookings\[0\]\.flights\[0\] = "AQ1"/],
    ['{"bookings":[{"flights":[],"cabin":"economy","passengers":["A"]}]}', /spec\.bookings\[0\]\.flights is empty/],
    ['{"bookings":[{"flights":["AQ123-20270314"],"cabin":"first","passengers":["A"]}]}', /spec\.bookings\[0\]\.cabin = "first"/],
    ['{"bookings":[{"flights":["AQ123-20270314"],"cabin":"economy","passengers":[]}]}', /spec\.bookings\[0\]\.passengers is empty/],
    ['{"bookings":[{"flights":["AQ123-20270314"],"cabin":"economy","passengers":["A"],"email":3}]}', /spec\.bookings\[0\]\.email = 3/],
    ['{"cancelled":["abc"]}', /spec\.cancelled\[0\] = "abc"/],
    ['{"exact":"yes"}', /spec\.exact = "yes" must be a boolean/],
  ] as const) {
    assert.throws(() => parseTravelSpec(bad), (e: unknown) => e instanceof TaskError && e.code === 'TASK_BAD_SPEC' && re.test(e.message), bad);
  }
});

void test('checkTravel: bookings, cancellations and exactness, with details naming the difference', () => {
  const data = buildTravelData(1);
  const presets = presetBookings(data);
  const [f1, f2] = flightsOn(data, 'LIS', 'OSL', '2027-04-09');
  const back = flightsOn(data, 'OSL', 'LIS', '2027-04-16')[0];
  assert.ok(f1 && f2 && back);
  const session: TravelBooking[] = presets.map((b) => ({ ...b }));
  const want = { flights: [f1.id, back.id], cabin: 'premium' as const, passengers: ['Ana Silva'], email: 'ana@example.com' };
  const ref0 = presets[0]?.ref ?? '';
  const spec = { bookings: [want], cancelled: [ref0], exact: true };
  assert.equal(spec.bookings.length, parseTravelSpec(travelSpecJson(spec)).bookings.length);

  let r = checkTravel(session, spec);
  assert.equal(r.ok, false);
  assert.match(r.detail, /booking 1: no confirmed booking of .* \(no new bookings\)/);
  assert.match(r.detail, new RegExp(`booking ${ref0} is confirmed, want cancelled`));

  // Wrong cabin and a different spelling of the name's case: the cabin is named, the name is fine.
  session.push(makeBooking(session, [f1, back], 'business', ['ana  silva'], 'ANA@example.com'));
  (session[0] as TravelBooking).status = 'cancelled';
  r = checkTravel(session, spec);
  assert.equal(r.ok, false);
  assert.match(r.detail, /cabin business, want premium/);
  assert.doesNotMatch(r.detail, /passengers|email/);

  // The right booking as well: still not exact (two new bookings) until the wrong one is cancelled.
  session.push(makeBooking(session, [f1, back], 'premium', ['Ana Silva'], 'ana@example.com'));
  r = checkTravel(session, spec);
  assert.match(r.detail, /2 new confirmed bookings, want 1/);
  assert.equal(checkTravel(session, { ...spec, exact: false }).ok, true);
  (session[wrongCabinIndex(session)] as TravelBooking).status = 'cancelled';
  r = checkTravel(session, spec);
  assert.equal(r.ok, true, r.detail);
  assert.match(r.detail, new RegExp(`cancelled ${ref0}`));

  // Cancelling another of the account's trips breaks exactness; a wrong passenger is named.
  (session[1] as TravelBooking).status = 'cancelled';
  assert.match(checkTravel(session, spec).detail, new RegExp(`booking ${presets[1]?.ref ?? ''} was cancelled, want it kept`));
  const other = checkTravel(session, { bookings: [{ ...want, passengers: ['Bo Li'] }], cancelled: [], exact: false });
  assert.match(other.detail, /passengers \["Ana Silva"\], want \["Bo Li"\]/);
  assert.match(checkTravel(session, { bookings: [], cancelled: ['ZZZ999'], exact: false }).detail, /no booking ZZZ999/);
  assert.match(checkTravel(session, { bookings: [{ ...want, flights: [f2.id] }], cancelled: [], exact: false }).detail, /no confirmed booking of .* on 2027-04-09 \(new: /);
  // References are unique and derived from the booking.
  assert.equal(new Set(session.map((b) => b.ref)).size, session.length);
  assert.ok(findFlight(data, f1.id));
});

/** Index of the booking made in the session with the wrong cabin. */
function wrongCabinIndex(session: readonly TravelBooking[]): number {
  return session.findIndex((b) => !b.preset && b.cabin === 'business');
}
