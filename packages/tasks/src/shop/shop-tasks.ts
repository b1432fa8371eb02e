// Seeded task generator of the bundled shop (suite `shop`). Every task is fully determined by the
// catalog seed, its family and an index (into the family's pool: products, categories, filter
// scenarios, pairs), which is what its id `shop/<family>/<nnnn>` encodes; the task seed only
// chooses which tasks are drawn and in what order. `difficulty` is the number of policy steps of
// the intended shortest solution, where one step is one pick of the built-in policy (a click, a
// write optionally followed by Enter, done).
import { normalizeBaseUrl, selectFamilies } from '../suite-options.js';
import { mulberry32 } from '@owrl/core';
import { make, TaskSchema, type Task, type Verifier, VerifierSchema } from '@owrl/proto';
import { TaskError, TaskErrorCode } from '../errors.js';
import {
  buildShopCatalog,
  DEFAULT_CATALOG_SEED,
  formatPrice,
  listCategory,
  type ShopCatalog,
  type ShopCategory,
  type ShopProduct,
} from './shop-catalog.js';
import { shuffled } from '../shuffle.js';
import { SHOP_DEFAULT_DELIVERY, SHOP_DELIVERY_OPTIONS, type ShopDeliveryId, priceShopOrder, shopPromoProblem } from './shop-checkout.js';
import { shopCustomer, shopPools, type ShopCustomer, type ShopScenario, type ShopSizedPick } from './shop-scenarios.js';
import { cartSpecJson, type ShopOrderSpec } from './shop-verify.js';

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
  | 'cheapest_qty'
  | 'compare_rating'
  | 'promo_total'
  | 'filter_cheapest'
  | 'multi_constraint'
  | 'checkout_confirm'
  | 'checkout_two_items'
  | 'checkout_constrained';

/** What a family's tasks are drawn from (see {@link shopPools}). */
export type ShopPoolName = 'product' | 'category' | 'pair' | 'cheapest' | 'rated' | 'sized' | 'sized_pair' | 'scenario_pair';

export interface ShopFamily {
  name: ShopFamilyName;
  /** Policy steps of the intended shortest solution (see `route`). */
  difficulty: number;
  /** Page the episode starts on. */
  start: 'category' | 'home';
  /**
   * What the verifier checks: the done() answer, the session's cart, the session's latest order
   * (site state), or the final page (a page expression).
   */
  check: 'answer' | 'cart' | 'order' | 'page';
  /** What tasks are drawn from: one task per product, category, pair, filter scenario... */
  per: ShopPoolName;
  /** The intended solution, one entry per step. */
  route: readonly string[];
}

