// Tasks of owrl: the bundled shop's catalog and seeded task generator, JSONL task files with
// validation, episode sessions on the bundled sites, and pure verifier logic. No I/O beyond files.
// The index names the package's API explicitly; tests reach other names through their modules.
export { isTaskError, TaskError, TaskErrorCode } from './errors.js';
export { buildShopCatalog, DEFAULT_CATALOG_SEED, findCategory, findShopVariant, formatPrice, listCategory, parseShopLineKey, searchProducts, SHOP_SORTS, type ShopCatalog, shopDefaultVariant, shopLineKey, type ShopProduct, type ShopPromo, type ShopSort, type ShopVariant } from './shop-catalog.js';
export { generateShopTasks, SHOP_FAMILIES } from './shop-tasks.js';
export { browseShop, hasShopFilters, SHOP_RATING_STEPS, shopFacets, type ShopFilters, type ShopListingItem, shopRatingLabel } from './shop-listing.js';
export { findShopDelivery, findShopPromo, priceShopOrder, SHOP_DEFAULT_DELIVERY, SHOP_DELIVERY_OPTIONS, type ShopDeliveryId, type ShopOrder, type ShopOrderTotals, shopPromoProblem, shopPromoText } from './shop-checkout.js';
export { type TaskIssue, validateTask } from './task-validate.js';
export { assertValidTask, formatTaskFile, formatTaskLine, parseTaskFile, parseTaskLine, readTaskFile, writeTaskFile } from './task-file.js';
export { splitJsonRecords } from './json-records.js';
export { BENCHMARK_FORMATS, type BenchmarkFormat, DEFAULT_IMPORT_DIFFICULTY, importBenchmarkRecord, importBenchmarkText, type ImportedTask, type ImportIssue, type ImportOptions, type ImportResult, type ImportSummary, slug } from './benchmark-import.js';
export { isValidSessionId, SESSION_COOKIE, SESSION_PARAM, withSession } from './session.js';
export { type CartSpec, checkShopState, parseCartSpec, type VerifyResult } from './verify.js';
export { generateSuiteTasks, getSuite, suiteNames, SUITES } from './suites.js';
export { airlineByCode, buildTravelData, type Cabin, CABIN_LABELS, CABINS, calendarDayName, checkTravel, cityByCode, cityLabel, DEFAULT_TRAVEL_SORT, filterFlights, findFlight, flightsOn, formatFare, formatFlightDuration, formatFlightTime, formatStops, formatTravelDay, generateTravelTasks, isCabin, isIsoDay, isTravelDate, isTravelSort, makeBooking, parseTravelSpec, presetBookings, resolveCity, sortFlights, STOP_LABELS, TRAVEL_ACCOUNT, TRAVEL_AIRLINES, TRAVEL_CITIES, TRAVEL_FAMILIES, TRAVEL_FIRST_DATE, TRAVEL_LAST_DATE, TRAVEL_SORT_LABELS, TRAVEL_SORTS, type TravelAirline, type TravelBooking, type TravelCity, type TravelData, type TravelFilter, type TravelFlight, type TravelSort, type TravelSpec, travelSpecJson } from './travel/index.js';
export { buildMailData, checkMailbox, formatMailRecipients, generateMailTasks, listMailView, MAIL_FAMILIES, MAIL_LABELS, MAIL_ME, MAIL_PAGE_SIZE, type MailAddress, type MailboxState, type MailData, mailEntry, type MailEntry, type MailFolder, mailForwardSubject, mailLongDate, type MailMessage, mailReplyAddressing, mailShortDate, mailSnippet, mailSpecJson, newMailboxState, parseMailLabel, parseMailRecipients, parseMailSpec, searchMail, sendMail } from './mail/index.js';
export { buildWiki, cellText, checkReadingList, findColumn, findList, generateWikiTasks, listOfKind, parseReadingListSpec, type ReadingListSpec, searchWiki, type Segment, sortedRows, WIKI_FAMILIES, WIKI_LISTS, type WikiArticle, type WikiCategory, type WikiColumnKey, type WikiData, type WikiFact, type WikiList, type WikiSearchHit, type WikiSortOrder } from './wiki/index.js';
export { DEFAULT_DATA_SEED, type SuiteDef, type SuiteFamilyInfo, type SuiteGenerateOptions } from './suite-options.js';
