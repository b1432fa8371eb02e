// Request handling of the travel site under /travel/: search, results (canonical URLs), flight
// details, booking (form POST, then 303 to the confirmation), trips and cancellation, and the
// cookie choice, all against the caller's session state.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  SESSION_PARAM,
} from '@owrl/tasks';
import {
  airlineByCode,
  filterFlights,
  findFlight,
  flightsOn,
  isCabin,
  makeBooking,
  sortFlights,
  TRAVEL_ACCOUNT,
  type TravelAirline,
  type TravelData,
  type TravelFlight,
} from '@owrl/tasks/travel';
import { hereOf, readForm, redirect, safeDecode, sendHtml } from '../http-util.js';
import { bookingFormPage, confirmationPage, notFoundPage, passengerLabel, tripPage, tripsPage, type BookingFormView } from './travel-booking-pages.js';
import type { FrameState } from './travel-layout.js';
import { bookHref, flightPage, resultsPage, searchPage, type ResultsView } from './travel-pages.js';
import { formValuesOf, MAX_PASSENGERS, parseResultsQuery, resultsHref, resultsParams, type ResultsQuery } from './travel-query.js';
import { takeNotice, type TravelSession } from './travel-state.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_NAME = 80;

function legsOf(data: TravelData, ids: readonly string[]): TravelFlight[] {
  return ids.flatMap((id) => {
    const f = findFlight(data, id);
    return f ? [f] : [];
  });
}

/**
 * The flights of a booking request, or why they cannot be booked together: one flight, or an
 * outbound and a return that goes back the same way on the same day or later.
 */
function bookableLegs(data: TravelData, raw: string): { legs: TravelFlight[] } | { error: string } {
  const ids = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (ids.length === 0 || ids.length > 2) return { error: `Choose one flight or an outbound and a return flight (got ${ids.length}).` };
  const legs = legsOf(data, ids);
  if (legs.length !== ids.length) return { error: `There is no flight ${ids.find((id) => findFlight(data, id) === undefined) ?? ''}.` };
  const [out, back] = legs;
  if (out !== undefined && back !== undefined && (back.service.from !== out.service.to || back.service.to !== out.service.from || back.date < out.date)) {
    return { error: `${back.service.number} is not a return flight of ${out.service.number}.` };
  }
  return { legs };
}

function resultsView(data: TravelData, q: ResultsQuery): ResultsView | undefined {
  const outList = flightsOn(data, q.from.code, q.to.code, q.date);
  const outbound = q.out === undefined ? undefined : outList.find((f) => f.id === q.out);
  if (q.out !== undefined && outbound === undefined) return undefined;
  const back = outbound !== undefined && q.ret !== undefined;
  const all = back ? flightsOn(data, q.to.code, q.from.code, q.ret ?? q.date) : outList;
  const airlines = [...new Set(all.map((f) => f.service.airline))].flatMap((c): TravelAirline[] => {
    const a = airlineByCode(c);
    return a ? [a] : [];
  });
  return {
    q,
    leg: back ? 'back' : 'out',
    outbound,
    from: back ? q.to : q.from,
    to: back ? q.from : q.to,
    date: back ? (q.ret ?? q.date) : q.date,
    shown: sortFlights(filterFlights(all, q.filter, q.cabin), q.sort, q.cabin),
    total: all.length,
    airlines: airlines.sort((a, b) => a.name.localeCompare(b.name)),
    selectHref: (f) =>
      q.ret === undefined ? bookHref([f], q.cabin, q.pax) : outbound === undefined ? resultsHref({ ...q, out: f.id }) : bookHref([outbound, f], q.cabin, q.pax),
  };
}

function bookingErrors(names: readonly string[], email: string, pax: number): string[] {
  const errors: string[] = [];
  names.forEach((n, i) => {
    if (n === '') errors.push(`Enter the ${passengerLabel(i, pax).toLowerCase()}.`);
    else if (n.length > MAX_NAME || !/\p{L}/u.test(n)) errors.push(`${passengerLabel(i, pax)} "${n.slice(0, MAX_NAME)}" is not a name.`);
  });
  if (email === '') errors.push('Enter an email address for the confirmation.');
  else if (!EMAIL.test(email) || email.length > 120) errors.push(`Email "${email.slice(0, 120)}" is not an email address.`);
  return errors;
}

/**
 * Handles a request whose path starts with /travel/. Returns false when the method is not one the
 * site serves at that path (the caller answers 405).
 */
