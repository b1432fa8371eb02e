// Deterministic timetable of the bundled travel site: 12 cities, 5 airlines and scheduled services
// between every ordered pair of cities (times, duration, stops, weekdays, aircraft), with fares per
// cabin and day over the booking window, all derived from a data seed (mulberry32 / fnv1a).
import { fnv1a, mulberry32, type Rng } from '@owrl/core';
import { compactDate, isTravelDate, weekdayOf } from './travel-dates.js';

export interface TravelCity {
  /** IATA code of the airport, e.g. `LIS`. */
  code: string;
  /** City name, unique, no name a prefix of another, e.g. `Lisbon`. */
  name: string;
  country: string;
  airport: string;
  lat: number;
  lon: number;
}

export interface TravelAirline {
  /** Two-letter prefix of its flight numbers, e.g. `AQ`. */
  code: string;
  name: string;
}

export const TRAVEL_CITIES: readonly TravelCity[] = [
  { code: 'LIS', name: 'Lisbon', country: 'Portugal', airport: 'Humberto Delgado', lat: 38.77, lon: -9.13 },
  { code: 'MAD', name: 'Madrid', country: 'Spain', airport: 'Barajas', lat: 40.47, lon: -3.56 },
  { code: 'BCN', name: 'Barcelona', country: 'Spain', airport: 'El Prat', lat: 41.3, lon: 2.08 },
  { code: 'CDG', name: 'Paris', country: 'France', airport: 'Charles de Gaulle', lat: 49.01, lon: 2.55 },
  { code: 'LHR', name: 'London', country: 'United Kingdom', airport: 'Heathrow', lat: 51.47, lon: -0.45 },
  { code: 'AMS', name: 'Amsterdam', country: 'Netherlands', airport: 'Schiphol', lat: 52.31, lon: 4.76 },
  { code: 'BER', name: 'Berlin', country: 'Germany', airport: 'Brandenburg', lat: 52.36, lon: 13.5 },
  { code: 'FCO', name: 'Rome', country: 'Italy', airport: 'Fiumicino', lat: 41.8, lon: 12.25 },
  { code: 'VIE', name: 'Vienna', country: 'Austria', airport: 'Schwechat', lat: 48.11, lon: 16.57 },
  { code: 'CPH', name: 'Copenhagen', country: 'Denmark', airport: 'Kastrup', lat: 55.62, lon: 12.65 },
  { code: 'OSL', name: 'Oslo', country: 'Norway', airport: 'Gardermoen', lat: 60.19, lon: 11.1 },
  { code: 'ATH', name: 'Athens', country: 'Greece', airport: 'Eleftherios Venizelos', lat: 37.94, lon: 23.94 },
];

export const TRAVEL_AIRLINES: readonly TravelAirline[] = [
  { code: 'AQ', name: 'Aquila Air' },
  { code: 'BX', name: 'Borealis' },
  { code: 'CW', name: 'Cormorant Airways' },
  { code: 'MJ', name: 'Meridian Jet' },
  { code: 'TN', name: 'Tern Air' },
];

export type Cabin = 'economy' | 'premium' | 'business';
export const CABINS: readonly Cabin[] = ['economy', 'premium', 'business'];
export const CABIN_LABELS: Readonly<Record<Cabin, string>> = { economy: 'Economy', premium: 'Premium economy', business: 'Business' };

export function isCabin(v: string): v is Cabin {
  return (CABINS as readonly string[]).includes(v);
}

/** A scheduled service: the same flight number every operating day. */
export interface TravelService {
  /** e.g. `AQ412`, unique in the timetable. */
  number: string;
  airline: string;
  from: string;
  to: string;
  /** Departure, minutes after midnight (local time of the origin). */
  depMin: number;
  /** Gate to gate, minutes (layovers included). */
  durationMin: number;
  /** Codes of the connecting airports, in order; empty for a nonstop flight. */
  via: readonly string[];
  /** Weekdays it operates on (0 = Sunday), ascending. */
  days: readonly number[];
  aircraft: string;
  /** Economy fare before the day's demand factor, dollars. */
  baseFare: number;
  premiumFactor: number;
  businessFactor: number;
}