const CHECKOUT_FORM = ['write name into "Full name"', 'write address into "Address"', 'write city into "City"', 'write postcode into "Postcode"'];

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
  {
    // Ratings are on product pages only, and the two products are in different categories.
    name: 'compare_rating', difficulty: 5, start: 'home', check: 'answer', per: 'pair',
    route: ['click first category', 'click first product', 'click second category', 'click second product', 'done(name of the better rated)'],
  },
  {
    name: 'promo_total', difficulty: 6, start: 'category', check: 'answer', per: 'product',
    route: ['click product', 'click "Add to cart"', 'click "Cart (1)"', 'click "Checkout"', 'write code into "Promo code" + Enter', 'done(total)'],
  },
  {
    // The filter panel opens with "Filters" and submits with "Apply filters"; links from a
    // size-filtered listing preselect the size.
    name: 'filter_cheapest', difficulty: 9, start: 'home', check: 'cart', per: 'cheapest',
    route: [
      'click category', 'click "Filters"', 'click size in the "Size" filter', 'set the second filter (checkbox or list)', 'click "Apply filters"',
      'click "Price: low to high"', 'click first product', 'click "Add to cart"', 'done',
    ],
  },
  {
    // Enter in "Max price" submits the filters, so no "Apply filters" click.
    name: 'multi_constraint', difficulty: 10, start: 'home', check: 'cart', per: 'rated',
    route: [
      'click category', 'click "Filters"', 'click size in the "Size" filter', 'set the second filter (checkbox or list)', 'write price into "Max price" + Enter',
      'click "Top rated"', 'click first product', 'write qty into "Quantity"', 'click "Add to cart"', 'done',
    ],
  },
  {
    name: 'checkout_confirm', difficulty: 12, start: 'category', check: 'page', per: 'sized',
    route: [
      'click product', 'click size', 'click "Add to cart"', 'click "Cart (1)"', 'click "Checkout"', ...CHECKOUT_FORM,
      'click "Express delivery"', 'click "Place order"', 'done',
    ],
  },
  {
    name: 'checkout_two_items', difficulty: 18, start: 'home', check: 'order', per: 'sized_pair',
    route: [
      'click first category', 'click first product', 'click size', 'write qty into "Quantity"', 'click "Add to cart"',
      'click second category', 'click second product', 'click size', 'click "Add to cart"',
      'click "Cart (3)"', 'click "Checkout"', ...CHECKOUT_FORM, 'click "Express delivery"', 'click "Place order"', 'done',
    ],
  },
  {
    name: 'checkout_constrained', difficulty: 26, start: 'home', check: 'order', per: 'scenario_pair',
    route: [
      'click first category', 'click "Filters"', 'click size', 'set the second filter', 'click "Apply filters"', 'click "Price: low to high"',
      'click first product', 'write qty into "Quantity"', 'click "Add to cart"',
      'click second category', 'click "Filters"', 'click size', 'set the second filter', 'click "Apply filters"', 'click "Price: low to high"',
      'click first product', 'click "Add to cart"',
      'click "Cart (3)"', 'click "Checkout"', ...CHECKOUT_FORM, 'write code into "Promo code"', 'click "Place order"', 'done',
    ],
  },
];

/** The suite-level check kind of a family (answer, site_state or page_expression). */
export function shopCheckKind(f: ShopFamily): 'answer' | 'site_state' | 'page_expression' {
  return f.check === 'answer' ? 'answer' : f.check === 'page' ? 'page_expression' : 'site_state';
}

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

type LegacyFamily = 'price' | 'sku' | 'add_to_cart' | 'search_sku' | 'add_qty' | 'search_add' | 'cheapest_in_category' | 'cheapest_qty';

