// The pools the shop's harder task families draw from, all derived from the catalog alone: filter
// scenarios in which the constraints matter (cheapest or best-rated item of a category under a
// size and another filter, optionally a price cap), product pairs to compare, products with a
// second orderable size, and seeded customer details for checkouts.
import { fnv1a, mulberry32 } from '@owrl/core';
import {
  shopDefaultVariant,
  type ShopCatalog,
  type ShopCategory,
  type ShopProduct,
  type ShopVariant,
} from './shop-catalog.js';
import { shuffled } from '../shuffle.js';
import { browseShop, shopFacets, SHOP_RATING_STEPS, shopRatingLabel, type ShopListingItem, type ShopFilters } from './shop-listing.js';

/** The second filter of a scenario (besides the size). */
export interface ShopConstraint {
  kind: 'waterproof' | 'brand' | 'color' | 'rating';
  /** The brand, colour or rating option text (`4.0 & up`); `yes` for waterproof. */
  value: string;
  filters: ShopFilters;
}

export interface ShopScenario {
  category: ShopCategory;
  size: string;
  constraint: ShopConstraint;
  /** Price cap in whole dollars (best-rated scenarios only). */
  maxDollars?: number;
  /** What the filtered, sorted listing shows first: the item to buy. */
  target: ShopListingItem;
}

/** A product with a size other than its default in stock (at least 3 units). */
export interface ShopSizedPick {
  product: ShopProduct;
  variant: ShopVariant;
}

export interface ShopCustomer {
  name: string;
  address: string;
  city: string;
  postcode: string;
}

export interface ShopPools {
  /** Cheapest item under a size and one more filter. */
  cheapest: ShopScenario[];
  /** Best-rated item under a size, one more filter and a price cap. */
  rated: ShopScenario[];
  /** Two products of different categories with different ratings, neither featured. */
  pairs: [ShopProduct, ShopProduct][];
  sized: ShopSizedPick[];
  /** Two sized picks of different categories. */
  sizedPairs: [ShopSizedPick, ShopSizedPick][];
  /** Two cheapest-scenarios of different categories and products. */
  scenarioPairs: [ShopScenario, ShopScenario][];
}

/** Most tasks a pooled family offers. */
const POOL_CAP = 40;

function constraintsOf(catalog: ShopCatalog, products: readonly ShopProduct[]): ShopConstraint[] {
  const f = shopFacets(catalog, products);
  const out: ShopConstraint[] = [];
  if (f.waterproof) out.push({ kind: 'waterproof', value: 'yes', filters: { waterproof: true } });
  for (const b of f.brands) out.push({ kind: 'brand', value: b, filters: { brands: [b] } });
  for (const c of f.colors) out.push({ kind: 'color', value: c, filters: { color: c } });
  for (const r of SHOP_RATING_STEPS) out.push({ kind: 'rating', value: shopRatingLabel(r), filters: { minRating: r } });
  return out;
}

const first = (items: readonly ShopListingItem[]): string | undefined => items[0]?.product.id;

// A scenario counts when the sort matters (two or more items, a unique winner) and the filters
// do: the winner is neither the category's overall pick nor the pick under the size alone.

function cheapestScenarios(products: readonly ShopProduct[], category: ShopCategory, size: string, c: ShopConstraint): ShopScenario[] {
  const [a, b] = browseShop(products, { size, ...c.filters }, 'price_asc');
  if (a === undefined || b === undefined || a.priceCents === b.priceCents || a.variant.stock < 3) return [];
  if (first(browseShop(products, { size }, 'price_asc')) === a.product.id) return [];
  if (first(browseShop(products, {}, 'price_asc')) === a.product.id) return [];
  return [{ category, size, constraint: c, target: a }];
}

/**
 * Best-rated under size, filter and a price cap: for each item that is cheaper than every item
 * rated above it, the cap (whole dollars) just below the cheapest of those; a worse-rated item
 * must remain under the cap, and dropping the size or the filter must change the winner.
 */