/** A service on one day, with that day's fares (whole dollars). */
export interface TravelFlight {
  /** `<number>-<YYYYMMDD>`, e.g. `AQ412-20270314`. */
  id: string;
  service: TravelService;
  date: string;
  fares: Readonly<Record<Cabin, number>>;
}

export interface TravelData {
  seed: number;
  services: readonly TravelService[];
  byNumber: ReadonlyMap<string, TravelService>;
  /** `FROM-TO` → services by departure time. */
  byRoute: ReadonlyMap<string, readonly TravelService[]>;
}

const AIRCRAFT = ['Airbus A220', 'Airbus A320neo', 'Boeing 737-800', 'Embraer E195', 'Airbus A321neo'];
const EARTH_KM = 6371;
const WEEK = [0, 1, 2, 3, 4, 5, 6];

function distanceKm(a: TravelCity, b: TravelCity): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_KM * Math.asin(Math.sqrt(h));
}

/** Block time of one leg, minutes (taxi and climb included), before rounding. */
function legMinutes(a: TravelCity, b: TravelCity): number {
  return 30 + (distanceKm(a, b) / 790) * 60;
}

const round5 = (m: number): number => Math.round(m / 5) * 5;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;

export function cityByCode(code: string): TravelCity | undefined {
  return TRAVEL_CITIES.find((c) => c.code === code);
}

export function airlineByCode(code: string): TravelAirline | undefined {
  return TRAVEL_AIRLINES.find((a) => a.code === code);
}

function buildRoute(rng: Rng, from: TravelCity, to: TravelCity, numbers: Set<string>, airlineFactor: ReadonlyMap<string, number>): TravelService[] {
  const count = 4 + Math.floor(rng() * 4);
  const slots = new Set<number>();
  const out: TravelService[] = [];
  for (let i = 0; i < count; i++) {
    const airline = pick(rng, TRAVEL_AIRLINES);
    let number: string;
    do number = `${airline.code}${100 + Math.floor(rng() * 900)}`;
    while (numbers.has(number));
    numbers.add(number);
    let depMin: number;
    do depMin = 330 + 5 * Math.floor(rng() * 205); // 05:30 … 22:30
    while (slots.has(depMin));
    slots.add(depMin);
    // Every route keeps one daily nonstop service; the others vary.
    const r = rng();
    const stops = i === 0 ? 0 : r < 0.45 ? 0 : r < 0.85 ? 1 : 2;
    const others = TRAVEL_CITIES.filter((c) => c !== from && c !== to);
    const via: TravelCity[] = [];
    while (via.length < stops) {
      const c = pick(rng, others);
      if (!via.includes(c)) via.push(c);
    }
    const path = [from, ...via, to];
    let minutes = 0;
    for (let k = 1; k < path.length; k++) minutes += legMinutes(path[k - 1] as TravelCity, path[k] as TravelCity);
    // Aircraft and routings differ: block times vary a little between services of a route.
    minutes *= 0.96 + rng() * 0.1;
    for (let k = 0; k < stops; k++) minutes += 45 + 5 * Math.floor(rng() * 27);
    // Most services fly daily; some skip one or two weekdays.
    const skip = i === 0 || rng() < 0.7 ? [] : [Math.floor(rng() * 7), Math.floor(rng() * 7)];
    const days = WEEK.filter((d) => !skip.includes(d));
    const km = distanceKm(from, to);
    const stopFactor = stops === 0 ? 1.15 : stops === 1 ? 0.9 : 0.78;
    out.push({
      number,
      airline: airline.code,
      from: from.code,
      to: to.code,
      depMin,
      durationMin: round5(minutes),
      via: via.map((c) => c.code),
      days,
      aircraft: km > 1800 ? pick(rng, AIRCRAFT.slice(1)) : pick(rng, AIRCRAFT),
      baseFare: (45 + km * 0.09) * (airlineFactor.get(airline.code) ?? 1) * stopFactor * (0.9 + rng() * 0.2),
      premiumFactor: 1.5 + rng() * 0.4,
      businessFactor: 2.6 + rng() * 1.0,
    });
  }
  return out.sort((a, b) => a.depMin - b.depMin);
}

