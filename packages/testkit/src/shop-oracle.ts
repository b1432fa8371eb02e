// Independent oracles for the shop tests: the listing and checkout rules as the shop documents
// them (filters, sort orders with their tie-breaks, promo and delivery charges), written again here
// as plainly as possible and without the package's own listing or pricing code, so a test that
// compares the generator or the site against them does not compare that code with itself.
// Structural types (what the oracles read), so the test kit does not depend on @owrl/tasks.

/** A product of the shop catalog, as far as listings read it. */
export interface OracleProduct {
  id: string;
  name: string;
  priceCents: number;
  color: string;
  size: string;
  rating: number;
  brand: string;
  waterproof: boolean;
  variants: readonly { code: string; priceCents: number; stock: number }[];
}

/** The listing filters (all optional). */
export interface OracleFilters {
  size?: string | undefined;
  color?: string | undefined;
  waterproof?: boolean | undefined;
  minRating?: number | undefined;
  brands?: readonly string[] | undefined;
  minPriceCents?: number | undefined;
  maxPriceCents?: number | undefined;
}

/** A promo code. */
export interface OraclePromo {
  kind: 'percent' | 'amount';
  value: number;
  minSubtotalCents: number;
}

export type OracleSort = 'name' | 'price_asc' | 'price_desc' | 'rating';

/** One listed product and the price shown for it. */
export interface OracleRow {
  id: string;
  priceCents: number;
}

/**
 * The listing: with a size filter only products with that size in stock, priced at that size;
 * otherwise priced at their default size. Then colour, waterproof, minimum rating, brands and the
 * price range. Sorted by name; by price (then name); or by rating high to low (then price, name).
 */
export function oracleListing(products: readonly OracleProduct[], f: OracleFilters, sort: OracleSort): OracleRow[] {
  const rows: { id: string; name: string; rating: number; price: number }[] = [];
  for (const p of products) {
    let price: number;
    if (f.size === undefined) {
      price = (p.variants.find((v) => v.code === p.size) ?? p.variants[0])?.priceCents ?? p.priceCents;
    } else {
      const v = p.variants.find((x) => x.code === f.size);
      if (!v || v.stock <= 0) continue;
      price = v.priceCents;
    }
    if (f.color !== undefined && f.color !== p.color) continue;
    if (f.waterproof === true && p.waterproof !== true) continue;
    if (f.minRating !== undefined && !(p.rating >= f.minRating)) continue;
    if (f.brands && f.brands.length > 0 && f.brands.indexOf(p.brand) < 0) continue;
    if (f.minPriceCents !== undefined && price < f.minPriceCents) continue;
    if (f.maxPriceCents !== undefined && price > f.maxPriceCents) continue;
    rows.push({ id: p.id, name: p.name, rating: p.rating, price });
  }
  const byName = (a: { name: string }, b: { name: string }): number => a.name.localeCompare(b.name, 'en');
  rows.sort((a, b) => {
    if (sort === 'price_asc' && a.price !== b.price) return a.price < b.price ? -1 : 1;
    if (sort === 'price_desc' && a.price !== b.price) return a.price > b.price ? -1 : 1;
    if (sort === 'rating') {
      if (a.rating !== b.rating) return a.rating > b.rating ? -1 : 1;
      if (a.price !== b.price) return a.price < b.price ? -1 : 1;
    }
    return byName(a, b);
  });
  return rows.map((r) => ({ id: r.id, priceCents: r.price }));
}

/** Standard delivery: $4.95, free from $100 after the discount. Express: $12.95 always. */
const STANDARD_CENTS = 495;
const STANDARD_FREE_FROM_CENTS = 10_000;
const EXPRESS_CENTS = 1295;

/**
 * The order total in cents: a promo applies from its minimum subtotal on; a percentage rounds the
 * discount down to the cent; a fixed amount never takes more than the subtotal; delivery is charged
 * on what is left after the discount.
 */
export function oracleTotalCents(lines: readonly { unitCents: number; qty: number }[], promo: OraclePromo | undefined, delivery: 'standard' | 'express'): number {
  let subtotal = 0;
  for (const l of lines) subtotal += l.unitCents * l.qty;
  let discount = 0;
  if (promo && subtotal >= promo.minSubtotalCents) discount = promo.kind === 'percent' ? Math.floor((subtotal * promo.value) / 100) : Math.min(promo.value, subtotal);
  const after = subtotal - discount;
  const shipping = delivery === 'express' ? EXPRESS_CENTS : after >= STANDARD_FREE_FROM_CENTS ? 0 : STANDARD_CENTS;
  return after + shipping;
}

/** `123456` → `$1,234.56`. */
export function oracleDollars(cents: number): string {
  const dollars = String(Math.floor(cents / 100)).replace(/\B(?=(\d{3})+$)/g, ',');
  return `$${dollars}.${String(cents % 100).padStart(2, '0')}`;
}
