// Search-side pages of the travel site: the search form (autocomplete, calendars), the results
// list with sort and filters, and a flight's details with its fares. Pure functions of their data.
import {
  airlineByCode,
  CABIN_LABELS,
  CABINS,
  cityByCode,
  cityLabel,
  formatFlightTime,
  formatFlightDuration,
  formatTravelDay,
  formatStops,
  formatFare,
  STOP_LABELS,
  TRAVEL_CITIES,
  TRAVEL_FIRST_DATE,
  TRAVEL_LAST_DATE,
  TRAVEL_SORT_LABELS,
  TRAVEL_SORTS,
  type Cabin,
  type TravelAirline,
  type TravelCity,
  type TravelFlight,
} from '@owrl/tasks/travel';
import { html, raw, type Html } from '../html.js';
import { layout, type FrameState } from './travel-layout.js';
import { MAX_PASSENGERS, modifyHref, paxLabel, resultsHref, resultsParams, type ResultsQuery, type SearchFormValues } from './travel-query.js';
import { FILTER_SCRIPT, SEARCH_SCRIPT } from './travel-scripts.js';

const AIRPORTS_JSON = JSON.stringify(
  TRAVEL_CITIES.map((c) => ({ code: c.code, name: c.name, label: cityLabel(c), airport: c.airport, country: c.country })),
);

function cabinRadios(name: string, checked: Cabin, idPrefix: string, note?: (c: Cabin) => Html): Html {
  return html`${CABINS.map(
    (c) => html`<span><input type="radio" id="${idPrefix}-${c}" name="${name}" value="${c}"${c === checked ? raw(' checked') : ''}>
<label for="${idPrefix}-${c}">${CABIN_LABELS[c]}</label>${note ? note(c) : ''}</span>`,
  )}`;
}

function cityField(id: 'from' | 'to', label: string, value: string): Html {
  return html`<div class="field"><label for="${id}">${label}</label>
<input id="${id}" name="${id}" value="${value}" placeholder="City or airport" autocomplete="off" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="${id}-list" data-combobox>
<ul id="${id}-list" role="listbox" aria-label="${label} suggestions" hidden></ul></div>`;
}

function dateField(id: 'date' | 'ret', label: string, value: string, after?: string): Html {
  const which = id === 'date' ? 'departure' : 'return';
  return html`<div class="field"><label for="${id}">${label}</label>
<input id="${id}" name="${id}" value="${value}" placeholder="YYYY-MM-DD" autocomplete="off" inputmode="numeric">
<button type="button" class="link" data-calendar="${id}" aria-controls="cal-${id}" aria-expanded="false">Choose ${which} date</button>
<div class="calendar" id="cal-${id}" role="dialog" aria-label="Calendar for the ${which} date" data-min="${TRAVEL_FIRST_DATE}" data-max="${TRAVEL_LAST_DATE}"${
    after ? html` data-after="${after}"` : ''
  } hidden></div></div>`;
}

/** The home page: the flight search form, prefilled with `v`, with `errors` above it. */
export function searchPage(st: FrameState, v: SearchFormValues, errors: readonly string[]): Html {
  const problems =
    errors.length === 0 ? '' : html`<div class="notice error" role="alert"><strong>Please check your search:</strong><ul>${errors.map((e) => html`<li>${e}</li>`)}</ul></div>`;
  const round = v.trip === 'round';
  return layout(
    st,
    'Search flights',
    html`<h1>Where to next?</h1><p class="hero">Flights between 12 European cities, ${formatTravelDay(TRAVEL_FIRST_DATE)} to ${formatTravelDay(TRAVEL_LAST_DATE)}.</p>${problems}
<form class="search panel" role="search" aria-label="Search flights" method="get" action="/travel/flights">
<fieldset><legend>Trip</legend><div class="choices">
<span><input type="radio" id="trip-oneway" name="trip" value="oneway"${round ? '' : raw(' checked')}><label for="trip-oneway">One way</label></span>
<span><input type="radio" id="trip-round" name="trip" value="round"${round ? raw(' checked') : ''}><label for="trip-round">Round trip</label></span></div></fieldset>
<div class="row">${cityField('from', 'From', v.from)}${cityField('to', 'To', v.to)}</div>
<div class="row">${dateField('date', 'Departure date', v.date)}<div id="ret-row"${round ? '' : raw(' hidden')}>${dateField('ret', 'Return date', v.ret, 'date')}</div>
<div class="field"><label for="pax">Passengers</label><input id="pax" name="pax" type="number" min="1" max="${MAX_PASSENGERS}" value="${v.pax}"></div></div>
<fieldset><legend>Cabin class</legend><div class="choices">${cabinRadios('cabin', v.cabin, 'cabin')}</div></fieldset>
<button type="submit">Search flights</button></form>`,
    { current: 'flights', script: SEARCH_SCRIPT, data: { id: 'airports', json: AIRPORTS_JSON } },
  );
}