/** Instruction text of a family; product names and categories are in double quotes. */
function instructionFor(family: LegacyFamily, product: ShopProduct, category: ShopCategory, qty: number): string {
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

/** Families selected by the options, in {@link SHOP_FAMILIES} order. */
export function selectShopFamilies(opts: Pick<GenerateShopTasksOptions, 'difficulties' | 'families'>): ShopFamily[] {
  return selectFamilies('shop', SHOP_FAMILIES, opts);
}

/** Number of distinct tasks a family has in a catalog. */
export function shopFamilySize(family: ShopFamily, catalog: ShopCatalog): number {
  const pools = shopPools(catalog);
  switch (family.per) {
    case 'product':
      return catalog.products.length;
    case 'category':
      return catalog.categories.length;
    case 'pair':
      return pools.pairs.length;
    case 'cheapest':
      return pools.cheapest.length;
    case 'rated':
      return pools.rated.length;
    case 'sized':
      return pools.sized.length;
    case 'sized_pair':
      return pools.sizedPairs.length;
    case 'scenario_pair':
      return pools.scenarioPairs.length;
  }
}

interface Built {
  instruction: string;
  verifier: Verifier;
  metadata: Record<string, string>;
  /** Category whose page the task starts on (for `start: 'category'`). */
  category: ShopCategory;
}

function answerVerifier(accepted: string[]): Verifier {
  return make(VerifierSchema, { kind: { case: 'answer', value: { accepted, normalize: true, contains: false } } });
}

function stateVerifier(base: string, specJson: string): Verifier {
  return make(VerifierSchema, { kind: { case: 'siteState', value: { endpoint: `${base}${SHOP_VERIFY_PATH}`, specJson } } });
}

function categoryOf(catalog: ShopCatalog, p: ShopProduct): ShopCategory {
  return catalog.categories.find((c) => c.slug === p.category) as ShopCategory;
}

/** The eight original families, exactly as they were before the shop had variants and checkout. */
function buildLegacy(catalog: ShopCatalog, family: ShopFamily & { name: LegacyFamily }, index: number, base: string): Built {
  let category: ShopCategory;
  let product: ShopProduct;
  if (family.per === 'product') {
    product = catalog.products[index] as ShopProduct;
    category = categoryOf(catalog, product);
  } else {
    category = catalog.categories[index] as ShopCategory;
    product = listCategory(catalog, category.slug, 'price_asc')[0] as ShopProduct;
  }
  // Quantity 2 or 3, fixed by the index so the id determines the whole task.
  const qty = family.name === 'add_qty' || family.name === 'cheapest_qty' ? 2 + (index % 2) : 1;
  let verifier: Verifier;
  if (family.check === 'answer') {
    const accepted = family.name === 'price' ? [formatPrice(product.priceCents), formatPrice(product.priceCents).slice(1)] : [product.sku, `SKU: ${product.sku}`];
    verifier = answerVerifier(accepted);
  } else {
    verifier = stateVerifier(base, cartSpecJson({ cart: { [product.id]: qty }, exact: true }));
  }
  const metadata: Record<string, string> = { product: product.id, product_name: product.name, category: category.slug };
  if (qty !== 1) metadata['qty'] = String(qty);
  return { instruction: instructionFor(family.name, product, category, qty), verifier, metadata, category };
}

/** The instruction phrase of a scenario's second filter. */
function constraintPhrase(s: ShopScenario): string {
  switch (s.constraint.kind) {
    case 'waterproof':
      return 'that is waterproof';
    case 'brand':
      return `from the brand "${s.constraint.value}"`;
    case 'color':
      return `in the colour "${s.constraint.value}"`;
    case 'rating':
      return `rated "${s.constraint.value}"`;
  }
}

/** Metadata a scripted solver needs to follow a scenario's route (`suffix` tells items apart). */
function scenarioMeta(s: ShopScenario, suffix = ''): Record<string, string> {
  const m: Record<string, string> = {
    [`category${suffix}`]: s.category.slug,
    [`category_name${suffix}`]: s.category.name,
    [`size${suffix}`]: s.size,
    [`filter${suffix}`]: s.constraint.kind,
    [`filter_value${suffix}`]: s.constraint.value,
    [`product${suffix}`]: s.target.product.id,
    [`product_name${suffix}`]: s.target.product.name,
  };
  if (s.maxDollars !== undefined) m[`max_price${suffix}`] = String(s.maxDollars);
  return m;
}

function productMeta(p: ShopProduct, catalog: ShopCatalog, suffix = ''): Record<string, string> {
  const c = categoryOf(catalog, p);
  return { [`product${suffix}`]: p.id, [`product_name${suffix}`]: p.name, [`category${suffix}`]: c.slug, [`category_name${suffix}`]: c.name };
}

function pickMeta(p: ShopSizedPick, catalog: ShopCatalog, suffix = ''): Record<string, string> {
  return { ...productMeta(p.product, catalog, suffix), [`size${suffix}`]: p.variant.code };
}

function customerMeta(c: ShopCustomer, delivery: ShopDeliveryId): Record<string, string> {
  const label = SHOP_DELIVERY_OPTIONS.find((d) => d.id === delivery)?.label ?? delivery;
  return { name: c.name, address: c.address, city: c.city, postcode: c.postcode, delivery, delivery_label: label };
}

function shipTo(c: ShopCustomer): string {
  return `name "${c.name}", address "${c.address}", city "${c.city}", postcode "${c.postcode}"`;
}

/**
 * The page expression of checkout_confirm: the final page is the confirmation of an order with
 * exactly these items, this delivery and total, shipped to this name and postcode.
 */
function confirmationExpression(items: string, delivery: ShopDeliveryId, total: string, c: ShopCustomer): string {
  const s = JSON.stringify;
  return (
    `(() => { const q = (id) => document.getElementById(id); ` +
    `const items = Array.from(document.querySelectorAll('[data-item]'), (e) => e.getAttribute('data-item') + '*' + e.getAttribute('data-qty')).join(','); ` +
    `return document.querySelector('h1')?.textContent.trim() === 'Order confirmed' && items === ${s(items)} && ` +
    `q('order-delivery')?.getAttribute('data-delivery') === ${s(delivery)} && q('order-total')?.textContent.trim() === ${s(total)} && ` +
    `q('order-name')?.textContent.trim() === ${s(c.name)} && q('order-postcode')?.textContent.trim() === ${s(c.postcode)}; })()`
  );
}

function buildPooled(catalog: ShopCatalog, family: ShopFamily, index: number, base: string): Built {
  const pools = shopPools(catalog);
  const key = `${family.name}/${index}`;
  switch (family.name) {
    case 'compare_rating': {
      const [a, b] = pools.pairs[index] as [ShopProduct, ShopProduct];
      const best = a.rating > b.rating ? a : b;
      return {
        instruction: `Which has the higher customer rating: "${a.name}" or "${b.name}"? Answer with the product name.`,
        verifier: answerVerifier([best.name]),
        metadata: { ...productMeta(a, catalog), ...productMeta(b, catalog, '_b'), answer: best.id },
        category: categoryOf(catalog, a),
      };
    }
    case 'promo_total': {
      const product = catalog.products[index] as ShopProduct;
      const line = [{ unitCents: product.priceCents, qty: 1 }];
      const promo = [catalog.promos[index % catalog.promos.length], ...catalog.promos].find((p) => p !== undefined && shopPromoProblem(p, product.priceCents) === undefined);
      if (promo === undefined) throw new TaskError(TaskErrorCode.BadArgument, `no promo code applies to ${product.id}`, { field: 'index' });
      const total = formatPrice(priceShopOrder(line, promo, SHOP_DEFAULT_DELIVERY).totalCents);
      return {
        instruction: `Add "${product.name}" to the cart, go to checkout, apply the promo code "${promo.code}" and report the order total.`,
        verifier: answerVerifier([total, total.slice(1)]),
        metadata: { product: product.id, product_name: product.name, category: product.category, promo: promo.code },
        category: categoryOf(catalog, product),
      };
    }
    case 'filter_cheapest': {
      const s = pools.cheapest[index] as ShopScenario;
      const id = s.target.product.id;
      return {
        instruction: `In the "${s.category.name}" category, find the cheapest item available in size "${s.size}" ${constraintPhrase(s)}, and add it to the cart in size "${s.size}".`,
        verifier: stateVerifier(base, cartSpecJson({ cart: { [`${id}:${s.size}`]: 1 }, exact: true })),
        metadata: scenarioMeta(s),
        category: s.category,
      };
    }
    case 'multi_constraint': {
      const s = pools.rated[index] as ShopScenario;
      const qty = 2 + (index % 2);
      const id = s.target.product.id;
      return {
        instruction:
          `Add ${qty} of the best-rated item in the "${s.category.name}" category that is available in size "${s.size}", ` +
          `${constraintPhrase(s)} and priced at most $${s.maxDollars ?? 0} in that size, to the cart in size "${s.size}".`,
        verifier: stateVerifier(base, cartSpecJson({ cart: { [`${id}:${s.size}`]: qty }, exact: true })),
        metadata: { ...scenarioMeta(s), qty: String(qty) },
        category: s.category,
      };
    }
    case 'checkout_confirm': {
      const p = pools.sized[index] as ShopSizedPick;
      const c = shopCustomer(catalog, key);
      const total = formatPrice(priceShopOrder([{ unitCents: p.variant.priceCents, qty: 1 }], undefined, 'express').totalCents);
      const expression = confirmationExpression(`${p.product.id}:${p.variant.code}*1`, 'express', total, c);
      return {
        instruction:
          `Buy "${p.product.name}" in size "${p.variant.code}": check out with ${shipTo(c)} and "Express delivery", ` +
          'place the order and stay on the order confirmation page.',
        verifier: make(VerifierSchema, { kind: { case: 'pageExpression', value: { expression } } }),
        metadata: { ...pickMeta(p, catalog), ...customerMeta(c, 'express'), total },
        category: categoryOf(catalog, p.product),
      };
    }
    case 'checkout_two_items': {
      const [a, b] = pools.sizedPairs[index] as [ShopSizedPick, ShopSizedPick];
      const c = shopCustomer(catalog, key);
      const order: ShopOrderSpec = {
        items: { [`${a.product.id}:${a.variant.code}`]: 2, [`${b.product.id}:${b.variant.code}`]: 1 },
        ...c,
        delivery: 'express',
      };
      return {
        instruction:
          `Order 2 of "${a.product.name}" in size "${a.variant.code}" and 1 of "${b.product.name}" in size "${b.variant.code}", ` +
          `with "Express delivery" to ${shipTo(c)}.`,
        verifier: stateVerifier(base, cartSpecJson({ cart: {}, exact: false, order })),
        metadata: { ...pickMeta(a, catalog), qty: '2', ...pickMeta(b, catalog, '_b'), qty_b: '1', ...customerMeta(c, 'express') },
        category: categoryOf(catalog, a.product),
      };
    }
    case 'checkout_constrained': {
      const [a, b] = pools.scenarioPairs[index] as [ShopScenario, ShopScenario];
      const c = shopCustomer(catalog, key);
      const lines = [{ unitCents: a.target.priceCents, qty: 2 }, { unitCents: b.target.priceCents, qty: 1 }];
      const subtotal = priceShopOrder(lines, undefined, SHOP_DEFAULT_DELIVERY).subtotalCents;
      const promo = [catalog.promos[index % catalog.promos.length], ...catalog.promos].find((p) => p !== undefined && shopPromoProblem(p, subtotal) === undefined);
      if (promo === undefined) throw new TaskError(TaskErrorCode.BadArgument, `no promo code applies to ${key}`, { field: 'index' });
      const order: ShopOrderSpec = {
        items: { [`${a.target.product.id}:${a.size}`]: 2, [`${b.target.product.id}:${b.size}`]: 1 },
        ...c,
        delivery: SHOP_DEFAULT_DELIVERY,
        promo: promo.code,
      };
      return {
        instruction:
          `Order 2 of the cheapest item in the "${a.category.name}" category available in size "${a.size}" ${constraintPhrase(a)} (in size "${a.size}"), ` +
          `and 1 of the cheapest item in the "${b.category.name}" category available in size "${b.size}" ${constraintPhrase(b)} (in size "${b.size}"). ` +
          `Check out with standard delivery to ${shipTo(c)}, using the promo code "${promo.code}".`,
        verifier: stateVerifier(base, cartSpecJson({ cart: {}, exact: false, order })),
        metadata: { ...scenarioMeta(a), qty: '2', ...scenarioMeta(b, '_b'), qty_b: '1', ...customerMeta(c, SHOP_DEFAULT_DELIVERY), promo: promo.code },
        category: a.category,
      };
    }
    default:
      return buildLegacy(catalog, family as ShopFamily & { name: LegacyFamily }, index, base);
  }
}

/**
 * Builds one task: `index` points into the family's pool (product index, category index,
 * scenario or pair index; see {@link shopFamilySize}).
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
  if (!Number.isInteger(index) || index < 0 || index >= shopFamilySize(family, catalog)) {
    throw new TaskError(TaskErrorCode.BadArgument, `task index ${index} is out of range for family ${family.name}`, { field: 'index' });
  }
  const built = buildPooled(catalog, family, index, base);
  // Quantities last, as the original families always had them.
  const { qty, ...meta } = built.metadata;
  const startUrl = family.start === 'home' ? `${base}/shop/` : `${base}/shop/c/${built.category.slug}`;
  return make(TaskSchema, {
    id: `${SHOP_SUITE}/${family.name}/${String(index).padStart(4, '0')}`,
    suite: SHOP_SUITE,
    site: SHOP_SITE,
    startUrl,
    instruction: built.instruction,
    difficulty: family.difficulty,
    family: family.name,
    verifier: built.verifier,
    metadata: { family: family.name, ...meta, seed: String(seed), catalog_seed: String(catalog.seed), ...(qty === undefined ? {} : { qty }) },
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
  const available = families.reduce((s, f) => s + shopFamilySize(f, catalog), 0);
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
    order: shuffled(rng, Array.from({ length: shopFamilySize(f, catalog) }, (_, i) => i)),
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
