// Seeded task generator of the bundled shop (suite `shop`). Every task is fully determined by the
// catalog seed, its family and an index (product or category index), which is what its id
// `shop/<family>/<nnnn>` encodes; the task seed only chooses which tasks are drawn and in what
// order. `difficulty` is the number of policy steps of the intended shortest solution, where one
// step is one pick of the built-in policy (a click, a write optionally followed by Enter, done).
import { mulberry32 } from '@owrl/core';
import { make, TaskSchema, type Task, type Verifier, VerifierSchema } from '@owrl/proto';
import { TaskError, TaskErrorCode } from './errors.js';
import {
  buildShopCatalog,
  DEFAULT_CATALOG_SEED,
  formatPrice,
  listCategory,
  shuffled,
  type ShopCatalog,
  type ShopCategory,
  type ShopProduct,
} from './shop-catalog.js';
import { cartSpecJson } from './verify.js';

export const SHOP_SUITE = 'shop';
export const SHOP_SITE = 'shop';
/** Path of the shop's site-state verifier, relative to the site origin. */
export const SHOP_VERIFY_PATH = '/__owrl/verify';

export type ShopFamilyName =
  | 'price'
  | 'sku'
  | 'add_to_cart'
  | 'search_sku'
  | 'add_qty'
  | 'search_add'
  | 'cheapest_in_category'
  | 'cheapest_qty';

export interface ShopFamily {
  name: ShopFamilyName;
  /** Policy steps of the intended shortest solution (see `route`). */
  difficulty: number;
  /** Page the episode starts on. */
  start: 'category' | 'home';
  /** What the verifier checks: the done() answer, or the session's cart. */
  check: 'answer' | 'cart';
  /** Tasks are drawn per product or per category. */
  per: 'product' | 'category';
  /** The intended solution, one entry per step. */
  route: readonly string[];
}

export const SHOP_FAMILIES: readonly ShopFamily[] = [
  { name: 'price', difficulty: 1, start: 'category', check: 'answer', per: 'product', route: ['done(price)'] },
  { name: 'sku', difficulty: 2, start: 'category', check: 'answer', per: 'product', route: ['click product', 'done(sku)'] },
  {
    name: 'add_to_cart', difficulty: 3, start: 'category', check: 'cart', per: 'product',
    route: ['click product', 'click "Add to cart"', 'done'],
  },
  {
    name: 'search_sku', difficulty: 3, start: 'home', check: 'answer', per: 'product',
    route: ['write name into "Search products" + Enter', 'click product', 'done(sku)'],
  },
  {
    // The quantity field does not submit on Enter, so the click on "Add to cart" is needed.
    name: 'add_qty', difficulty: 4, start: 'category', check: 'cart', per: 'product',
    route: ['click product', 'write qty into "Quantity"', 'click "Add to cart"', 'done'],
  },
  {
    name: 'search_add', difficulty: 4, start: 'home', check: 'cart', per: 'product',
    route: ['write name into "Search products" + Enter', 'click product', 'click "Add to cart"', 'done'],
  },
  {
    // Clicking the cheapest card directly (4 steps) needs price comparison; the route sorts.
    name: 'cheapest_in_category', difficulty: 5, start: 'home', check: 'cart', per: 'category',
    route: ['click category', 'click "Price: low to high"', 'click first product', 'click "Add to cart"', 'done'],
  },
  {
    name: 'cheapest_qty', difficulty: 6, start: 'home', check: 'cart', per: 'category',
    route: ['click category', 'click "Price: low to high"', 'click first product', 'write qty into "Quantity"', 'click "Add to cart"', 'done'],
  },
];

export interface GenerateShopTasksOptions {
  /** Task seed: which tasks are drawn and their order. Integer. */
  seed: number;
  /** Number of tasks (≥ 0). At most the number of distinct tasks of the selected families. */
  n: number;
  /** Origin of the sites server, e.g. `http://127.0.0.1:8400` (a trailing slash is ignored). */
  baseUrl: string;
  /** Keep only families with these difficulties; all families when absent or empty. */
  difficulties?: readonly number[] | undefined;
  /** Keep only these families (combined with `difficulties`). */
  families?: readonly ShopFamilyName[] | undefined;
  /** Seed of the catalog the site serves; must equal the server's. Default {@link DEFAULT_CATALOG_SEED}. */
  catalogSeed?: number | undefined;
}

