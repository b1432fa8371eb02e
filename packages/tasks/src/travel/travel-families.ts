// Task families of the travel suite: their routes and difficulties, and the seeded pools of tasks
// behind them (routes, days, flights, travellers), drawn so every step of a route is needed: an
// answer is never already first on the page without the sort or filter the route uses.
import { fnv1a, mulberry32, type Rng } from '@owrl/core';
import type { TravelBooking } from './travel-booking.js';
import { addDays, TRAVEL_FIRST_DATE, TRAVEL_LAST_DATE, travelDates } from './travel-dates.js';
import { cityByCode, findFlight, flightsOn, TRAVEL_CITIES, type Cabin, type TravelCity, type TravelData, type TravelFlight } from './travel-data.js';
import { sortFlights, type TravelSort } from './travel-search.js';

/** Distinct tasks per family (fewer for `cancel_booking`: one per existing trip). */
export const TRAVEL_POOL_SIZE = 40;

export type TravelFamilyName =
  | 'fare'
  | 'class_fare'
  | 'sorted_first'
  | 'cheapest_nonstop'
  | 'cancel_booking'
  | 'book_flight'
  | 'search_cheapest'
  | 'book_cheapest_nonstop'
  | 'round_trip_rebook';

export interface TravelFamily {
  name: TravelFamilyName;
  /** Policy steps of the intended shortest solution (see `route`). */
  difficulty: number;
  /** Page the episode starts on: a results listing or the search page. */
  start: 'results' | 'home';
  check: 'answer' | 'site_state' | 'page_expression';
  /** The intended solution, one entry per step. */
  route: readonly string[];
}

const SEARCH_STEPS = ['write origin into "From" + Enter (picks the suggestion)', 'write destination into "To" + Enter (picks the suggestion)'];
const BOOK_STEPS = ['write name into "Passenger name"', 'write email into "Email"', 'click "Confirm booking"', 'done'];

// Listings open sorted by departure time, so the sort and filter steps below are needed: the
// generator only keeps tasks whose answer is not already first without them. Reading every fare
// and comparing could replace a sort click; the routes sort, as people do.
export const TRAVEL_FAMILIES: readonly TravelFamily[] = [
  { name: 'fare', difficulty: 1, start: 'results', check: 'answer', route: ["done(fare on the flight's card)"] },
  { name: 'class_fare', difficulty: 2, start: 'results', check: 'answer', route: ['click flight number', 'done(fare of the cabin)'] },
  { name: 'sorted_first', difficulty: 2, start: 'results', check: 'answer', route: ['click the sort', 'done(first flight number)'] },
  {
    name: 'cheapest_nonstop', difficulty: 3, start: 'results', check: 'answer',
    route: ['click "Nonstop"', 'click "Lowest price"', 'done(first flight number)'],
  },
  {
    name: 'cancel_booking', difficulty: 4, start: 'home', check: 'site_state',
    route: ['click "My trips"', 'click booking reference', 'click "Cancel booking"', 'done'],
  },
  {
    name: 'book_flight', difficulty: 6, start: 'results', check: 'page_expression',
    route: ['click flight number', 'click "Book <cabin>"', ...BOOK_STEPS],
  },
  {
    name: 'search_cheapest', difficulty: 7, start: 'home', check: 'answer',
    route: [...SEARCH_STEPS, 'click "Choose departure date"', 'click the day', 'click "Search flights"', 'click "Lowest price"', 'done(first fare)'],
  },
  {
    name: 'book_cheapest_nonstop', difficulty: 14, start: 'home', check: 'site_state',
    route: [
      ...SEARCH_STEPS, 'click "Choose departure date"', 'click "Next month"', 'click the day', 'click the cabin', 'click "Search flights"',
      'click "Nonstop"', 'click "Lowest price"', 'click "Select <first flight>"', ...BOOK_STEPS,
    ],
  },
  {
    name: 'round_trip_rebook', difficulty: 22, start: 'home', check: 'site_state',
    route: [
      'click "My trips"', 'click booking reference', 'click "Cancel booking"', 'click "Flights"', 'click "Round trip"', ...SEARCH_STEPS,
      'click "Choose departure date"', 'click "Next month"', 'click the day', 'click "Choose return date"', 'click the return day',
      'click the cabin', 'click "Search flights"', 'click "Nonstop"', 'click "Lowest price"', 'click "Select <first outbound>"',
      'click "Select <first return>"', ...BOOK_STEPS,
    ],
  },
];

