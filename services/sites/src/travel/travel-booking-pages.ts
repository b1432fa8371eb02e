// Booking-side pages of the travel site: the booking form, the confirmation, a trip's page with
// its cancel button, "My trips", and not-found. Pure functions of their data.
import {
  airlineByCode,
  CABIN_LABELS,
  CABINS,
  cityByCode,
  formatFlightTime,
  formatTravelDay,
  formatStops,
  formatFare,
  type Cabin,
  type TravelBooking,
  type TravelFlight,
} from '@owrl/tasks/travel';
import { html, raw, type Html } from '../html.js';
import { layout, type FrameState } from './travel-layout.js';

/** What the booking form shows and re-shows after a mistake. */
export interface BookingFormView {
  legs: readonly TravelFlight[];
  pax: number;
  cabin: Cabin;
  names: readonly string[];
  email: string;
  errors: readonly string[];
}

const cityName = (code: string): string => cityByCode(code)?.name ?? code;

function legRows(legs: readonly TravelFlight[], cabin: Cabin | undefined): Html {
  const rows = legs.map((f, i) => {
    const s = f.service;
    const kind = legs.length === 1 ? 'Flight' : i === 0 ? 'Outbound' : 'Return';
    return html`<tr><th scope="row">${kind}</th><td>${formatTravelDay(f.date)}</td><td>${s.number} · ${airlineByCode(s.airline)?.name ?? s.airline}</td>
<td>${formatFlightTime(s.depMin)} ${cityName(s.from)} (${s.from}) → ${cityName(s.to)} (${s.to})</td><td>${formatStops(s.via)}</td>${
      cabin === undefined ? '' : html`<td>${formatFare(f.fares[cabin])}</td>`
    }</tr>`;
  });
  return html`<table><tbody>${rows}</tbody></table>`;
}

/** Label of passenger field `i` (0-based) among `pax`. */
export function passengerLabel(i: number, pax: number): string {
  return pax === 1 ? 'Passenger name' : `Passenger ${i + 1} name`;
}

export function bookingFormPage(st: FrameState, v: BookingFormView): Html {
  const perCabin = (c: Cabin) => v.legs.reduce((s, f) => s + f.fares[c], 0);
  const radios = CABINS.map(
    (c) => html`<p><input type="radio" id="seat-${c}" name="cabin" value="${c}"${c === v.cabin ? raw(' checked') : ''}>
<label for="seat-${c}">${CABIN_LABELS[c]}</label> <span class="muted">${formatFare(perCabin(c))} per traveller</span></p>`,
  );
  const names = Array.from(
    { length: v.pax },
    (_, i) => html`<div class="field"><label for="passenger-${i + 1}">${passengerLabel(i, v.pax)}</label>
<input id="passenger-${i + 1}" name="passenger" value="${v.names[i] ?? ''}" autocomplete="${i === 0 ? 'name' : 'off'}" required></div>`,
  );
  const problems =
    v.errors.length === 0 ? '' : html`<div class="notice error" role="alert"><strong>Please correct:</strong><ul>${v.errors.map((e) => html`<li>${e}</li>`)}</ul></div>`;
  return layout(
    st,
    'Your booking',
    html`<h1>Your booking</h1>${problems}<section class="panel" aria-label="Itinerary">${legRows(v.legs, v.cabin)}
<p class="total">Total for ${v.pax} ${v.pax === 1 ? 'traveller' : 'travellers'} in ${CABIN_LABELS[v.cabin]}: ${formatFare(perCabin(v.cabin) * v.pax)}</p></section>
<form class="panel" method="post" action="/travel/book"><input type="hidden" name="flights" value="${v.legs.map((f) => f.id).join(',')}">
<input type="hidden" name="pax" value="${v.pax}"><fieldset><legend>Seat class</legend>${radios}</fieldset>
<div class="search"><div class="row">${names}<div class="field"><label for="email">Email</label>
<input id="email" name="email" type="email" value="${v.email}" autocomplete="email" required></div></div></div>
<button type="submit">Confirm booking</button></form>`,
    { current: 'flights' },
  );
}

