// Seeded task generator of the bundled travel site (suite `travel`). Each family has a pool of
// tasks fully determined by the data seed (routes, days, flights, travellers), and a task id
// `travel/<family>/<nnnn>` is an index into that pool; the task seed only chooses which tasks are
// drawn and in what order. `difficulty` is the number of policy steps of the intended route.
import { DEFAULT_DATA_SEED, normalizeBaseUrl, selectFamilies, siteVerifyPath, type SuiteGenerateOptions } from '../suite-options.js';
import { fnv1a, mulberry32 } from '@owrl/core';
import { make, TaskSchema, VerifierSchema, type Task, type Verifier } from '@owrl/proto';
import { TaskError, TaskErrorCode } from '../errors.js';
import { shuffled } from '../shuffle.js';
import { presetBookings, travelSpecJson, type TravelSpec } from './travel-booking.js';
import { calendarDayName } from './travel-dates.js';
import { buildTravelData, CABIN_LABELS, formatFare, type Cabin, type TravelData } from './travel-data.js';
import { familyPool, monthsAfterFirst, TRAVEL_FAMILIES, type TravelFamily, type TravelFamilyName, type TravelParams } from './travel-families.js';
import { TRAVEL_SORT_LABELS } from './travel-search.js';

export const TRAVEL_SUITE = 'travel';
export const TRAVEL_SITE = 'travel';
/** Path of the travel site's site-state verifier, relative to the sites origin. */
export const TRAVEL_VERIFY_PATH = siteVerifyPath(TRAVEL_SITE);

function instructionFor(family: TravelFamilyName, p: TravelParams): string {
  const num = p.flight?.service.number ?? '';
  const cabin = CABIN_LABELS[p.cabin];
  const who = `for "${p.passenger ?? ''}" (email "${p.email ?? ''}")`;
  switch (family) {
    case 'fare':
      return `What is the fare of flight "${num}"?`;
    case 'class_fare':
      return `What does a "${cabin}" ticket on flight "${num}" cost?`;
    case 'sorted_first':
      return `Sort the flights by "${TRAVEL_SORT_LABELS[p.sort ?? 'price']}" and report the flight number of the first result.`;
    case 'cheapest_nonstop':
      return `Show only "Nonstop" flights, sort them by "Lowest price" and report the flight number of the cheapest one.`;
    case 'cancel_booking':
      return `Cancel booking "${p.cancel?.ref ?? ''}" (your trip to ${p.cancelTo ?? ''}) in "My trips".`;
    case 'book_flight':
      return `Book flight "${num}" in "${cabin}" ${who}, and stay on the booking confirmation.`;
    case 'search_cheapest':
      return `Search flights from "${p.from.name}" to "${p.to.name}" on "${calendarDayName(p.date)}" and report the lowest fare.`;
    case 'book_cheapest_nonstop':
      return `Book the cheapest "Nonstop" flight from "${p.from.name}" to "${p.to.name}" on "${calendarDayName(p.date)}" in "${cabin}" ${who}.`;
    case 'round_trip_rebook':
      return (
        `Cancel booking "${p.cancel?.ref ?? ''}" (your trip to ${p.cancelTo ?? ''}) in "My trips". Then book a "Round trip" from "${p.from.name}" ` +
        `to "${p.to.name}" in "${cabin}" ${who}: the cheapest "Nonstop" flight out on "${calendarDayName(p.date)}" and the cheapest ` +
        `"Nonstop" flight back on "${calendarDayName(p.ret ?? p.date)}".`
      );
  }
}

function answer(accepted: string[]): Verifier {
  return make(VerifierSchema, { kind: { case: 'answer', value: { accepted, normalize: true, contains: false } } });
}

function fareAnswer(dollars: number): Verifier {
  return answer([formatFare(dollars), String(dollars)]);
}

