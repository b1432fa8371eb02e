// Deterministic product catalog of the bundled shop: 6 categories × 8 products with brands,
// attributes and size variants (own SKU, price and stock), plus seeded promo codes, all built from
// a seed (mulberry32); and the sorting and search rules that both the site and the task generator
// rely on (so "the cheapest item" means the same thing to both).
import { mulberry32, type Rng } from '@owrl/core';
import { TaskError, TaskErrorCode } from '../errors.js';
import { shuffled } from '../shuffle.js';

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

/** One orderable variant of a product: a size with its own SKU, price and stock. */
export interface ShopVariant {
  /** Size code shown in the picker, e.g. `M` or `Large`; unique within the product. */
  code: string;
  /** e.g. `CL-4821` for the default variant, `CL-4821-XL` for the others. */
  sku: string;
  /** Price in cents (the default variant's is the product's, the lowest). */
  priceCents: number;
  /** Units in stock; 0 = sold out (never for the default variant). */
  stock: number;
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
  /** Code of the default variant (the one added when no size is chosen). */
  size: string;
  /** 2.5–5.0, one decimal. */
  rating: number;
  /** Units of the default variant in stock, 5–60 (enough for any quantity task). */
  stock: number;
  brand: string;
  waterproof: boolean;
  /** Number of customer reviews behind the rating. */
  reviews: number;
  /** Size variants in size order; exactly one has `code === size` (the default). */
  variants: readonly ShopVariant[];
}

/** A promo code the checkout accepts: a percentage or a fixed amount off the subtotal. */
export interface ShopPromo {
  code: string;
  kind: 'percent' | 'amount';
  /** Percent (10 = 10 %) or cents off. */
  value: number;
  /** Smallest subtotal (cents) the code applies to; 0 = any. */
  minSubtotalCents: number;
}

export interface ShopCatalog {
  seed: number;
  categories: readonly ShopCategory[];
  /** All products, grouped by category in category order. */
  products: readonly ShopProduct[];
  /** Ids of the products featured on the home page. */
  featured: readonly string[];
  byId: ReadonlyMap<string, ShopProduct>;
  /** Promo codes the checkout accepts. */
  promos: readonly ShopPromo[];
  /** Every size code in display order (XS–XL first, then the other categories' sizes). */
  sizeOrder: readonly string[];
}

export type ShopSort = 'name' | 'price_asc' | 'price_desc' | 'rating';
export const SHOP_SORTS: readonly ShopSort[] = ['name', 'price_asc', 'price_desc', 'rating'];

interface CategoryPlan extends ShopCategory {
  nouns: readonly string[];
  materials: readonly string[];
  sizes: readonly string[];
  /** Price range in whole dollars. */
  minPrice: number;
  maxPrice: number;
  brands: readonly string[];
  /** Share of products that are waterproof. */
  waterproofShare: number;
}

/** Sizes of the clothing category; its products default to M. */
export const CLOTHING_SIZES: readonly string[] = ['XS', 'S', 'M', 'L', 'XL'];

