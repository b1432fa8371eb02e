// The travel site's search parameters: what the search form and result links carry, parsed and
// checked (with messages for the form), and written back as the one canonical results URL.
import {
  DEFAULT_TRAVEL_SORT,
  calendarDayName,
  isCabin,
  isIsoDay,
  isTravelDate,
  isTravelSort,
  resolveCity,
  TRAVEL_AIRLINES,
  TRAVEL_FIRST_DATE,
  TRAVEL_LAST_DATE,
  type Cabin,
  type TravelCity,
  type TravelFilter,
  type TravelSort,
} from '@owrl/tasks/travel';

export const MAX_PASSENGERS = 6;

export interface ResultsQuery {
  from: TravelCity;
  to: TravelCity;
  date: string;
  /** Return day of a round trip; undefined for one way. */
  ret: string | undefined;
  pax: number;
  cabin: Cabin;
  sort: TravelSort;
  filter: TravelFilter;
  /** Chosen outbound flight id of a round trip (the page then lists return flights). */
  out: string | undefined;
}

/** The search form's fields as typed (re-shown after an error). */
export interface SearchFormValues {
  trip: 'oneway' | 'round';
  from: string;
  to: string;
  date: string;
  ret: string;
  pax: string;
  cabin: Cabin;
}

export type ParsedSearch = { ok: true; q: ResultsQuery } | { ok: false; errors: string[]; form: SearchFormValues };

const FLIGHT_ID = /^[A-Z]{2}\d{3}-\d{8}$/;

/** Form values from query parameters, unchecked (prefills the search form). */
export function formValuesOf(p: URLSearchParams): SearchFormValues {
  const ret = (p.get('ret') ?? '').trim();
  const trip = p.get('trip') === 'round' || (p.get('trip') === null && ret !== '') ? 'round' : 'oneway';
  const cabin = p.get('cabin') ?? '';
  return {
    trip,
    from: (p.get('from') ?? '').slice(0, 80),
    to: (p.get('to') ?? '').slice(0, 80),
    date: (p.get('date') ?? '').trim().slice(0, 20),
    ret: ret.slice(0, 20),
    pax: (p.get('pax') ?? '1').trim().slice(0, 4) || '1',
    cabin: isCabin(cabin) ? cabin : 'economy',
  };
}

const WINDOW = `${calendarDayName(TRAVEL_FIRST_DATE)} and ${calendarDayName(TRAVEL_LAST_DATE)}`;

function dateProblem(what: string, v: string): string | undefined {
  if (v === '') return `Enter a ${what} (YYYY-MM-DD) or choose one in the calendar.`;
  if (!isIsoDay(v)) return `${what[0]?.toUpperCase() ?? ''}${what.slice(1)} "${v}" is not a date: use YYYY-MM-DD, e.g. ${TRAVEL_FIRST_DATE}.`;
  if (!isTravelDate(v)) return `We sell flights between ${WINDOW}; ${calendarDayName(v)} is outside.`;
  return undefined;
}

function cityProblem(what: string, typed: string): string | undefined {
  if (typed.trim() === '') return `Enter where you fly ${what}.`;
  if (resolveCity(typed) === undefined) return `We do not fly ${what} "${typed.trim()}": choose an airport from the suggestions.`;
  return undefined;
}

/** Parses a search (form submit or results link). Filters and sort that do not parse are dropped. */
export function parseResultsQuery(p: URLSearchParams): ParsedSearch {
  const form = formValuesOf(p);
  const errors: string[] = [];
  const from = resolveCity(form.from);
  const to = resolveCity(form.to);
  for (const e of [cityProblem('from', form.from), cityProblem('to', form.to)]) if (e) errors.push(e);
  if (from !== undefined && from === to) errors.push('Origin and destination must be different.');
  const dateErr = dateProblem('departure date', form.date);
  if (dateErr) errors.push(dateErr);
  let ret: string | undefined;
  if (form.trip === 'round') {
    const retErr = dateProblem('return date', form.ret);
    if (retErr) errors.push(retErr);
    else if (dateErr === undefined && form.ret < form.date) errors.push(`The return date ${calendarDayName(form.ret)} is before the departure date.`);
    ret = form.ret;
  }
  const pax = /^\d+$/.test(form.pax) ? Number(form.pax) : NaN;
  if (!Number.isInteger(pax) || pax < 1 || pax > MAX_PASSENGERS) errors.push(`Passengers "${form.pax}" must be a whole number from 1 to ${MAX_PASSENGERS}.`);
  if (errors.length > 0 || from === undefined || to === undefined) return { ok: false, errors, form };

  const sortRaw = p.get('sort') ?? '';
  const stops = [...new Set(p.getAll('stops').filter((s) => /^[012]$/.test(s)).map(Number))].sort((a, b) => a - b);
  const airlines = TRAVEL_AIRLINES.map((a) => a.code).filter((c) => p.getAll('airline').includes(c));
  const maxRaw = (p.get('max') ?? '').trim();
  const maxPrice = /^\d{1,6}$/.test(maxRaw) && Number(maxRaw) > 0 ? Number(maxRaw) : undefined;
  const outRaw = p.get('out') ?? '';
  return {
    ok: true,
    q: {
      from,
      to,
      date: form.date,
      ret,
      pax,
      cabin: form.cabin,
      sort: isTravelSort(sortRaw) ? sortRaw : DEFAULT_TRAVEL_SORT,
      filter: { stops, airlines, maxPrice },
      out: ret !== undefined && FLIGHT_ID.test(outRaw) ? outRaw : undefined,
    },
  };
}

/** Query parameters of a results page, in canonical order (defaults left out). */
export function resultsParams(q: ResultsQuery): URLSearchParams {
  const p = new URLSearchParams({ from: q.from.code, to: q.to.code, date: q.date });
  if (q.ret !== undefined) p.set('ret', q.ret);
  if (q.pax !== 1) p.set('pax', String(q.pax));
  if (q.cabin !== 'economy') p.set('cabin', q.cabin);
  if (q.sort !== DEFAULT_TRAVEL_SORT) p.set('sort', q.sort);
  for (const s of q.filter.stops) p.append('stops', String(s));
  for (const a of q.filter.airlines) p.append('airline', a);
  if (q.filter.maxPrice !== undefined) p.set('max', String(q.filter.maxPrice));
  if (q.out !== undefined) p.set('out', q.out);
  return p;
}

export function resultsHref(q: ResultsQuery): string {
  return `/travel/flights?${resultsParams(q).toString()}`;
}

/** The search page prefilled with a query (the "Modify search" link). */
export function modifyHref(q: ResultsQuery): string {
  const p = new URLSearchParams({ trip: q.ret === undefined ? 'oneway' : 'round', from: q.from.name, to: q.to.name, date: q.date });
  if (q.ret !== undefined) p.set('ret', q.ret);
  p.set('pax', String(q.pax));
  p.set('cabin', q.cabin);
  return `/travel/?${p.toString()}`;
}

/** `1 passenger`, `2 passengers` */
export function paxLabel(pax: number): string {
  return `${pax} ${pax === 1 ? 'passenger' : 'passengers'}`;
}
