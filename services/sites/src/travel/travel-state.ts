// Per-session state of the travel site: the account's bookings (its seeded trips first), the
// cookie choice, and a one-shot notice shown on the next page.
import type { TravelBooking } from '@owrl/tasks/travel';
import type { Notice, SessionState } from '../session-store.js';
import { peekSiteData, siteData } from '../site.js';

export const TRAVEL_NAME = 'travel';

export interface TravelSession {
  bookings: TravelBooking[];
  cookies: 'accepted' | 'rejected' | undefined;
  notice: Notice | undefined;
}

function fresh(presets: readonly TravelBooking[]): TravelSession {
  return { bookings: presets.map((b) => ({ ...b })), cookies: undefined, notice: undefined };
}

/** The session's travel state, created with the account's existing trips on first use. */
export function travelSession(session: SessionState, presets: readonly TravelBooking[]): TravelSession {
  return siteData(session, TRAVEL_NAME, () => fresh(presets));
}

/** The bookings a verifier sees: a session that never visited holds only the existing trips. */
export function peekBookings(session: SessionState | undefined, presets: readonly TravelBooking[]): readonly TravelBooking[] {
  return peekSiteData<TravelSession>(session, TRAVEL_NAME)?.bookings ?? presets;
}

/** Reads and clears the notice, so a render shows it exactly once. */
export function takeNotice(s: TravelSession): Notice | undefined {
  const n = s.notice;
  s.notice = undefined;
  return n;
}