/** Instruction text of a family; product names and categories are in double quotes. */
function instructionFor(family: ShopFamilyName, product: ShopProduct, category: ShopCategory, qty: number): string {
  switch (family) {
    case 'price':
      return `What is the price of "${product.name}"?`;
    case 'sku':
      return `What is the SKU of "${product.name}"?`;
    case 'add_to_cart':
      return `Add "${product.name}" to the cart.`;
    case 'search_sku':
      return `Search for "${product.name}" and report its SKU.`;
    case 'add_qty':
      return `Add ${qty} of "${product.name}" to the cart.`;
    case 'search_add':
      return `Search for "${product.name}" and add it to the cart.`;
    case 'cheapest_in_category':
      return `Add the cheapest item in the "${category.name}" category to the cart.`;
    case 'cheapest_qty':
      return `Add ${qty} of the cheapest item in the "${category.name}" category to the cart.`;
  }
}

function normalizeBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw new TaskError(TaskErrorCode.BadArgument, `baseUrl ${JSON.stringify(baseUrl)} is not a URL`, { cause, field: 'baseUrl' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TaskError(TaskErrorCode.BadArgument, `baseUrl ${JSON.stringify(baseUrl)} must be http(s)`, { field: 'baseUrl' });
  }
  return url.toString().replace(/\/+$/, '');
}

/** Families selected by the options, in {@link SHOP_FAMILIES} order. */
export function selectShopFamilies(opts: Pick<GenerateShopTasksOptions, 'difficulties' | 'families'>): ShopFamily[] {
  const diffs = opts.difficulties ?? [];
  for (const d of diffs) {
    if (!Number.isInteger(d) || d < 1) {
      throw new TaskError(TaskErrorCode.BadArgument, `difficulty ${String(d)} must be a positive integer`, { field: 'difficulties' });
    }
  }
  const names = opts.families ?? [];
  for (const f of names) {
    if (!SHOP_FAMILIES.some((x) => x.name === f)) {
      const known = SHOP_FAMILIES.map((x) => x.name).join(', ');
      throw new TaskError(TaskErrorCode.BadArgument, `family ${JSON.stringify(f)} is not a shop family (${known})`, { field: 'families' });
    }
  }
  const out = SHOP_FAMILIES.filter((f) => (diffs.length === 0 || diffs.includes(f.difficulty)) && (names.length === 0 || names.includes(f.name)));
  if (out.length === 0) {
    const have = [...new Set(SHOP_FAMILIES.map((f) => f.difficulty))].join(',');
    throw new TaskError(
      TaskErrorCode.BadArgument,
      `no shop family has difficulty in [${diffs.join(',')}]${names.length > 0 ? ` among [${names.join(',')}]` : ''} (difficulties: ${have})`,
      { field: 'difficulties' },
    );
  }
  return out;
}

/** Number of distinct tasks a family has in a catalog. */
function familySize(family: ShopFamily, catalog: ShopCatalog): number {
  return family.per === 'product' ? catalog.products.length : catalog.categories.length;
}

/**
 * Builds one task: `index` is the product index (per-product families) or category index.
 * @throws TaskError TASK_BAD_ARGUMENT for an index out of range.
 */