/** JS run in the final page: it shows a confirmed booking of exactly this flight, cabin and traveller, reference included. */
function travelConfirmationExpression(flightId: string, cabin: Cabin, passenger: string, email: string): string {
  const n = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();
  return (
    `(() => { const el = document.querySelector('[data-booking-ref]'); if (!el) return false; const d = el.dataset; ` +
    `const n = (s) => (s || '').replace(/\\s+/g, ' ').trim().toLowerCase(); ` +
    `return d.status === 'confirmed' && d.flights === ${JSON.stringify(flightId)} && d.cabin === ${JSON.stringify(cabin)} ` +
    `&& n(d.passengers) === ${JSON.stringify(n(passenger))} && n(d.email) === ${JSON.stringify(n(email))} ` +
    `&& /^[A-Z]{3}[0-9]{3}$/.test(d.bookingRef || '') && document.body.innerText.includes('Booking reference: ' + d.bookingRef); })()`
  );
}

function verifierFor(family: TravelFamily, p: TravelParams, base: string): Verifier {
  const f = p.flight;
  const siteState = (spec: TravelSpec): Verifier =>
    make(VerifierSchema, { kind: { case: 'siteState', value: { endpoint: `${base}${TRAVEL_VERIFY_PATH}`, specJson: travelSpecJson(spec) } } });
  const booking = (flights: string[]) => ({ flights, cabin: p.cabin, passengers: [p.passenger ?? ''], email: p.email });
  switch (family.name) {
    case 'fare':
    case 'class_fare':
      return fareAnswer(f?.fares[p.cabin] ?? 0);
    case 'search_cheapest':
      return fareAnswer(f?.fares.economy ?? 0);
    case 'sorted_first':
    case 'cheapest_nonstop':
      return answer([f?.service.number ?? '']);
    case 'cancel_booking':
      return siteState({ bookings: [], cancelled: [p.cancel?.ref ?? ''], exact: true });
    case 'book_flight':
      return make(VerifierSchema, {
        kind: { case: 'pageExpression', value: { expression: travelConfirmationExpression(f?.id ?? '', p.cabin, p.passenger ?? '', p.email ?? '') } },
      });
    case 'book_cheapest_nonstop':
      return siteState({ bookings: [booking([f?.id ?? ''])], cancelled: [], exact: true });
    case 'round_trip_rebook':
      return siteState({ bookings: [booking([f?.id ?? '', p.back?.id ?? ''])], cancelled: [p.cancel?.ref ?? ''], exact: true });
  }
}

function startUrl(family: TravelFamily, p: TravelParams, base: string): string {
  if (family.start === 'home') return `${base}/travel/`;
  const q = new URLSearchParams({ from: p.from.code, to: p.to.code, date: p.date });
  return `${base}/travel/flights?${q.toString()}`;
}

function metadataFor(family: TravelFamily, p: TravelParams, seed: number, dataSeed: number): Record<string, string> {
  const m: Record<string, string> = {
    family: family.name,
    from: p.from.code,
    from_name: p.from.name,
    to: p.to.code,
    to_name: p.to.name,
    date: p.date,
    date_label: calendarDayName(p.date),
    months_ahead: String(monthsAfterFirst(p.date)),
    cabin: p.cabin,
    cabin_label: CABIN_LABELS[p.cabin],
    seed: String(seed),
    data_seed: String(dataSeed),
  };
  if (p.flight) {
    m['flight'] = p.flight.id;
    m['flight_number'] = p.flight.service.number;
  }
  if (p.sort) m['sort_label'] = TRAVEL_SORT_LABELS[p.sort];
  if (p.passenger) m['passenger'] = p.passenger;
  if (p.email) m['email'] = p.email;
  if (p.cancel) m['ref'] = p.cancel.ref;
  if (p.ret) {
    m['ret'] = p.ret;
    m['ret_label'] = calendarDayName(p.ret);
  }
  if (p.back) {
    m['back_flight'] = p.back.id;
    m['back_number'] = p.back.service.number;
  }
  return m;
}

/** Options of the generator (dataSeed defaults to DEFAULT_DATA_SEED). */
export type GenerateTravelTasksOptions = SuiteGenerateOptions;

/** Families selected by the options, in {@link TRAVEL_FAMILIES} order. */
function selectTravelFamilies(opts: Pick<GenerateTravelTasksOptions, 'difficulties' | 'families'>): TravelFamily[] {
  return selectFamilies('travel', TRAVEL_FAMILIES, opts);
}

