// Search rules of the travel site shared by its pages and its task generator: how typed airports
// resolve, how results sort and filter, so "the cheapest nonstop flight" means the same to both.
import { TRAVEL_CITIES, type Cabin, type TravelCity, type TravelFlight } from './travel-data.js';

export type TravelSort = 'departure' | 'price' | 'duration' | 'best';
/** Sorts in the order the results page offers them; the first is the default. */
export const TRAVEL_SORTS: readonly TravelSort[] = ['departure', 'price', 'duration', 'best'];
export const DEFAULT_TRAVEL_SORT: TravelSort = 'departure';
/** Labels of the sort links on the results page (their accessible names). */
export const TRAVEL_SORT_LABELS: Readonly<Record<TravelSort, string>> = {
  departure: 'Earliest departure',
  price: 'Lowest price',
  duration: 'Shortest duration',
  best: 'Best value',
};

export function isTravelSort(v: string): v is TravelSort {
  return (TRAVEL_SORTS as readonly string[]).includes(v);
}

export interface TravelFilter {
  /** Allowed numbers of stops (0, 1, 2); empty = any. */
  stops: readonly number[];
  /** Allowed airline codes; empty = any. */
  airlines: readonly string[];
  /** Highest fare of the searched cabin, dollars; undefined = any. */
  maxPrice: number | undefined;
}

/** Labels of the stop filters (the checkboxes' accessible names). */
export const STOP_LABELS: readonly string[] = ['Nonstop', '1 stop', '2 stops'];

/** `Lisbon (LIS)`: what a picked suggestion writes into the field. */
export function cityLabel(c: TravelCity): string {
  return `${c.name} (${c.code})`;
}

/**
 * The city a typed origin or destination names: the city name or airport code (any case), or a
 * suggestion's `Name (CODE)` text; undefined when it names none.
 */
export function resolveCity(typed: string): TravelCity | undefined {
  const t = typed.replace(/\s+/g, ' ').trim().toLowerCase();
  if (t === '') return undefined;
  return TRAVEL_CITIES.find((c) => t === c.name.toLowerCase() || t === c.code.toLowerCase() || t === cityLabel(c).toLowerCase());
}

/** "Best value": fare plus a dollar for every 1.5 minutes of travel, the site's default order. */
function bestScore(f: TravelFlight, cabin: Cabin): number {
  return f.fares[cabin] + f.service.durationMin / 1.5;
}

/** Results in `sort` order; ties go to the earlier departure. Returns a new array. */
export function sortFlights(flights: readonly TravelFlight[], sort: TravelSort, cabin: Cabin): TravelFlight[] {
  const key = (f: TravelFlight): number => {
    switch (sort) {
      case 'best':
        return bestScore(f, cabin);
      case 'price':
        return f.fares[cabin];
      case 'departure':
        return f.service.depMin;
      case 'duration':
        return f.service.durationMin;
    }
  };
  return [...flights].sort((a, b) => key(a) - key(b) || a.service.depMin - b.service.depMin);
}

export function filterFlights(flights: readonly TravelFlight[], filter: TravelFilter, cabin: Cabin): TravelFlight[] {
  return flights.filter(
    (f) =>
      (filter.stops.length === 0 || filter.stops.includes(f.service.via.length)) &&
      (filter.airlines.length === 0 || filter.airlines.includes(f.service.airline)) &&
      (filter.maxPrice === undefined || f.fares[cabin] <= filter.maxPrice),
  );
}