/** What one task is about; every field a family does not use is absent. */
export interface TravelParams {
  from: TravelCity;
  to: TravelCity;
  date: string;
  cabin: Cabin;
  flight?: TravelFlight;
  sort?: TravelSort;
  passenger?: string;
  email?: string;
  cancel?: TravelBooking;
  /** City the cancelled trip goes to. */
  cancelTo?: string;
  ret?: string;
  back?: TravelFlight;
}

const FIRST_NAMES = ['Ana', 'Ben', 'Chloe', 'David', 'Elena', 'Farid', 'Greta', 'Hugo', 'Ines', 'Jonas', 'Kira', 'Luca', 'Maya', 'Nils', 'Olga', 'Pablo'];
const LAST_NAMES = ['Silva', 'Becker', 'Dubois', 'Novak', 'Rossi', 'Jensen', 'Larsen', 'Moreau', 'Costa', 'Weber', 'Santos', 'Keller'];
const MAX_DRAWS = 50_000;

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;

function traveller(rng: Rng): { passenger: string; email: string } {
  const first = pick(rng, FIRST_NAMES);
  const last = pick(rng, LAST_NAMES);
  return { passenger: `${first} ${last}`, email: `${first}.${last}@example.com`.toLowerCase() };
}

function route(rng: Rng): [TravelCity, TravelCity] {
  const from = pick(rng, TRAVEL_CITIES);
  let to = pick(rng, TRAVEL_CITIES);
  while (to === from) to = pick(rng, TRAVEL_CITIES);
  return [from, to];
}

/** Months between the window's first month and `iso`'s month ("Next month" clicks needed). */
export function monthsAfterFirst(iso: string): number {
  const [y0, m0] = TRAVEL_FIRST_DATE.split('-').map(Number) as [number, number];
  const [y, m] = iso.split('-').map(Number) as [number, number];
  return (y - y0) * 12 + (m - m0);
}

const nonstop = (f: TravelFlight): boolean => f.service.via.length === 0;

function tripDestination(data: TravelData, b: TravelBooking): string {
  const f = findFlight(data, b.flights[0] ?? '');
  return cityByCode(f?.service.to ?? '')?.name ?? '';
}

/**
 * The cheapest nonstop flight of a listing (by departure) when both steps of the route are
 * needed to see it first: it is not the cheapest flight overall (the filter matters) and not the
 * earliest nonstop (the sort matters).
 */
function cheapestNonstopNeedingBoth(list: readonly TravelFlight[], cabin: Cabin): TravelFlight | undefined {
  const ns = list.filter(nonstop);
  const cheapest = sortFlights(ns, 'price', cabin)[0];
  if (cheapest === undefined || cheapest === ns[0] || cheapest === sortFlights(list, 'price', cabin)[0]) return undefined;
  return cheapest;
}

