// The travel site "Skyward" as a bundled site: its pages under /travel/ and its bookings verifier.
import { isTaskError } from '@owrl/tasks';
import { buildTravelData, checkTravel, parseTravelSpec, presetBookings, TRAVEL_AIRLINES, TRAVEL_CITIES, type TravelData } from '@owrl/tasks/travel';
import { SitesError, SitesErrorCode } from '../errors.js';
import type { SiteContext, SiteModule } from '../site.js';
import { TRAVEL_TITLE } from './travel-layout.js';
import { handleTravel } from './travel-routes.js';
import { peekBookings, TRAVEL_NAME, travelSession } from './travel-state.js';

export interface TravelSite extends SiteModule {
  readonly data: TravelData;
}

export function createTravelSite(ctx: SiteContext): TravelSite {
  const data = buildTravelData(ctx.seed);
  const presets = presetBookings(data);
  return {
    name: TRAVEL_NAME,
    title: TRAVEL_TITLE,
    blurb: 'Flight booking: airport search, calendars, sortable results, bookings and My trips.',
    data,
    handle: (req, res, url, session) => handleTravel(req, res, url, data, travelSession(session, presets)),
    verify(session, specJson) {
      let spec;
      try {
        spec = parseTravelSpec(specJson);
      } catch (e) {
        throw new SitesError(SitesErrorCode.BadRequest, isTaskError(e) ? e.message : String(e));
      }
      const result = checkTravel(peekBookings(session, presets), spec);
      return session === undefined ? { ok: result.ok, detail: `unknown session; ${result.detail}` } : result;
    },
    health: () => ({ dataSeed: data.seed, cities: TRAVEL_CITIES.length, airlines: TRAVEL_AIRLINES.length, services: data.services.length }),
  };
}