/** What the results page lists: one leg of the query, already filtered and sorted. */
export interface ResultsView {
  q: ResultsQuery;
  /** `out`: one way or a round trip's outbound; `back`: the return after an outbound was chosen. */
  leg: 'out' | 'back';
  outbound: TravelFlight | undefined;
  from: TravelCity;
  to: TravelCity;
  date: string;
  shown: readonly TravelFlight[];
  /** Flights that day before filtering. */
  total: number;
  /** Airlines flying the leg that day (the airline filter's choices). */
  airlines: readonly TravelAirline[];
  /** Where "Select" leads for a flight. */
  selectHref: (f: TravelFlight) => string;
}

export function flightHref(f: TravelFlight, q: ResultsQuery): string {
  const p = new URLSearchParams({ cabin: q.cabin });
  if (q.pax !== 1) p.set('pax', String(q.pax));
  return `/travel/flight/${f.id}?${p.toString()}`;
}

function arrival(f: TravelFlight): Html {
  const end = f.service.depMin + f.service.durationMin;
  const days = Math.floor(end / 1440);
  return html`${formatFlightTime(end)}${days > 0 ? html`<sup title="arrives ${days} day later">+${days}</sup>` : ''}`;
}

function card(f: TravelFlight, v: ResultsView): Html {
  const airline = airlineByCode(f.service.airline)?.name ?? f.service.airline;
  return html`<li class="flight-card">
<div><p class="times"><strong>${formatFlightTime(f.service.depMin)}</strong> – <strong>${arrival(f)}</strong></p><p class="muted">${f.service.from} → ${f.service.to}</p></div>
<div><p>${formatFlightDuration(f.service.durationMin)}</p><p class="muted">${formatStops(f.service.via)}</p></div>
<p class="carrier">${airline} · <a href="${flightHref(f, v.q)}">${f.service.number}</a></p>
<div><p class="price">${formatFare(f.fares[v.q.cabin])}</p><p class="muted">per traveller</p></div>
<a class="btn" href="${v.selectHref(f)}" aria-label="Select ${f.service.number}">Select</a></li>`;
}

function hidden(name: string, value: string): Html {
  return html`<input type="hidden" name="${name}" value="${value}">`;
}

function filtersForm(v: ResultsView): Html {
  const q = v.q;
  const keep = resultsParams({ ...q, filter: { stops: [], airlines: [], maxPrice: undefined } });
  const checked = (on: boolean) => (on ? raw(' checked') : '');
  return html`<form class="filters panel" method="get" action="/travel/flights" aria-label="Filter flights">
${[...keep].map(([k, val]) => hidden(k, val))}
<fieldset><legend>Stops</legend>${STOP_LABELS.map(
    (label, n) => html`<label><input type="checkbox" name="stops" value="${n}"${checked(q.filter.stops.includes(n))}> ${label}</label>`,
  )}</fieldset>
<fieldset><legend>Airlines</legend>${v.airlines.map(
    (a) => html`<label><input type="checkbox" name="airline" value="${a.code}"${checked(q.filter.airlines.includes(a.code))}> ${a.name}</label>`,
  )}</fieldset>
<fieldset><legend>Budget</legend><div class="max"><label for="max">Max fare</label><input id="max" name="max" type="number" min="1" value="${
    q.filter.maxPrice ?? ''
  }"><span>USD</span></div></fieldset>
<button type="submit">Apply filters</button> <a href="${resultsHref({ ...q, filter: { stops: [], airlines: [], maxPrice: undefined } })}">Clear filters</a></form>`;
}