export function buildShopTask(
  catalog: ShopCatalog,
  family: ShopFamily,
  index: number,
  baseUrl: string,
  seed: number,
): Task {
  const base = normalizeBaseUrl(baseUrl);
  if (!Number.isInteger(index) || index < 0 || index >= familySize(family, catalog)) {
    throw new TaskError(TaskErrorCode.BadArgument, `task index ${index} is out of range for family ${family.name}`, { field: 'index' });
  }
  let category: ShopCategory;
  let product: ShopProduct;
  if (family.per === 'product') {
    product = catalog.products[index] as ShopProduct;
    category = catalog.categories.find((c) => c.slug === product.category) as ShopCategory;
  } else {
    category = catalog.categories[index] as ShopCategory;
    product = listCategory(catalog, category.slug, 'price_asc')[0] as ShopProduct;
  }
  // Quantity 2 or 3, fixed by the index so the id determines the whole task.
  const qty = family.name === 'add_qty' || family.name === 'cheapest_qty' ? 2 + (index % 2) : 1;
  const startUrl = family.start === 'home' ? `${base}/shop/` : `${base}/shop/c/${category.slug}`;

  let verifier: Verifier;
  if (family.check === 'answer') {
    const accepted = family.name === 'price' ? [formatPrice(product.priceCents), formatPrice(product.priceCents).slice(1)] : [product.sku, `SKU: ${product.sku}`];
    verifier = make(VerifierSchema, { kind: { case: 'answer', value: { accepted, normalize: true, contains: false } } });
  } else {
    const specJson = cartSpecJson({ cart: { [product.id]: qty }, exact: true });
    verifier = make(VerifierSchema, { kind: { case: 'siteState', value: { endpoint: `${base}${SHOP_VERIFY_PATH}`, specJson } } });
  }

  const metadata: Record<string, string> = {
    family: family.name,
    product: product.id,
    product_name: product.name,
    category: category.slug,
    seed: String(seed),
    catalog_seed: String(catalog.seed),
  };
  if (qty !== 1) metadata['qty'] = String(qty);

  return make(TaskSchema, {
    id: `${SHOP_SUITE}/${family.name}/${String(index).padStart(4, '0')}`,
    suite: SHOP_SUITE,
    site: SHOP_SITE,
    startUrl,
    instruction: instructionFor(family.name, product, category, qty),
    difficulty: family.difficulty,
    family: family.name,
    verifier,
    metadata,
  });
}

/**
 * Generates `n` shop tasks, drawing round-robin over the selected families (each family's tasks
 * in a seeded random order, without repeats). Same options → identical tasks.
 * @throws TaskError TASK_BAD_ARGUMENT for a non-integer seed, a bad `n` (negative, not an integer,
 *   more than the distinct tasks available), a bad `baseUrl`, or difficulties matching no family.
 */
export function generateShopTasks(opts: GenerateShopTasksOptions): Task[] {
  const { seed, n } = opts;
  if (!Number.isInteger(seed)) {
    throw new TaskError(TaskErrorCode.BadArgument, `seed ${String(seed)} must be an integer`, { field: 'seed' });
  }
  if (!Number.isInteger(n) || n < 0) {
    throw new TaskError(TaskErrorCode.BadArgument, `n ${String(n)} must be a non-negative integer`, { field: 'n' });
  }
  const base = normalizeBaseUrl(opts.baseUrl);
  const families = selectShopFamilies(opts);
  const catalog = buildShopCatalog(opts.catalogSeed ?? DEFAULT_CATALOG_SEED);
  const available = families.reduce((s, f) => s + familySize(f, catalog), 0);
  if (n > available) {
    throw new TaskError(
      TaskErrorCode.BadArgument,
      `n ${n} exceeds the ${available} distinct tasks of families ${families.map((f) => f.name).join(', ')}`,
      { field: 'n' },
    );
  }
  const rng = mulberry32((seed ^ 0x7a5c0de) >>> 0);
  const queues = families.map((f) => ({
    family: f,
    order: shuffled(rng, Array.from({ length: familySize(f, catalog) }, (_, i) => i)),
  }));
  // Rotate the starting family by the seed so small n does not always favour the first family.
  let cursor = Math.floor(rng() * queues.length);
  const tasks: Task[] = [];
  while (tasks.length < n) {
    const q = queues[cursor % queues.length];
    cursor++;
    if (q === undefined) continue;
    const index = q.order.shift();
    if (index === undefined) continue;
    tasks.push(buildShopTask(catalog, q.family, index, base, seed));
  }
  return tasks;
}