/** Timetable and family pools of a data seed; the few most recently used seeds are kept. */
interface SeedPools {
  data: TravelData;
  pools: Map<TravelFamilyName, TravelParams[]>;
}
const SEEDS_KEPT = 4;
const seedCache = new Map<number, SeedPools>();

function poolsFor(dataSeed: number): SeedPools {
  let sp = seedCache.get(dataSeed);
  if (sp === undefined) {
    sp = { data: buildTravelData(dataSeed), pools: new Map() };
    if (seedCache.size >= SEEDS_KEPT) seedCache.delete(seedCache.keys().next().value as number);
  } else seedCache.delete(dataSeed);
  seedCache.set(dataSeed, sp);
  return sp;
}

function poolOf(sp: SeedPools, family: TravelFamilyName): TravelParams[] {
  let pool = sp.pools.get(family);
  if (pool === undefined) {
    pool = familyPool(family, sp.data, presetBookings(sp.data));
    sp.pools.set(family, pool);
  }
  return pool;
}

/** Builds task `index` of a family. @throws TaskError TASK_BAD_ARGUMENT for an index out of range. */
function buildTravelTask(sp: SeedPools, family: TravelFamily, index: number, base: string, seed: number): Task {
  const p = poolOf(sp, family.name)[index];
  if (p === undefined) throw new TaskError(TaskErrorCode.BadArgument, `task index ${index} is out of range for family ${family.name}`, { field: 'index' });
  return make(TaskSchema, {
    id: `${TRAVEL_SUITE}/${family.name}/${String(index).padStart(4, '0')}`,
    suite: TRAVEL_SUITE,
    site: TRAVEL_SITE,
    startUrl: startUrl(family, p, base),
    instruction: instructionFor(family.name, p),
    difficulty: family.difficulty,
    family: family.name,
    verifier: verifierFor(family, p, base),
    metadata: metadataFor(family, p, seed, sp.data.seed),
  });
}

/**
 * Generates `n` travel tasks, round-robin over the selected families (each family's pool in a
 * seeded order, without repeats). Same options → identical tasks.
 * @throws TaskError TASK_BAD_ARGUMENT for a non-integer seed, a bad `n`, a bad `baseUrl`, an
 *   unknown family or difficulties matching no family.
 */
export function generateTravelTasks(opts: GenerateTravelTasksOptions): Task[] {
  const { seed, n } = opts;
  if (!Number.isInteger(seed)) throw new TaskError(TaskErrorCode.BadArgument, `seed ${String(seed)} must be an integer`, { field: 'seed' });
  if (!Number.isInteger(n) || n < 0) throw new TaskError(TaskErrorCode.BadArgument, `n ${String(n)} must be a non-negative integer`, { field: 'n' });
  const dataSeed = opts.dataSeed ?? DEFAULT_DATA_SEED;
  if (!Number.isInteger(dataSeed)) throw new TaskError(TaskErrorCode.BadArgument, `dataSeed ${String(dataSeed)} must be an integer`, { field: 'dataSeed' });
  const base = normalizeBaseUrl(opts.baseUrl);
  const families = selectTravelFamilies(opts);
  const sp = poolsFor(dataSeed);
  const available = families.reduce((s, f) => s + poolOf(sp, f.name).length, 0);
  if (n > available) {
    throw new TaskError(TaskErrorCode.BadArgument, `n ${n} exceeds the ${available} distinct tasks of families ${families.map((f) => f.name).join(', ')}`, {
      field: 'n',
    });
  }
  const rng = mulberry32((fnv1a('travel-draw') ^ seed) >>> 0);
  const queues = families.map((f) => ({ family: f, order: shuffled(rng, Array.from({ length: poolOf(sp, f.name).length }, (_, i) => i)) }));
  let cursor = Math.floor(rng() * queues.length);
  const tasks: Task[] = [];
  while (tasks.length < n) {
    const q = queues[cursor % queues.length];
    cursor++;
    const index = q?.order.shift();
    if (q === undefined || index === undefined) continue;
    tasks.push(buildTravelTask(sp, q.family, index, base, seed));
  }
  return tasks;
}