export async function handleTravel(req: IncomingMessage, res: ServerResponse, url: URL, data: TravelData, s: TravelSession): Promise<boolean> {
  const path = url.pathname;
  const get = req.method === 'GET' || req.method === 'HEAD';
  const post = req.method === 'POST';
  const frame = (): FrameState => ({ notice: takeNotice(s), cookies: s.cookies, here: hereOf(url), account: TRAVEL_ACCOUNT.name });

  if (path === '/travel/' && get) {
    sendHtml(res, 200, searchPage(frame(), formValuesOf(url.searchParams), []));
    return true;
  }
  if (path === '/travel/flights' && get) {
    const parsed = parseResultsQuery(url.searchParams);
    if (!parsed.ok) {
      sendHtml(res, 200, searchPage(frame(), parsed.form, parsed.errors));
      return true;
    }
    const view = resultsView(data, parsed.q);
    const canonical = resultsParams(view === undefined ? { ...parsed.q, out: undefined } : parsed.q).toString();
    const asked = new URLSearchParams(url.search);
    asked.delete(SESSION_PARAM);
    if (view === undefined || asked.toString() !== canonical) {
      redirect(res, 302, `/travel/flights?${canonical}`);
      return true;
    }
    sendHtml(res, 200, resultsPage(frame(), view));
    return true;
  }
  if (path.startsWith('/travel/flight/') && get) {
    const id = safeDecode(path.slice('/travel/flight/'.length));
    const f = findFlight(data, id);
    if (f === undefined) {
      sendHtml(res, 404, notFoundPage(frame(), `There is no flight "${id}".`));
      return true;
    }
    const paxRaw = Number(url.searchParams.get('pax') ?? '1');
    const pax = Number.isInteger(paxRaw) && paxRaw >= 1 && paxRaw <= MAX_PASSENGERS ? paxRaw : 1;
    const cabinRaw = url.searchParams.get('cabin') ?? '';
    const back = new URLSearchParams({ from: f.service.from, to: f.service.to, date: f.date });
    if (pax !== 1) back.set('pax', String(pax));
    if (isCabin(cabinRaw) && cabinRaw !== 'economy') back.set('cabin', cabinRaw);
    sendHtml(res, 200, flightPage(frame(), f, pax, `/travel/flights?${back.toString()}`));
    return true;
  }
  if (path === '/travel/book' && (get || post)) {
    const form = post ? await readForm(req) : url.searchParams;
    const legs = bookableLegs(data, form.get('flights') ?? '');
    if ('error' in legs) {
      sendHtml(res, 404, notFoundPage(frame(), legs.error));
      return true;
    }
    const paxRaw = (form.get('pax') ?? '1').trim();
    const pax = /^\d$/.test(paxRaw) && Number(paxRaw) >= 1 && Number(paxRaw) <= MAX_PASSENGERS ? Number(paxRaw) : 1;
    const cabinRaw = form.get('cabin') ?? 'economy';
    const cabin = isCabin(cabinRaw) ? cabinRaw : 'economy';
    const names = Array.from({ length: pax }, (_, i) => (form.getAll('passenger')[i] ?? '').replace(/\s+/g, ' ').trim());
    const email = (form.get('email') ?? '').trim();
    const view: BookingFormView = { legs: legs.legs, pax, cabin, names, email, errors: [] };
    if (get) {
      sendHtml(res, 200, bookingFormPage(frame(), view));
      return true;
    }
    const errors = bookingErrors(names, email, pax);
    if (errors.length > 0) {
      sendHtml(res, 200, bookingFormPage(frame(), { ...view, errors }));
      return true;
    }
    const booking = makeBooking(s.bookings, legs.legs, cabin, names, email);
    s.bookings.push(booking);
    redirect(res, 303, `/travel/confirmation/${booking.ref}`);
    return true;
  }
  const refPage = /^\/travel\/(confirmation|trips)\/([A-Z]{3}\d{3})$/.exec(path);
  if (refPage !== null && get) {
    const b = s.bookings.find((x) => x.ref === refPage[2]);
    if (b === undefined) {
      sendHtml(res, 404, notFoundPage(frame(), `There is no booking ${refPage[2] ?? ''} in your account.`));
      return true;
    }
    const page = refPage[1] === 'confirmation' ? confirmationPage : tripPage;
    sendHtml(res, 200, page(frame(), b, legsOf(data, b.flights)));
    return true;
  }
  if (path === '/travel/trips' && get) {
    sendHtml(res, 200, tripsPage(frame(), s.bookings.map((b) => ({ b, legs: legsOf(data, b.flights) }))));
    return true;
  }
  const cancel = /^\/travel\/trips\/([A-Z]{3}\d{3})\/cancel$/.exec(path);
  if (cancel !== null && post) {
    const b = s.bookings.find((x) => x.ref === cancel[1]);
    if (b === undefined) {
      sendHtml(res, 404, notFoundPage(frame(), `There is no booking ${cancel[1] ?? ''} in your account.`));
      return true;
    }
    if (b.status === 'cancelled') s.notice = { kind: 'error', text: `Booking ${b.ref} was already cancelled.` };
    else {
      b.status = 'cancelled';
      s.notice = { kind: 'ok', text: `Booking ${b.ref} has been cancelled.` };
    }
    redirect(res, 303, '/travel/trips');
    return true;
  }
  if (path === '/travel/cookies' && post) {
    const form = await readForm(req);
    const choice = form.get('choice');
    if (choice === 'accept' || choice === 'reject') s.cookies = choice === 'accept' ? 'accepted' : 'rejected';
    const back = form.get('back') ?? '';
    redirect(res, 303, back.startsWith('/travel/') && !back.startsWith('//') ? back : '/travel/');
    return true;
  }
  const postOnly = cancel !== null || path === '/travel/cookies';
  if (postOnly || !get) return false;
  sendHtml(res, 404, notFoundPage(frame(), `There is no page ${path}.`));
  return true;
}