// Nouns never repeat across categories, so a product name is identified by its noun alone: a
// quoted name in an instruction overlaps exactly one card on the site.
const PLANS: readonly CategoryPlan[] = [
  {
    slug: 'kitchen', name: 'Kitchen', skuPrefix: 'KT',
    nouns: ['Mug', 'Teapot', 'Skillet', 'Colander', 'Whisk', 'Ladle', 'Kettle', 'Spatula', 'Grater', 'Saucepan', 'Tumbler', 'Cleaver'],
    materials: ['Ceramic', 'Steel', 'Copper', 'Bamboo', 'Glass', 'Enamel'],
    sizes: ['Small', 'Medium', 'Large'],
    minPrice: 4, maxPrice: 120,
    brands: ['Hearthline', 'Larkspur', 'Pantrix'], waterproofShare: 0,
  },
  {
    slug: 'outdoor', name: 'Outdoor', skuPrefix: 'OD',
    nouns: ['Tent', 'Lantern', 'Hammock', 'Backpack', 'Canteen', 'Compass', 'Tarp', 'Poncho', 'Trowel', 'Cooler', 'Binoculars', 'Hatchet'],
    materials: ['Nylon', 'Canvas', 'Aluminum', 'Waxed', 'Rubber', 'Titanium'],
    sizes: ['Compact', 'Standard', 'Family'],
    minPrice: 9, maxPrice: 450,
    brands: ['Trailcraft', 'Northpeak', 'Ridgeway'], waterproofShare: 0.5,
  },
  {
    slug: 'office', name: 'Office', skuPrefix: 'OF',
    nouns: ['Stapler', 'Notebook', 'Binder', 'Planner', 'Pen', 'Marker', 'Clipboard', 'Organizer', 'Ruler', 'Calculator', 'Folder', 'Easel'],
    materials: ['Leather', 'Metal', 'Recycled', 'Oak', 'Walnut', 'Cork'],
    sizes: ['A5', 'A4', 'Letter'],
    minPrice: 2, maxPrice: 90,
    brands: ['Deskwell', 'Inkpress', 'Paperhaus'], waterproofShare: 0,
  },
  {
    slug: 'toys', name: 'Toys', skuPrefix: 'TY',
    nouns: ['Robot', 'Kite', 'Puzzle', 'Yoyo', 'Train', 'Dinosaur', 'Blocks', 'Marbles', 'Rocket', 'Spinner', 'Glider', 'Drum'],
    materials: ['Wooden', 'Plush', 'Foam', 'Tin', 'Felt', 'Magnetic'],
    sizes: ['Mini', 'Classic', 'Jumbo'],
    minPrice: 3, maxPrice: 80,
    brands: ['Wondery', 'Playmoor', 'Tinkertop'], waterproofShare: 0,
  },
  {
    slug: 'audio', name: 'Audio', skuPrefix: 'AU',
    nouns: ['Headphones', 'Speaker', 'Earbuds', 'Turntable', 'Microphone', 'Amplifier', 'Radio', 'Soundbar', 'Subwoofer', 'Receiver', 'Mixer', 'Metronome'],
    materials: ['Wireless', 'Studio', 'Portable', 'Vintage', 'Acoustic', 'Digital'],
    sizes: ['Compact', 'Desktop', 'Tower'],
    minPrice: 15, maxPrice: 1400,
    brands: ['Sonorum', 'Bassline', 'Auralux'], waterproofShare: 0.3,
  },
  // Last, so the products of the categories above are the same as before clothing existed.
  {
    slug: 'clothing', name: 'Clothing', skuPrefix: 'CL',
    nouns: ['Jacket', 'Raincoat', 'Hoodie', 'Sweater', 'Parka', 'Vest', 'Shirt', 'Windbreaker', 'Cardigan', 'Anorak', 'Blazer', 'Trousers'],
    materials: ['Cotton', 'Wool', 'Linen', 'Denim', 'Softshell', 'Merino'],
    sizes: CLOTHING_SIZES,
    minPrice: 12, maxPrice: 220,
    brands: ['Kestrel', 'Harbour', 'Fieldstone'], waterproofShare: 0.5,
  },
];

const COLORS = ['Blue', 'Red', 'Green', 'Amber', 'Black', 'White', 'Silver', 'Coral', 'Teal', 'Violet', 'Orange', 'Olive', 'Navy', 'Ivory', 'Crimson'];

const FEATURED_COUNT = 4;

function pick<T>(rng: Rng, xs: readonly T[]): T {
  const x = xs[Math.floor(rng() * xs.length)];
  if (x === undefined) throw new Error('pick from an empty list');
  return x;
}