function ratedScenarios(products: readonly ShopProduct[], category: ShopCategory, size: string, c: ShopConstraint): ShopScenario[] {
  const all = browseShop(products, { size, ...c.filters }, 'rating');
  const out: ShopScenario[] = [];
  all.forEach((t, i) => {
    if (i === 0 || t.variant.stock < 3) return;
    const maxDollars = Math.floor((Math.min(...all.slice(0, i).map((x) => x.priceCents)) - 1) / 100);
    const cap = { maxPriceCents: maxDollars * 100 };
    if (cap.maxPriceCents < t.priceCents) return;
    const [a, b] = browseShop(products, { size, ...c.filters, ...cap }, 'rating');
    if (a?.product.id !== t.product.id || b === undefined || a.product.rating === b.product.rating) return;
    const sizeOnly = first(browseShop(products, { size, ...cap }, 'rating'));
    const filterOnly = first(browseShop(products, { ...c.filters, ...cap }, 'rating'));
    if (sizeOnly === t.product.id && filterOnly === t.product.id) return;
    out.push({ category, size, constraint: c, maxDollars, target: t });
  });
  return out;
}

function scenarios(catalog: ShopCatalog, make: typeof cheapestScenarios): ShopScenario[] {
  const out: ShopScenario[] = [];
  for (const category of catalog.categories) {
    const products = catalog.products.filter((p) => p.category === category.slug);
    for (const size of shopFacets(catalog, products).sizes) {
      for (const c of constraintsOf(catalog, products)) {
        out.push(...make(products, category, size, c));
      }
    }
  }
  // A seeded spread over categories and kinds rather than the first category's scenarios only.
  return shuffled(mulberry32((catalog.seed ^ 0x5ce7a210) >>> 0), out).slice(0, POOL_CAP);
}

/** For each item of `xs`, the first later item (cyclically) that `ok` accepts as its partner. */
function partners<T>(xs: readonly T[], ok: (a: T, b: T) => boolean): [T, T][] {
  const out: [T, T][] = [];
  xs.forEach((a, i) => {
    for (let k = 1; k < xs.length; k++) {
      const b = xs[(i + k) % xs.length] as T;
      if (ok(a, b)) {
        out.push([a, b]);
        return;
      }
    }
  });
  return out.slice(0, POOL_CAP);
}

const poolCache = new WeakMap<ShopCatalog, ShopPools>();

/** The pools of `catalog` (computed once per catalog object). */
export function shopPools(catalog: ShopCatalog): ShopPools {
  const hit = poolCache.get(catalog);
  if (hit !== undefined) return hit;
  const order = shuffled(mulberry32((catalog.seed ^ 0x9a125eed) >>> 0), catalog.products);
  const plain = order.filter((p) => !catalog.featured.includes(p.id));
  const sized = order.flatMap((product): ShopSizedPick[] => {
    const d = shopDefaultVariant(product);
    const variant = product.variants.find((v) => v.code !== d.code && v.stock >= 3);
    return variant === undefined ? [] : [{ product, variant }];
  });
  const cheapest = scenarios(catalog, cheapestScenarios);
  const pools: ShopPools = {
    cheapest,
    rated: scenarios(catalog, ratedScenarios),
    pairs: partners(plain, (a, b) => a.category !== b.category && a.rating !== b.rating),
    sized,
    sizedPairs: partners(sized, (a, b) => a.product.category !== b.product.category),
    scenarioPairs: partners(cheapest, (a, b) => a.category.slug !== b.category.slug && a.target.product.id !== b.target.product.id),
  };
  poolCache.set(catalog, pools);
  return pools;
}

const FIRST = ['Ada', 'Grace', 'Alan', 'Linus', 'Margaret', 'Edsger', 'Barbara', 'Dennis', 'Frances', 'Ken', 'Radia', 'Tim'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Torvalds', 'Hamilton', 'Dijkstra', 'Liskov', 'Ritchie', 'Allen', 'Thompson', 'Perlman', 'Berners'];
const STREETS = ['Elm Street', 'Harbor Road', 'Mill Lane', 'Station Avenue', 'Orchard Way', 'Bridge Street', 'Maple Drive', 'Quarry Hill'];
const CITIES = ['Springfield', 'Riverton', 'Lakeside', 'Fairview', 'Brookfield', 'Ashford', 'Kingsport', 'Millbrook'];

/** Seeded customer details of task `key` (family and index) in a catalog. */
export function shopCustomer(catalog: ShopCatalog, key: string): ShopCustomer {
  const rng = mulberry32(fnv1a(key, (catalog.seed ^ 0xc05701e5) >>> 0));
  const pick = (xs: readonly string[]): string => xs[Math.floor(rng() * xs.length)] as string;
  const name = `${pick(FIRST)} ${pick(LAST)}`;
  const address = `${1 + Math.floor(rng() * 120)} ${pick(STREETS)}`;
  return { name, address, city: pick(CITIES), postcode: String(10000 + Math.floor(rng() * 90000)) };
}
