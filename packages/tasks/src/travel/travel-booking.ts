// Bookings of the travel site: the signed-in account and its existing trips (seeded), booking
// references, and the site-state spec its verifier checks (`/__owrl/verify/travel`): which new
// bookings the session must hold and which bookings it must have cancelled. Pure logic.
import { fnv1a, mulberry32 } from '@owrl/core';
import { TaskError, TaskErrorCode } from '../errors.js';
import type { VerifyResult } from '../verify-result.js';
import { travelDates } from './travel-dates.js';
import { CABINS, flightsOn, isCabin, TRAVEL_CITIES, type Cabin, type TravelData, type TravelFlight } from './travel-data.js';

export interface TravelBooking {
  /** Booking reference: 3 letters and 3 digits, e.g. `KQX482`. */
  ref: string;
  /** Flight ids in travel order (outbound first). */
  flights: readonly string[];
  cabin: Cabin;
  passengers: readonly string[];
  email: string;
  status: 'confirmed' | 'cancelled';
  /** Fares of all legs for all passengers, dollars. */
  totalUsd: number;
  /** One of the account's trips that existed before the session. */
  preset: boolean;
}

/** Whose account the site is signed in to. */
export const TRAVEL_ACCOUNT = { name: 'Alex Morgan', email: 'alex.morgan@example.com', home: 'LHR' } as const;

/** Number of trips the account holds when a session starts. */
export const PRESET_TRIPS = 4;

const REF_LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';

/** A reference derived from `key`: 3 letters (no I or O) and 3 digits. */
function bookingRef(key: string): string {
  let h = fnv1a(key);
  let out = '';
  for (let i = 0; i < 3; i++) {
    out += REF_LETTERS[h % REF_LETTERS.length] ?? 'A';
    h = Math.floor(h / REF_LETTERS.length);
  }
  return out + String(h % 1000).padStart(3, '0');
}

/** A reference not used by `taken`, derived from `key`. */
function freshRef(key: string, taken: readonly TravelBooking[]): string {
  for (let n = 0; ; n++) {
    const ref = bookingRef(n === 0 ? key : `${key}#${n}`);
    if (!taken.some((b) => b.ref === ref)) return ref;
  }
}

/**
 * The account's trips at the start of every session: flights from the account's home airport to
 * distinct cities, seeded by the data seed.
 */
export function presetBookings(data: TravelData): TravelBooking[] {
  const rng = mulberry32((fnv1a('travel-preset-trips') ^ data.seed) >>> 0);
  const dates = travelDates();
  const out: TravelBooking[] = [];
  const destinations = new Set<string>();
  while (out.length < PRESET_TRIPS) {
    const to = TRAVEL_CITIES[Math.floor(rng() * TRAVEL_CITIES.length)];
    const date = dates[Math.floor(rng() * dates.length)] ?? '';
    const cabin = CABINS[Math.floor(rng() * CABINS.length)] ?? 'economy';
    if (to === undefined || to.code === TRAVEL_ACCOUNT.home || destinations.has(to.code)) continue;
    const list = flightsOn(data, TRAVEL_ACCOUNT.home, to.code, date);
    const flight = list[Math.floor(rng() * list.length)];
    if (flight === undefined) continue;
    destinations.add(to.code);
    out.push({
      ref: freshRef(`preset|${data.seed}|${out.length}`, out),
      flights: [flight.id],
      cabin,
      passengers: [TRAVEL_ACCOUNT.name],
      email: TRAVEL_ACCOUNT.email,
      status: 'confirmed',
      totalUsd: flight.fares[cabin],
      preset: true,
    });
  }
  return out;
}

/** A new confirmed booking whose reference is unique among `existing` (deterministic). */
export function makeBooking(
  existing: readonly TravelBooking[],
  legs: readonly TravelFlight[],
  cabin: Cabin,
  passengers: readonly string[],
  email: string,
): TravelBooking {
  const flights = legs.map((f) => f.id);
  const key = `${existing.length}|${flights.join('+')}|${cabin}|${passengers.join('|')}|${email}`;
  return {
    ref: freshRef(key, existing),
    flights,
    cabin,
    passengers: [...passengers],
    email,
    status: 'confirmed',
    totalUsd: legs.reduce((s, f) => s + f.fares[cabin], 0) * passengers.length,
    preset: false,
  };
}

/** A booking the session must hold (new, confirmed). */
export interface ExpectedBooking {
  /** Flight ids in travel order. */
  flights: string[];
  cabin: Cabin;
  passengers: string[];
  /** Contact email; any when absent. */
  email?: string | undefined;
}

/**
 * Site-state spec of the travel tasks: the new bookings the session must hold, the references it
 * must have cancelled, and with `exact` no other new confirmed booking and no other cancelled trip.
 */
export interface TravelSpec {
  bookings: ExpectedBooking[];
  cancelled: string[];
  exact: boolean;
}

export function travelSpecJson(spec: TravelSpec): string {
  return JSON.stringify({ bookings: spec.bookings, cancelled: spec.cancelled, exact: spec.exact });
}

function badSpec(message: string): TaskError {
  return new TaskError(TaskErrorCode.BadSpec, message, { field: 'spec_json' });
}

function stringList(v: unknown, where: string, pattern?: RegExp): string[] {
  if (!Array.isArray(v)) throw badSpec(`${where} must be an array of strings`);
  return v.map((x, i) => {
    if (typeof x !== 'string' || x.trim() === '' || (pattern !== undefined && !pattern.test(x))) {
      throw badSpec(`${where}[${i}] = ${JSON.stringify(x)} must be ${pattern === undefined ? 'a non-empty string' : `a string matching ${String(pattern)}`}`);
    }
    return x;
  });
}

