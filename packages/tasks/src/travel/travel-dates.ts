// The travel site's calendar: a fixed 60-day booking window (no clock is read, so data and tasks
// never depend on when they are built), ISO date checks and the display formats of dates.

/** First bookable day (ISO). */
export const TRAVEL_FIRST_DATE = '2027-03-01';
/** Number of bookable days from TRAVEL_FIRST_DATE on. */
export const TRAVEL_DAYS = 60;

const DAY_MS = 86_400_000;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function utcMs(iso: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (m === null) return NaN;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  // Reject dates that do not exist (2027-02-30 rolls over to March).
  return new Date(ms).toISOString().slice(0, 10) === iso ? ms : NaN;
}

function isoOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** All bookable days, in order. */
export function travelDates(): string[] {
  const start = utcMs(TRAVEL_FIRST_DATE);
  return Array.from({ length: TRAVEL_DAYS }, (_, i) => isoOf(start + i * DAY_MS));
}

/** Last bookable day (ISO). */
export const TRAVEL_LAST_DATE = isoOf(utcMs(TRAVEL_FIRST_DATE) + (TRAVEL_DAYS - 1) * DAY_MS);

/** Whether `iso` is an existing YYYY-MM-DD day. */
export function isIsoDay(iso: string): boolean {
  return !Number.isNaN(utcMs(iso));
}

/** Whether `iso` is a bookable day of the window. */
export function isTravelDate(iso: string): boolean {
  return isIsoDay(iso) && iso >= TRAVEL_FIRST_DATE && iso <= TRAVEL_LAST_DATE;
}

/** Day of the week, 0 = Sunday. */
export function weekdayOf(iso: string): number {
  return new Date(utcMs(iso)).getUTCDay();
}

/** `iso` moved by `days` (may leave the window). */
export function addDays(iso: string, days: number): string {
  return isoOf(utcMs(iso) + days * DAY_MS);
}


/** `14 March 2027`: how the calendar names a day (its buttons' accessible names). */
export function calendarDayName(iso: string): string {
  const d = new Date(utcMs(iso));
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()] ?? ''} ${d.getUTCFullYear()}`;
}

/** `Sun 14 Mar 2027`: how listings and bookings show a day. */
export function formatTravelDay(iso: string): string {
  const d = new Date(utcMs(iso));
  return `${WEEKDAYS[d.getUTCDay()] ?? ''} ${d.getUTCDate()} ${(MONTHS[d.getUTCMonth()] ?? '').slice(0, 3)} ${d.getUTCFullYear()}`;
}

/** `YYYYMMDD` of an ISO day (flight ids carry it). */
export function compactDate(iso: string): string {
  return iso.replaceAll('-', '');
}