function slugify(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

type BaseProduct = Omit<ShopProduct, 'brand' | 'waterproof' | 'reviews' | 'variants'>;

const PROMO_WORDS = ['SPRING', 'HARVEST', 'WELCOME', 'MEADOW', 'FROST', 'HARBOR'];

/** Short SKU suffix of a size code: `XL` → `XL`, `Family` → `FAM`. */
function sizeSuffix(code: string): string {
  return code.toUpperCase().slice(0, 3);
}

/**
 * Variants of a product: clothing in a run of XS–XL around M (XL costs a little more), other
 * categories from the product's size up to the largest of the plan, each larger size dearer. The
 * default variant is always in stock and the cheapest; others may be sold out.
 */
function variantsOf(rng: Rng, plan: CategoryPlan, p: BaseProduct): { size: string; variants: ShopVariant[] } {
  const clothing = plan.sizes === CLOTHING_SIZES;
  const lo = clothing ? Math.floor(rng() * 2) : plan.sizes.indexOf(p.size);
  const hi = clothing ? 3 + Math.floor(rng() * 2) : plan.sizes.length - 1;
  const size = clothing ? 'M' : p.size;
  const xlDelta = 200 + 100 * Math.floor(rng() * 4);
  const step = Math.max(100, Math.round((p.priceCents * 0.15) / 50) * 50);
  const variants: ShopVariant[] = [];
  for (let i = lo; i <= hi; i++) {
    const code = plan.sizes[i] as string;
    const soldOut = rng() < 0.25;
    const otherStock = 3 + Math.floor(rng() * 30);
    if (code === size) {
      variants.push({ code, sku: p.sku, priceCents: p.priceCents, stock: p.stock });
      continue;
    }
    const delta = clothing ? (code === 'XL' ? xlDelta : 0) : step * (i - lo);
    variants.push({ code, sku: `${p.sku}-${sizeSuffix(code)}`, priceCents: p.priceCents + delta, stock: soldOut ? 0 : otherStock });
  }
  return { size, variants };
}

function promosOf(rng: Rng): ShopPromo[] {
  const [a, b, c] = shuffled(rng, PROMO_WORDS);
  return [
    { code: `${a ?? 'SPRING'}10`, kind: 'percent', value: 10, minSubtotalCents: 0 },
    { code: `${b ?? 'HARVEST'}15`, kind: 'percent', value: 15, minSubtotalCents: 6000 },
    { code: `${c ?? 'WELCOME'}5`, kind: 'amount', value: 500, minSubtotalCents: 2500 },
  ];
}

/**
 * Builds the shop catalog for `seed` (any 32-bit integer). Same seed → identical catalog.
 * Prices are distinct within a category, so "the cheapest item" is unambiguous. Names, prices,
 * SKUs, ratings and stock of the first five categories come from the same stream as before the
 * catalog had clothing, brands and variants; those come from a second stream.
 */
export function buildShopCatalog(seed: number = DEFAULT_CATALOG_SEED): ShopCatalog {
  if (!Number.isInteger(seed)) {
    throw new TaskError(TaskErrorCode.BadArgument, `catalog seed ${String(seed)} must be an integer`, { field: 'seed' });
  }
  const rng = mulberry32(seed ^ 0x5eed5eed);
  const base: { plan: CategoryPlan; p: BaseProduct }[] = [];
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
      base.push({
        plan,
        p: {
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
        },
      });
    }
  }
  const extra = mulberry32((seed ^ 0x0a77b175) >>> 0);
  const products: ShopProduct[] = base.map(({ plan, p }) => {
    const brand = pick(extra, plan.brands);
    const waterproof = extra() < plan.waterproofShare;
    const reviews = 3 + Math.floor(extra() * 240);
    const { size, variants } = variantsOf(extra, plan, p);
    return { ...p, size, brand, waterproof, reviews, variants };
  });
  const featured = shuffled(rng, products).slice(0, FEATURED_COUNT).map((p) => p.id);
  const categories = PLANS.map(({ slug, name, skuPrefix }) => ({ slug, name, skuPrefix }));
  const sizeOrder = [...new Set(PLANS.flatMap((p) => (p.sizes === CLOTHING_SIZES ? [] : p.sizes)))];
  return {
    seed,
    categories,
    products,
    featured,
    byId: new Map(products.map((p) => [p.id, p])),
    promos: promosOf(extra),
    sizeOrder: [...CLOTHING_SIZES, ...sizeOrder],
  };
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

/** The variant added when no size is chosen. */
export function shopDefaultVariant(p: ShopProduct): ShopVariant {
  return p.variants.find((v) => v.code === p.size) ?? (p.variants[0] as ShopVariant);
}

export function findShopVariant(p: ShopProduct, code: string): ShopVariant | undefined {
  return p.variants.find((v) => v.code === code);
}

/** Key of a cart line: `<product id>:<size code>`. */
export function shopLineKey(id: string, code: string): string {
  return `${id}:${code}`;
}

/** `mug:Large` → `{id: 'mug', code: 'Large'}`; a bare id has code ''. */
export function parseShopLineKey(key: string): { id: string; code: string } {
  const i = key.indexOf(':');
  return i < 0 ? { id: key, code: '' } : { id: key.slice(0, i), code: key.slice(i + 1) };
}

/** Item order of a listing: by name, by price either way, or best rated first (then cheapest). */
export function compareShopItems(sort: ShopSort, a: { name: string; rating: number; priceCents: number }, b: typeof a): number {
  const byName = a.name.localeCompare(b.name, 'en');
  switch (sort) {
    case 'name':
      return byName;
    case 'price_asc':
      return a.priceCents - b.priceCents || byName;
    case 'price_desc':
      return b.priceCents - a.priceCents || byName;
    case 'rating':
      return b.rating - a.rating || a.priceCents - b.priceCents || byName;
  }
}

/** Products of a category in the order the category page lists them (no filters). */
export function listCategory(catalog: ShopCatalog, slug: string, sort: ShopSort = 'name'): ShopProduct[] {
  return catalog.products.filter((p) => p.category === slug).sort((a, b) => compareShopItems(sort, a, b));
}

function tokens(s: string): string[] {
  return s.toLowerCase().split(/[^a-z0-9]+/).filter((t) => t.length > 0);
}

/**
 * Search as the site runs it: every query token must occur in the product's name, category,
 * color, material or brand; exact name matches come first, then by name. An empty query finds
 * nothing.
 */
export function searchProducts(catalog: ShopCatalog, query: string): ShopProduct[] {
  const q = tokens(query);
  if (q.length === 0) return [];
  const exact = q.join(' ');
  const hits = catalog.products.filter((p) => {
    const hay = new Set(tokens(`${p.name} ${p.category} ${p.color} ${p.material} ${p.brand}`));
    return q.every((t) => hay.has(t));
  });
  return hits.sort((a, b) => {
    const ea = tokens(a.name).join(' ') === exact ? 0 : 1;
    const eb = tokens(b.name).join(' ') === exact ? 0 : 1;
    return ea - eb || a.name.localeCompare(b.name, 'en');
  });
}