function tripTitle(b: TravelBooking, legs: readonly TravelFlight[]): string {
  const first = legs[0]?.service;
  if (first === undefined) return b.ref;
  return legs.length > 1 ? `${cityName(first.from)} ⇄ ${cityName(first.to)}` : `${cityName(first.from)} → ${cityName(first.to)}`;
}

function bookingBlock(b: TravelBooking, legs: readonly TravelFlight[]): Html {
  return html`<section class="booking panel" aria-label="Booking ${b.ref}" data-booking-ref="${b.ref}" data-status="${b.status}" data-flights="${b.flights.join(',')}"
data-cabin="${b.cabin}" data-passengers="${b.passengers.join('|')}" data-email="${b.email}">
<p class="ref">Booking reference: <strong>${b.ref}</strong></p><p>Status: <strong>${b.status === 'confirmed' ? 'Confirmed' : 'Cancelled'}</strong></p>
${legRows(legs, undefined)}
<dl><dt>Travellers</dt><dd>${b.passengers.join(', ')}</dd><dt>Contact</dt><dd>${b.email}</dd><dt>Seat class</dt><dd>${CABIN_LABELS[b.cabin]}</dd>
<dt>Total</dt><dd>${formatFare(b.totalUsd)}</dd></dl>
${
  b.status === 'confirmed'
    ? html`<form method="post" action="/travel/trips/${b.ref}/cancel"><p><button type="submit">Cancel booking</button></p></form>`
    : html`<p class="muted">This booking was cancelled.</p>`
}</section>`;
}

/** The page after booking; `legs` are the booking's flights. */
export function confirmationPage(st: FrameState, b: TravelBooking, legs: readonly TravelFlight[]): Html {
  const heading = b.status === 'confirmed' ? 'Booking confirmed' : 'Booking cancelled';
  return layout(
    st,
    heading,
    html`<h1>${heading}</h1><p>Thank you, ${b.passengers[0] ?? ''}. We sent the details to ${b.email}.</p>${bookingBlock(b, legs)}
<p><a href="/travel/trips">Go to My trips</a></p>`,
    { current: 'trips' },
  );
}

export function tripPage(st: FrameState, b: TravelBooking, legs: readonly TravelFlight[]): Html {
  return layout(
    st,
    `Trip ${b.ref}`,
    html`<h1>${tripTitle(b, legs)}</h1>${bookingBlock(b, legs)}<p><a href="/travel/trips">Back to My trips</a></p>`,
    { current: 'trips' },
  );
}

function tripRows(list: readonly { b: TravelBooking; legs: readonly TravelFlight[] }[]): Html {
  const rows = list.map(
    ({ b, legs }) => html`<tr><td><a href="/travel/trips/${b.ref}">${b.ref}</a></td><td>${tripTitle(b, legs)}</td>
<td>${legs.map((f) => formatTravelDay(f.date)).join(' – ')}</td><td>${legs.map((f) => f.service.number).join(', ')}</td>
<td>${CABIN_LABELS[b.cabin]}</td><td>${b.passengers.join(', ')}</td><td>${formatFare(b.totalUsd)}</td></tr>`,
  );
  return html`<table><thead><tr><th scope="col">Reference</th><th scope="col">Trip</th><th scope="col">Dates</th><th scope="col">Flights</th>
<th scope="col">Seat class</th><th scope="col">Travellers</th><th scope="col">Total</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function tripsPage(st: FrameState, trips: readonly { b: TravelBooking; legs: readonly TravelFlight[] }[]): Html {
  const upcoming = trips.filter((t) => t.b.status === 'confirmed');
  const cancelled = trips.filter((t) => t.b.status === 'cancelled');
  return layout(
    st,
    'My trips',
    html`<h1>My trips</h1><h2>Upcoming</h2>${upcoming.length === 0 ? html`<p>You have no upcoming trips.</p>` : tripRows(upcoming)}
${cancelled.length === 0 ? '' : html`<h2>Cancelled</h2>${tripRows(cancelled)}`}`,
    { current: 'trips' },
  );
}

export function notFoundPage(st: FrameState, what: string): Html {
  return layout(st, 'Not found', html`<h1>Not found</h1><p>${what}</p><p><a href="/travel/">Search flights</a></p>`);
}