const FLIGHT_ID = /^[A-Z]{2}\d{3}-\d{8}$/;

/**
 * Parses the `spec_json` of a travel task.
 * @throws TaskError TASK_BAD_SPEC naming the field that is wrong.
 */
export function parseTravelSpec(json: string): TravelSpec {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (cause) {
    throw new TaskError(TaskErrorCode.BadSpec, `spec ${JSON.stringify(json.slice(0, 200))} is not JSON`, { cause, field: 'spec_json' });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw badSpec('spec must be a JSON object like {"bookings":[...],"cancelled":[...],"exact":true}');
  }
  const obj = raw as Record<string, unknown>;
  const list = obj['bookings'] ?? [];
  if (!Array.isArray(list)) throw badSpec('spec.bookings must be an array of bookings');
  const bookings = list.map((b: unknown, i): ExpectedBooking => {
    const at = `spec.bookings[${i}]`;
    if (typeof b !== 'object' || b === null || Array.isArray(b)) throw badSpec(`${at} must be an object with flights, cabin and passengers`);
    const o = b as Record<string, unknown>;
    const flights = stringList(o['flights'], `${at}.flights`, FLIGHT_ID);
    if (flights.length === 0) throw badSpec(`${at}.flights is empty`);
    const cabin = o['cabin'];
    if (typeof cabin !== 'string' || !isCabin(cabin)) throw badSpec(`${at}.cabin = ${JSON.stringify(cabin)} must be one of ${CABINS.join(', ')}`);
    const passengers = stringList(o['passengers'], `${at}.passengers`);
    if (passengers.length === 0) throw badSpec(`${at}.passengers is empty`);
    const email = o['email'];
    if (email !== undefined && (typeof email !== 'string' || email.trim() === '')) throw badSpec(`${at}.email = ${JSON.stringify(email)} must be a non-empty string`);
    return { flights, cabin, passengers, email };
  });
  const cancelled = stringList(obj['cancelled'] ?? [], 'spec.cancelled', /^[A-Z]{3}\d{3}$/);
  const exact = obj['exact'] ?? false;
  if (typeof exact !== 'boolean') throw badSpec(`spec.exact = ${JSON.stringify(exact)} must be a boolean`);
  return { bookings, cancelled, exact };
}

const norm = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();

function describeFlights(ids: readonly string[]): string {
  return ids.map((id) => id.replace(/-(\d{4})(\d{2})(\d{2})$/, ' on $1-$2-$3')).join(' + ');
}

function differences(b: TravelBooking, want: ExpectedBooking): string[] {
  const out: string[] = [];
  if (b.cabin !== want.cabin) out.push(`cabin ${b.cabin}, want ${want.cabin}`);
  if (b.passengers.map(norm).join('|') !== want.passengers.map(norm).join('|')) {
    out.push(`passengers ${JSON.stringify(b.passengers)}, want ${JSON.stringify(want.passengers)}`);
  }
  if (want.email !== undefined && norm(b.email) !== norm(want.email)) out.push(`email ${JSON.stringify(b.email)}, want ${JSON.stringify(want.email)}`);
  return out;
}

/** Checks a session's bookings against a spec; the detail names every difference. */
export function checkTravel(bookings: readonly TravelBooking[], spec: TravelSpec): VerifyResult {
  const problems: string[] = [];
  const fresh = bookings.filter((b) => !b.preset && b.status === 'confirmed');
  const used = new Set<TravelBooking>();
  spec.bookings.forEach((want, i) => {
    const same = fresh.filter((b) => !used.has(b) && b.flights.join('+') === want.flights.join('+'));
    const hit = same.find((b) => differences(b, want).length === 0) ?? same[0];
    if (hit === undefined) {
      const have = fresh.map((b) => `${b.ref}: ${describeFlights(b.flights)}`).join('; ');
      problems.push(`booking ${i + 1}: no confirmed booking of ${describeFlights(want.flights)} (${have === '' ? 'no new bookings' : `new: ${have}`})`);
      return;
    }
    used.add(hit);
    const diff = differences(hit, want);
    if (diff.length > 0) problems.push(`booking ${i + 1} (${hit.ref}): ${diff.join(', ')}`);
  });
  for (const ref of spec.cancelled) {
    const b = bookings.find((x) => x.ref === ref);
    if (b === undefined) problems.push(`no booking ${ref}`);
    else if (b.status !== 'cancelled') problems.push(`booking ${ref} is confirmed, want cancelled`);
  }
  if (spec.exact) {
    if (fresh.length !== spec.bookings.length) problems.push(`${fresh.length} new confirmed bookings, want ${spec.bookings.length}`);
    for (const b of bookings) {
      if (b.preset && b.status === 'cancelled' && !spec.cancelled.includes(b.ref)) problems.push(`booking ${b.ref} was cancelled, want it kept`);
    }
  }
  if (problems.length > 0) return { ok: false, detail: `bookings differ: ${problems.join('; ')}` };
  const made = [...used].map((b) => `${b.ref} ${describeFlights(b.flights)}`);
  const parts = [made.length > 0 ? `booked ${made.join(', ')}` : 'no booking wanted', ...(spec.cancelled.length > 0 ? [`cancelled ${spec.cancelled.join(', ')}`] : [])];
  return { ok: true, detail: `bookings match: ${parts.join('; ')}` };
}