/** One candidate task of a family, or undefined when the draw does not fit it. */
function draw(family: TravelFamilyName, rng: Rng, data: TravelData, presets: readonly TravelBooking[]): TravelParams | undefined {
  const dates = travelDates();
  const [from, to] = route(rng);
  const march = dates.filter((d) => monthsAfterFirst(d) === 0);
  const april = dates.filter((d) => monthsAfterFirst(d) === 1);
  switch (family) {
    case 'fare':
    case 'class_fare': {
      const date = pick(rng, dates);
      const list = flightsOn(data, from.code, to.code, date);
      if (list.length === 0) return undefined;
      const cabin: Cabin = family === 'fare' ? 'economy' : rng() < 0.5 ? 'premium' : 'business';
      return { from, to, date, cabin, flight: pick(rng, list) };
    }
    case 'sorted_first': {
      const date = pick(rng, dates);
      const sort = pick(rng, ['price', 'duration', 'best'] as const);
      const list = flightsOn(data, from.code, to.code, date);
      const sorted = sortFlights(list, sort, 'economy');
      const [first, second] = sorted;
      if (first === undefined || second === undefined || first === list[0]) return undefined;
      // A tie on the sort key would make "the first result" a matter of tie-breaking.
      if (sort === 'duration' && first.service.durationMin === second.service.durationMin) return undefined;
      return { from, to, date, cabin: 'economy', sort, flight: first };
    }
    case 'cheapest_nonstop': {
      const date = pick(rng, dates);
      const flight = cheapestNonstopNeedingBoth(flightsOn(data, from.code, to.code, date), 'economy');
      return flight === undefined ? undefined : { from, to, date, cabin: 'economy', flight };
    }
    case 'book_flight': {
      const date = pick(rng, dates);
      const list = flightsOn(data, from.code, to.code, date);
      if (list.length === 0) return undefined;
      return { from, to, date, cabin: pick(rng, ['economy', 'premium', 'business'] as const), flight: pick(rng, list), ...traveller(rng) };
    }
    case 'search_cheapest': {
      const date = pick(rng, march);
      const list = flightsOn(data, from.code, to.code, date);
      const flight = sortFlights(list, 'price', 'economy')[0];
      if (flight === undefined || flight === list[0]) return undefined;
      return { from, to, date, cabin: 'economy', flight };
    }
    case 'book_cheapest_nonstop': {
      const date = pick(rng, april);
      const cabin = pick(rng, ['premium', 'business'] as const);
      const flight = cheapestNonstopNeedingBoth(flightsOn(data, from.code, to.code, date), cabin);
      return flight === undefined ? undefined : { from, to, date, cabin, flight, ...traveller(rng) };
    }
    case 'round_trip_rebook': {
      const date = pick(rng, april.filter((d) => d <= addDays(TRAVEL_LAST_DATE, -3)));
      const ret = addDays(date, 2 + Math.floor(rng() * 6));
      const cabin = pick(rng, ['premium', 'business'] as const);
      const flight = cheapestNonstopNeedingBoth(flightsOn(data, from.code, to.code, date), cabin);
      const back = sortFlights(flightsOn(data, to.code, from.code, ret).filter(nonstop), 'price', cabin)[0];
      if (flight === undefined || back === undefined || ret > TRAVEL_LAST_DATE) return undefined;
      const cancel = pick(rng, presets);
      return { from, to, date, cabin, flight, ret, back, cancel, cancelTo: tripDestination(data, cancel), ...traveller(rng) };
    }
    case 'cancel_booking':
      return undefined;
  }
}

/** The distinct tasks of a family for a data seed, in index order. */
export function familyPool(family: TravelFamilyName, data: TravelData, presets: readonly TravelBooking[]): TravelParams[] {
  if (family === 'cancel_booking') {
    return presets.flatMap((b): TravelParams[] => {
      const f = findFlight(data, b.flights[0] ?? '');
      const from = cityByCode(f?.service.from ?? '');
      const to = cityByCode(f?.service.to ?? '');
      return f && from && to ? [{ from, to, date: f.date, cabin: b.cabin, flight: f, cancel: b, cancelTo: to.name }] : [];
    });
  }
  const rng = mulberry32((fnv1a(`travel-tasks|${family}`) ^ data.seed) >>> 0);
  const out: TravelParams[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < MAX_DRAWS && out.length < TRAVEL_POOL_SIZE; i++) {
    const p = draw(family, rng, data, presets);
    if (p === undefined) continue;
    const key = `${p.from.code}|${p.to.code}|${p.date}|${p.flight?.id ?? ''}|${p.sort ?? ''}|${p.cabin}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}