/** Builds the whole timetable of a data seed. Same seed → same timetable. */
export function buildTravelData(seed: number): TravelData {
  const rng = mulberry32((fnv1a('travel-timetable') ^ seed) >>> 0);
  const airlineFactor = new Map(TRAVEL_AIRLINES.map((a) => [a.code, 0.85 + rng() * 0.4] as const));
  const numbers = new Set<string>();
  const services: TravelService[] = [];
  const byRoute = new Map<string, TravelService[]>();
  for (const from of TRAVEL_CITIES) {
    for (const to of TRAVEL_CITIES) {
      if (from === to) continue;
      const route = buildRoute(rng, from, to, numbers, airlineFactor);
      byRoute.set(`${from.code}-${to.code}`, route);
      services.push(...route);
    }
  }
  return { seed, services, byNumber: new Map(services.map((s) => [s.number, s])), byRoute };
}

/** The day's economy fare of a service before de-duplication: demand varies by day and weekday. */
function dayFares(seed: number, s: TravelService, date: string): Record<Cabin, number> {
  const rng = mulberry32((fnv1a(`${s.number}|${date}`) ^ seed) >>> 0);
  const wd = weekdayOf(date);
  const weekend = wd === 5 || wd === 0 ? 1.15 : 1;
  const economy = Math.max(29, Math.round(s.baseFare * (0.75 + rng() * 0.7) * weekend));
  return { economy, premium: Math.round(economy * s.premiumFactor), business: Math.round(economy * s.businessFactor) };
}

/**
 * Flights of a route on a day, by departure time; empty outside the booking window or for an
 * unknown route. Fares of one cabin are distinct within the listing (a later flight's equal fare
 * is raised by a dollar), so "the cheapest" is always one flight.
 */
export function flightsOn(data: TravelData, from: string, to: string, date: string): TravelFlight[] {
  if (!isTravelDate(date)) return [];
  const wd = weekdayOf(date);
  const services = (data.byRoute.get(`${from}-${to}`) ?? []).filter((s) => s.days.includes(wd));
  const used: Record<Cabin, Set<number>> = { economy: new Set(), premium: new Set(), business: new Set() };
  return services.map((s) => {
    const fares = dayFares(data.seed, s, date);
    for (const c of CABINS) {
      while (used[c].has(fares[c])) fares[c]++;
      used[c].add(fares[c]);
    }
    return { id: `${s.number}-${compactDate(date)}`, service: s, date, fares };
  });
}

/** The flight with id `<number>-<YYYYMMDD>`, or undefined when there is none that day. */
export function findFlight(data: TravelData, id: string): TravelFlight | undefined {
  const m = /^([A-Z]{2}\d{3})-(\d{4})(\d{2})(\d{2})$/.exec(id);
  if (m === null) return undefined;
  const service = data.byNumber.get(m[1] ?? '');
  if (service === undefined) return undefined;
  return flightsOn(data, service.from, service.to, `${m[2]}-${m[3]}-${m[4]}`).find((f) => f.id === id);
}

/** `$1,234` */
export function formatFare(dollars: number): string {
  return `$${dollars.toLocaleString('en-US')}`;
}

/** `08:05` for minutes after midnight (wraps past midnight). */
export function formatFlightTime(min: number): string {
  const m = ((min % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** `2h 35m` */
export function formatFlightDuration(min: number): string {
  return `${Math.floor(min / 60)}h ${String(min % 60).padStart(2, '0')}m`;
}

/** `Nonstop`, `1 stop (AMS)`, `2 stops (AMS, CPH)` */
export function formatStops(via: readonly string[]): string {
  if (via.length === 0) return 'Nonstop';
  return `${via.length} ${via.length === 1 ? 'stop' : 'stops'} (${via.join(', ')})`;
}
