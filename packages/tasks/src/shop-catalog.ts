// Deterministic product catalog of the bundled shop: 5 categories × 8 products built from a seed
// (mulberry32), plus the pure listing, sorting and search rules that both the site and the task
// generator rely on (so "the cheapest item" means the same thing to both).
import { mulberry32, type Rng } from '@owrl/core';
import { TaskError, TaskErrorCode } from './errors.js';

/** Catalog seed the sites server and the task generator use when none is given. */
export const DEFAULT_CATALOG_SEED = 1;

export const PRODUCTS_PER_CATEGORY = 8;

export interface ShopCategory {
  /** URL slug, e.g. `kitchen` (`/shop/c/kitchen`). */
  slug: string;
  /** Display name, e.g. `Kitchen`. */
  name: string;
  /** Two-letter SKU prefix, e.g. `KT`. */
  skuPrefix: string;
}

export interface ShopProduct {
  /** Short slug, unique in the catalog, e.g. `blue-ceramic-mug` (`/shop/p/blue-ceramic-mug`). */
  id: string;
  /** 2–3 words, unique in the catalog, e.g. `Blue Ceramic Mug`. */
  name: string;
  /** Category slug. */
  category: string;
  /** Price in cents (integer). */
  priceCents: number;
  /** e.g. `KT-4821`, unique in the catalog. */
  sku: string;
  color: string;
  material: string;
  size: string;
  /** 2.5–5.0, one decimal. */
  rating: number;
  /** Units in stock, 5–60 (enough for any quantity task). */
  stock: number;
}

export interface ShopCatalog {
  seed: number;
  categories: readonly ShopCategory[];
  /** All products, grouped by category in category order. */
  products: readonly ShopProduct[];
  /** Ids of the products featured on the home page. */
  featured: readonly string[];
  byId: ReadonlyMap<string, ShopProduct>;
}

export type ShopSort = 'name' | 'price_asc' | 'price_desc';
export const SHOP_SORTS: readonly ShopSort[] = ['name', 'price_asc', 'price_desc'];

interface CategoryPlan extends ShopCategory {
  nouns: readonly string[];
  materials: readonly string[];
  sizes: readonly string[];
  /** Price range in whole dollars. */
  minPrice: number;
  maxPrice: number;
}

// Nouns never repeat across categories, so a product name is identified by its noun alone: a
// quoted name in an instruction overlaps exactly one card on the site.
const PLANS: readonly CategoryPlan[] = [
  {
    slug: 'kitchen', name: 'Kitchen', skuPrefix: 'KT',
    nouns: ['Mug', 'Teapot', 'Skillet', 'Colander', 'Whisk', 'Ladle', 'Kettle', 'Spatula', 'Grater', 'Saucepan', 'Tumbler', 'Cleaver'],
    materials: ['Ceramic', 'Steel', 'Copper', 'Bamboo', 'Glass', 'Enamel'],
    sizes: ['Small', 'Medium', 'Large'],
    minPrice: 4, maxPrice: 120,
  },
  {
    slug: 'outdoor', name: 'Outdoor', skuPrefix: 'OD',
    nouns: ['Tent', 'Lantern', 'Hammock', 'Backpack', 'Canteen', 'Compass', 'Tarp', 'Poncho', 'Trowel', 'Cooler', 'Binoculars', 'Hatchet'],
    materials: ['Nylon', 'Canvas', 'Aluminum', 'Waxed', 'Rubber', 'Titanium'],
    sizes: ['Compact', 'Standard', 'Family'],
    minPrice: 9, maxPrice: 450,
  },
  {
    slug: 'office', name: 'Office', skuPrefix: 'OF',
    nouns: ['Stapler', 'Notebook', 'Binder', 'Planner', 'Pen', 'Marker', 'Clipboard', 'Organizer', 'Ruler', 'Calculator', 'Folder', 'Easel'],
    materials: ['Leather', 'Metal', 'Recycled', 'Oak', 'Walnut', 'Cork'],
    sizes: ['A5', 'A4', 'Letter'],
    minPrice: 2, maxPrice: 90,
  },
  {
    slug: 'toys', name: 'Toys', skuPrefix: 'TY',
    nouns: ['Robot', 'Kite', 'Puzzle', 'Yoyo', 'Train', 'Dinosaur', 'Blocks', 'Marbles', 'Rocket', 'Spinner', 'Glider', 'Drum'],
    materials: ['Wooden', 'Plush', 'Foam', 'Tin', 'Felt', 'Magnetic'],
    sizes: ['Mini', 'Classic', 'Jumbo'],
    minPrice: 3, maxPrice: 80,
  },
  {
    slug: 'audio', name: 'Audio', skuPrefix: 'AU',
    nouns: ['Headphones', 'Speaker', 'Earbuds', 'Turntable', 'Microphone', 'Amplifier', 'Radio', 'Soundbar', 'Subwoofer', 'Receiver', 'Mixer', 'Metronome'],
    materials: ['Wireless', 'Studio', 'Portable', 'Vintage', 'Acoustic', 'Digital'],
    sizes: ['Compact', 'Desktop', 'Tower'],
    minPrice: 15, maxPrice: 1400,
  },
];