// No page text repeats the sort or filter names ("Sort by" is a CSS caption, the fare limit is
// "Max fare"): an agent that looks for answers next to the phrases an instruction quotes then
// finds them on the result cards, not beside the sort links.
export function resultsPage(st: FrameState, v: ResultsView): Html {
  const q = v.q;
  const sortLinks = TRAVEL_SORTS.map(
    (s) => html`<a href="${resultsHref({ ...q, sort: s })}"${s === q.sort ? raw(' aria-current="true"') : ''}>${TRAVEL_SORT_LABELS[s]}</a>`,
  );
  const step =
    q.ret === undefined ? '' : html`<p><strong>Step ${v.leg === 'out' ? '1' : '2'} of 2:</strong> choose your ${v.leg === 'out' ? 'outbound' : 'return'} flight</p>`;
  const out = v.outbound;
  const picked =
    out === undefined
      ? ''
      : html`<div class="panel picked"><p>Outbound: ${formatTravelDay(out.date)} · ${out.service.number} · ${formatFlightTime(out.service.depMin)} ${out.service.from} → ${out.service.to} · ${formatFare(
          out.fares[q.cabin],
        )}</p><a href="${resultsHref({ ...q, out: undefined })}">Change outbound flight</a></div>`;
  const count =
    v.total === 0
      ? html`<p>No flights on this day.</p>`
      : v.shown.length === 0
        ? html`<p>No flights match your filters.</p>`
        : html`<p class="muted">${v.shown.length} of ${v.total} flights · fares per traveller in ${CABIN_LABELS[q.cabin]}</p>`;
  return layout(
    st,
    `${v.from.name} to ${v.to.name}`,
    html`<h1>${v.from.name} → ${v.to.name}</h1><p class="muted">${formatTravelDay(v.date)} · ${paxLabel(q.pax)} · ${CABIN_LABELS[q.cabin]} · <a href="${modifyHref(q)}">Modify search</a></p>
${step}${picked}<div class="results">${filtersForm(v)}<section aria-label="Flights">
<nav class="sort" aria-label="Sort flights">${sortLinks}</nav>${count}
<ol class="flights">${v.shown.map((f) => card(f, v))}</ol></section></div>`,
    { current: 'flights', script: FILTER_SCRIPT },
  );
}

const BAGGAGE: Readonly<Record<Cabin, string>> = {
  economy: 'Cabin bag only',
  premium: 'Cabin bag + 1 checked bag (23 kg)',
  business: 'Cabin bag + 2 checked bags (32 kg)',
};

export function bookHref(flights: readonly TravelFlight[], cabin: Cabin, pax: number): string {
  const p = new URLSearchParams({ flights: flights.map((f) => f.id).join(','), cabin });
  if (pax !== 1) p.set('pax', String(pax));
  return `/travel/book?${p.toString()}`;
}

/** A flight's details and its fares per cabin, each with a "Book <cabin>" link. */
export function flightPage(st: FrameState, f: TravelFlight, pax: number, backHref: string): Html {
  const s = f.service;
  const from = cityByCode(s.from);
  const to = cityByCode(s.to);
  const place = (c: TravelCity | undefined, code: string) => (c ? `${c.name} (${c.code}) · ${c.airport}` : code);
  const rows = CABINS.map(
    (c) => html`<tr><th scope="row">${CABIN_LABELS[c]}</th><td>${formatFare(f.fares[c])}</td><td>${BAGGAGE[c]}</td>
<td><a class="btn" href="${bookHref([f], c, pax)}">Book ${CABIN_LABELS[c]}</a></td></tr>`,
  );
  return layout(
    st,
    `Flight ${s.number}`,
    html`<h1>Flight ${s.number}: ${from?.name ?? s.from} → ${to?.name ?? s.to}</h1>
<p class="muted">${formatTravelDay(f.date)} · ${airlineByCode(s.airline)?.name ?? s.airline}</p>
<div class="panel"><dl><dt>Departs</dt><dd>${formatFlightTime(s.depMin)} ${place(from, s.from)}</dd><dt>Arrives</dt><dd>${arrival(f)} ${place(to, s.to)}</dd>
<dt>Duration</dt><dd>${formatFlightDuration(s.durationMin)}</dd><dt>Stops</dt><dd>${formatStops(s.via)}</dd><dt>Aircraft</dt><dd>${s.aircraft}</dd></dl></div>
<h2>Fares per traveller</h2><table><thead><tr><th scope="col">Cabin</th><th scope="col">Fare</th><th scope="col">Baggage</th><th scope="col"><span class="muted">Book</span></th></tr></thead>
<tbody>${rows}</tbody></table><p><a href="${backHref}">Back to results</a></p>`,
    { current: 'flights' },
  );
}
