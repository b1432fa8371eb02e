// The listing pages' GET parameters: filters (size, colour, waterproof, rating, brand, min/max
// price in dollars) and sort, parsed leniently (unknown values are dropped, a price that is not a
// number is reported), and written back into the links that keep them (sort links, "Clear").
import { SHOP_RATING_STEPS, SHOP_SORTS, type ShopCatalog, type ShopFilters, type ShopSort } from '@owrl/tasks/shop';

export interface ListingQuery {
  filters: ShopFilters;
  sort: ShopSort;
  /** Messages about parameters that could not be used (shown on the page). */
  problems: string[];
}

function parsePrice(raw: string | null, label: string, problems: string[]): number | undefined {
  const v = (raw ?? '').trim();
  if (v === '') return undefined;
  const m = /^\$?\s*(\d{1,6}(?:,\d{3})*)(?:\.(\d{1,2}))?$/.exec(v);
  if (m === null) {
    problems.push(`${label} "${v.slice(0, 40)}" is not a price: enter dollars like 80 or 79.50.`);
    return undefined;
  }
  return Number((m[1] ?? '0').replace(/,/g, '')) * 100 + Number((m[2] ?? '0').padEnd(2, '0'));
}

export function parseListingQuery(url: URL, catalog: ShopCatalog): ListingQuery {
  const p = url.searchParams;
  const problems: string[] = [];
  const filters: ShopFilters = {};
  const size = p.get('size') ?? '';
  if (catalog.sizeOrder.includes(size)) filters.size = size;
  const colour = (p.get('colour') ?? '').toLowerCase();
  const known = catalog.products.find((x) => x.color.toLowerCase() === colour);
  if (known !== undefined) filters.color = known.color;
  if (p.get('waterproof') === '1') filters.waterproof = true;
  const rating = Number(p.get('rating') ?? '');
  if (SHOP_RATING_STEPS.includes(rating)) filters.minRating = rating;
  const brands = new Set(catalog.products.map((x) => x.brand));
  const chosen = p.getAll('brand').filter((b) => brands.has(b));
  if (chosen.length > 0) filters.brands = [...new Set(chosen)];
  const min = parsePrice(p.get('min'), 'Min price', problems);
  if (min !== undefined) filters.minPriceCents = min;
  const max = parsePrice(p.get('max'), 'Max price', problems);
  if (max !== undefined) filters.maxPriceCents = max;
  const s = p.get('sort');
  const sort = s !== null && (SHOP_SORTS as readonly string[]).includes(s) ? (s as ShopSort) : 'name';
  return { filters, sort, problems };
}

function dollars(cents: number): string {
  return cents % 100 === 0 ? String(cents / 100) : (cents / 100).toFixed(2);
}

/** The price fields' values as the shopper sees them. */
export function priceValue(cents: number | undefined): string {
  return cents === undefined ? '' : dollars(cents);
}

/** Query string (with `?`, or '') of `filters` plus `extra` (q, sort). */
export function listingSearch(filters: ShopFilters, extra: Record<string, string | undefined> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(extra)) if (v !== undefined && v !== '') p.set(k, v);
  if (filters.size !== undefined) p.set('size', filters.size);
  if (filters.color !== undefined) p.set('colour', filters.color);
  if (filters.waterproof === true) p.set('waterproof', '1');
  if (filters.minRating !== undefined) p.set('rating', String(filters.minRating));
  for (const b of filters.brands ?? []) p.append('brand', b);
  if (filters.minPriceCents !== undefined) p.set('min', dollars(filters.minPriceCents));
  if (filters.maxPriceCents !== undefined) p.set('max', dollars(filters.maxPriceCents));
  const s = p.toString();
  return s === '' ? '' : `?${s}`;
}
