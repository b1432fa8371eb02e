// The bundled travel site "Skyward": seeded timetable and fares, search rules, bookings and their
// site-state verifier, and the task generator of suite `travel`.
export {
  TRAVEL_FIRST_DATE,
  TRAVEL_LAST_DATE,
  TRAVEL_DAYS,
  travelDates,
  isIsoDay,
  isTravelDate,
  calendarDayName,
  formatTravelDay,
} from './travel-dates.js';
export {
  TRAVEL_CITIES,
  TRAVEL_AIRLINES,
  CABINS,
  CABIN_LABELS,
  isCabin,
  cityByCode,
  airlineByCode,
  buildTravelData,
  flightsOn,
  findFlight,
  formatFare,
  formatFlightTime,
  formatFlightDuration,
  formatStops,
} from './travel-data.js';
export type {
  Cabin,
  TravelAirline,
  TravelCity,
  TravelData,
  TravelFlight,
  TravelService,
} from './travel-data.js';
export {
  TRAVEL_SORTS,
  TRAVEL_SORT_LABELS,
  DEFAULT_TRAVEL_SORT,
  STOP_LABELS,
  isTravelSort,
  cityLabel,
  resolveCity,
  sortFlights,
  filterFlights,
} from './travel-search.js';
export type {
  TravelSort,
  TravelFilter,
} from './travel-search.js';
export {
  TRAVEL_ACCOUNT,
  PRESET_TRIPS,
  presetBookings,
  makeBooking,
  parseTravelSpec,
  travelSpecJson,
  checkTravel,
} from './travel-booking.js';
export type {
  TravelBooking,
  ExpectedBooking,
  TravelSpec,
} from './travel-booking.js';
export {
  TRAVEL_FAMILIES,
  TRAVEL_POOL_SIZE,
} from './travel-families.js';
export type {
  TravelFamily,
  TravelFamilyName,
} from './travel-families.js';
export {
  TRAVEL_SUITE,
  TRAVEL_SITE,
  TRAVEL_VERIFY_PATH,
  generateTravelTasks,
} from './travel-tasks.js';
export type {
  GenerateTravelTasksOptions,
} from './travel-tasks.js';
