// The travel site's data: the booking window, a deterministic timetable, fares per day, the search
// rules (airport resolution, sorting, filters) and the existing trips of the account.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildTravelData,
  CABINS,
  filterFlights,
  findFlight,
  flightsOn,
  calendarDayName,
  formatTravelDay,
  isTravelDate,
  presetBookings,
  resolveCity,
  sortFlights,
  TRAVEL_ACCOUNT,
  TRAVEL_CITIES,
  TRAVEL_LAST_DATE,
} from '../src/travel/index.js';
import {
  travelDates,
} from '../src/travel/travel-dates.js';
import {
  PRESET_TRIPS,
} from '../src/travel/travel-booking.js';

void test('the booking window is 60 fixed days and dates format as the calendar names them', () => {
  const dates = travelDates();
  assert.equal(dates.length, 60);
  assert.equal(dates[0], '2027-03-01');
  assert.equal(dates.at(-1), TRAVEL_LAST_DATE);
  assert.equal(TRAVEL_LAST_DATE, '2027-04-29');
  assert.equal(new Set(dates).size, 60);
  assert.ok(isTravelDate('2027-03-31'));
  for (const bad of ['2027-02-28', '2027-04-30', '2027-02-30', '2027-3-14', 'soon']) assert.equal(isTravelDate(bad), false, bad);
  assert.equal(calendarDayName('2027-04-09'), '9 April 2027');
  assert.equal(formatTravelDay('2027-03-14'), 'Sun 14 Mar 2027');
});

void test('same seed → same timetable; different seed → different; every route has a daily nonstop', () => {
  const a = buildTravelData(1);
  const b = buildTravelData(1);
  const c = buildTravelData(2);
  assert.deepEqual(a.services, b.services);
  assert.notDeepEqual(a.services, c.services);
  assert.equal(a.byRoute.size, TRAVEL_CITIES.length * (TRAVEL_CITIES.length - 1));
  assert.equal(new Set(a.services.map((s) => s.number)).size, a.services.length, 'flight numbers are unique');
  for (const [route, list] of a.byRoute) {
    assert.ok(list.length >= 4 && list.length <= 7, route);
    assert.ok(list.some((s) => s.via.length === 0 && s.days.length === 7), `${route} has a daily nonstop`);
    assert.equal(new Set(list.map((s) => s.depMin)).size, list.length, `${route}: departure times differ`);
    for (const s of list) {
      assert.match(s.number, /^[A-Z]{2}\d{3}$/);
      assert.ok(!s.via.includes(s.from) && !s.via.includes(s.to), `${s.number} does not connect at its own ends`);
      assert.ok(s.durationMin > 30 && s.durationMin % 5 === 0, `${s.number} duration ${s.durationMin}`);
    }
  }
});

void test('flights of a day: fares are distinct per cabin, rise with the cabin, and ids find them again', () => {
  const data = buildTravelData(1);
  let listings = 0;
  for (const date of ['2027-03-01', '2027-03-14', '2027-04-29']) {
    for (const [route] of data.byRoute) {
      const [from, to] = route.split('-') as [string, string];
      const list = flightsOn(data, from, to, date);
      assert.ok(list.length > 0, `${route} ${date}`);
      listings++;
      for (const cabin of CABINS) assert.equal(new Set(list.map((f) => f.fares[cabin])).size, list.length, `${route} ${date} ${cabin} fares distinct`);
      for (const f of list) {
        assert.ok(f.fares.economy < f.fares.premium && f.fares.premium < f.fares.business, f.id);
        assert.deepEqual(findFlight(data, f.id), f);
      }
    }
  }
  assert.equal(listings, 3 * 132);
  assert.deepEqual(flightsOn(data, 'LIS', 'OSL', '2027-05-01'), []);
  assert.equal(findFlight(data, 'ZZ999-20270314'), undefined);
  assert.equal(findFlight(data, 'garbage'), undefined);
  // The same flight has a different fare on another day (demand varies by day).
  const s = data.byRoute.get('LIS-OSL')?.[0];
  assert.ok(s);
  const fares = travelDates().map((d) => findFlight(data, `${s.number}-${d.replaceAll('-', '')}`)?.fares.economy);
  assert.ok(new Set(fares).size > 10);
});

void test('typed airports resolve by name, code or suggestion text, in any case', () => {
  assert.equal(resolveCity('Lisbon')?.code, 'LIS');
  assert.equal(resolveCity('  lisbon ')?.code, 'LIS');
  assert.equal(resolveCity('osl')?.name, 'Oslo');
  assert.equal(resolveCity('Oslo (OSL)')?.code, 'OSL');
  for (const bad of ['', 'Lisb', 'Porto', 'Oslo (LIS)']) assert.equal(resolveCity(bad), undefined, bad);
});

void test('sorting and filtering follow the listed rules', () => {
  const data = buildTravelData(1);
  const list = flightsOn(data, 'LIS', 'OSL', '2027-03-14');
  const byPrice = sortFlights(list, 'price', 'business').map((f) => f.fares.business);
  assert.deepEqual(byPrice, [...byPrice].sort((a, b) => a - b));
  const byDep = sortFlights(list, 'departure', 'economy');
  assert.deepEqual(byDep, list, 'listings come by departure time');
  const byDur = sortFlights(list, 'duration', 'economy').map((f) => f.service.durationMin);
  assert.deepEqual(byDur, [...byDur].sort((a, b) => a - b));
  const nonstop = filterFlights(list, { stops: [0], airlines: [], maxPrice: undefined }, 'economy');
  assert.ok(nonstop.length > 0 && nonstop.every((f) => f.service.via.length === 0));
  const cheapest = sortFlights(list, 'price', 'economy')[0];
  assert.ok(cheapest);
  assert.deepEqual(filterFlights(list, { stops: [], airlines: [], maxPrice: cheapest.fares.economy }, 'economy'), [cheapest]);
  const airline = cheapest.service.airline;
  assert.ok(filterFlights(list, { stops: [], airlines: [airline], maxPrice: undefined }, 'economy').every((f) => f.service.airline === airline));
});

void test('the account holds seeded trips from its home airport to distinct cities', () => {
  const data = buildTravelData(4);
  const trips = presetBookings(data);
  assert.deepEqual(trips, presetBookings(buildTravelData(4)));
  assert.equal(trips.length, PRESET_TRIPS);
  assert.equal(new Set(trips.map((t) => t.ref)).size, PRESET_TRIPS);
  const destinations = new Set<string>();
  for (const t of trips) {
    assert.match(t.ref, /^[A-Z]{3}\d{3}$/);
    assert.equal(t.preset, true);
    assert.equal(t.status, 'confirmed');
    assert.deepEqual(t.passengers, [TRAVEL_ACCOUNT.name]);
    const f = findFlight(data, t.flights[0] ?? '');
    assert.ok(f, `${t.ref} is a real flight`);
    assert.equal(f.service.from, TRAVEL_ACCOUNT.home);
    assert.equal(t.totalUsd, f.fares[t.cabin]);
    destinations.add(f.service.to);
  }
  assert.equal(destinations.size, PRESET_TRIPS);
});