const COLORS = ['Blue', 'Red', 'Green', 'Amber', 'Black', 'White', 'Silver', 'Coral', 'Teal', 'Violet', 'Orange', 'Olive', 'Navy', 'Ivory', 'Crimson'];

const FEATURED_COUNT = 4;

function pick<T>(rng: Rng, xs: readonly T[]): T {
  const x = xs[Math.floor(rng() * xs.length)];
  if (x === undefined) throw new Error('pick from an empty list');
  return x;
}

/** Fisher–Yates shuffle of a copy, driven by `rng`. */
export function shuffled<T>(rng: Rng, xs: readonly T[]): T[] {
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const a = out[i] as T;
    out[i] = out[j] as T;
    out[j] = a;
  }
  return out;
}

function slugify(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/**
 * Builds the shop catalog for `seed` (any 32-bit integer). Same seed → identical catalog.
 * Prices are distinct within a category, so "the cheapest item" is unambiguous.
 */
export function buildShopCatalog(seed: number = DEFAULT_CATALOG_SEED): ShopCatalog {
  if (!Number.isInteger(seed)) {
    throw new TaskError(TaskErrorCode.BadArgument, `catalog seed ${String(seed)} must be an integer`, { field: 'seed' });
  }
  const rng = mulberry32(seed ^ 0x5eed5eed);
  const products: ShopProduct[] = [];
  const skus = new Set<string>();
  for (const plan of PLANS) {
    const nouns = shuffled(rng, plan.nouns).slice(0, PRODUCTS_PER_CATEGORY);
    const prices = new Set<number>();
    for (const noun of nouns) {
      const color = pick(rng, COLORS);
      const material = pick(rng, plan.materials);
      const withMaterial = rng() < 0.6;
      const name = withMaterial ? `${color} ${material} ${noun}` : `${color} ${noun}`;
      let priceCents: number;
      do {
        const dollars = plan.minPrice + Math.floor(rng() * (plan.maxPrice - plan.minPrice + 1));
        const cents = pick(rng, [0, 50, 95, 99, 25, 75]);
        priceCents = dollars * 100 + cents;
      } while (prices.has(priceCents));
      prices.add(priceCents);
      let sku: string;
      do {
        sku = `${plan.skuPrefix}-${1000 + Math.floor(rng() * 9000)}`;
      } while (skus.has(sku));
      skus.add(sku);
      products.push({
        id: slugify(name),
        name,
        category: plan.slug,
        priceCents,
        sku,
        color,
        material,
        size: pick(rng, plan.sizes),
        rating: Math.round((2.5 + rng() * 2.5) * 10) / 10,
        stock: 5 + Math.floor(rng() * 56),
      });
    }
  }
  const featured = shuffled(rng, products).slice(0, FEATURED_COUNT).map((p) => p.id);
  const categories = PLANS.map(({ slug, name, skuPrefix }) => ({ slug, name, skuPrefix }));
  return { seed, categories, products, featured, byId: new Map(products.map((p) => [p.id, p])) };
}

/** `1249.5` dollars as cents → `"$1,249.50"`. */
export function formatPrice(priceCents: number): string {
  const dollars = Math.floor(priceCents / 100);
  const cents = priceCents % 100;
  return `$${dollars.toLocaleString('en-US')}.${String(cents).padStart(2, '0')}`;
}

export function findCategory(catalog: ShopCatalog, slug: string): ShopCategory | undefined {
  return catalog.categories.find((c) => c.slug === slug);
}

/** Products of a category in the order the category page lists them. */
export function listCategory(catalog: ShopCatalog, slug: string, sort: ShopSort = 'name'): ShopProduct[] {
  const items = catalog.products.filter((p) => p.category === slug);
  switch (sort) {
    case 'name':
      return items.sort((a, b) => a.name.localeCompare(b.name, 'en'));
    case 'price_asc':
      return items.sort((a, b) => a.priceCents - b.priceCents);
    case 'price_desc':
      return items.sort((a, b) => b.priceCents - a.priceCents);
  }
}

function tokens(s: string): string[] {
  return s.toLowerCase().split(/[^a-z0-9]+/).filter((t) => t.length > 0);
}

/**
 * Search as the site runs it: every query token must occur in the product's name, category,
 * color or material; exact name matches come first, then by name. An empty query finds nothing.
 */
export function searchProducts(catalog: ShopCatalog, query: string): ShopProduct[] {
  const q = tokens(query);
  if (q.length === 0) return [];
  const exact = q.join(' ');
  const hits = catalog.products.filter((p) => {
    const hay = new Set(tokens(`${p.name} ${p.category} ${p.color} ${p.material}`));
    return q.every((t) => hay.has(t));
  });
  return hits.sort((a, b) => {
    const ea = tokens(a.name).join(' ') === exact ? 0 : 1;
    const eb = tokens(b.name).join(' ') === exact ? 0 : 1;
    return ea - eb || a.name.localeCompare(b.name, 'en');
  });
}
