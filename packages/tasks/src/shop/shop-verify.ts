// The site-state spec of the bundled shop's tasks: what its `/__owrl/verify` endpoint checks
// (SiteStateCheck spec_json) — cart lines by product or by product and size, and the latest placed
// order (items, sizes, quantities, address, delivery, promo). Answer matching (AnswerMatch)
// belongs to @owrl/judge-core.
import { TaskError, TaskErrorCode } from '../errors.js';
import { type ShopDeliveryId, SHOP_DELIVERY_OPTIONS, type ShopOrder } from './shop-checkout.js';
import { parseShopLineKey } from './shop-catalog.js';
import type { VerifyResult } from '../verify-result.js';

/** The latest placed order must have exactly these items; listed fields must match. */
export interface ShopOrderSpec {
  /** `<id>:<size>` (or a bare `<id>`, any size) → quantity. */
  items: Record<string, number>;
  name?: string;
  address?: string;
  city?: string;
  postcode?: string;
  delivery?: ShopDeliveryId;
  /** Promo code the order used; '' = none. */
  promo?: string;
}

/**
 * Expected shop state of a SiteStateCheck. `cart`: product id (any size) or `<id>:<size>` →
 * quantity; `exact` forbids any other cart line. `order`: checks the latest placed order.
 */
export interface CartSpec {
  cart: Record<string, number>;
  exact: boolean;
  order?: ShopOrderSpec;
}

/** Serialises a cart spec as the task's `spec_json`. */
export function cartSpecJson(spec: CartSpec): string {
  return JSON.stringify(spec.order === undefined ? { cart: spec.cart, exact: spec.exact } : { cart: spec.cart, exact: spec.exact, order: spec.order });
}

function bad(message: string): TaskError {
  return new TaskError(TaskErrorCode.BadSpec, message, { field: 'spec_json' });
}

const KEY_RE = /^[a-z0-9-]+(?::[A-Za-z0-9]+)?$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseQuantities(raw: unknown, where: string): Record<string, number> {
  if (!isObject(raw)) throw bad(`${where} must be an object of product id → quantity`);
  const out: Record<string, number> = {};
  for (const [key, qty] of Object.entries(raw)) {
    if (!KEY_RE.test(key)) throw bad(`${where} key ${JSON.stringify(key)} must be "<product id>" or "<product id>:<size>"`);
    if (typeof qty !== 'number' || !Number.isInteger(qty) || qty < 1) {
      throw bad(`${where}[${JSON.stringify(key)}] = ${JSON.stringify(qty)} must be a positive integer`);
    }
    out[key] = qty;
  }
  return out;
}

function parseOrderSpec(raw: unknown): ShopOrderSpec {
  if (!isObject(raw)) throw bad('spec.order must be an object like {"items":{"<id>:<size>":1},"delivery":"express"}');
  const items = parseQuantities(raw['items'], 'spec.order.items');
  if (Object.keys(items).length === 0) throw bad('spec.order.items must list at least one item');
  const out: ShopOrderSpec = { items };
  for (const f of ['name', 'address', 'city', 'postcode', 'promo'] as const) {
    const v = raw[f];
    if (v === undefined) continue;
    if (typeof v !== 'string') throw bad(`spec.order.${f} = ${JSON.stringify(v)} must be a string`);
    out[f] = v;
  }
  const d = raw['delivery'];
  if (d !== undefined) {
    const opt = SHOP_DELIVERY_OPTIONS.find((o) => o.id === d);
    if (opt === undefined) throw bad(`spec.order.delivery = ${JSON.stringify(d)} must be one of ${SHOP_DELIVERY_OPTIONS.map((o) => o.id).join(', ')}`);
    out.delivery = opt.id;
  }
  return out;
}

/**
 * Parses `spec_json` of the shop's site-state check.
 * @throws TaskError TASK_BAD_SPEC naming what is wrong (not JSON, neither a `cart` nor an `order`
 *   object, a bad line key, a quantity that is not a positive integer, `exact` not a boolean, a bad
 *   order field).
 */
export function parseCartSpec(json: string): CartSpec {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (cause) {
    throw new TaskError(TaskErrorCode.BadSpec, `spec ${JSON.stringify(json)} is not JSON`, { cause, field: 'spec_json' });
  }
  if (!isObject(raw)) throw bad('spec must be a JSON object like {"cart":{"<id>":1},"exact":true}');
  const order = raw['order'] === undefined ? undefined : parseOrderSpec(raw['order']);
  const cartRaw = raw['cart'];
  if (cartRaw === undefined && order === undefined) throw bad('spec.cart must be an object of product id → quantity (or give spec.order)');
  const cart = cartRaw === undefined ? {} : parseQuantities(cartRaw, 'spec.cart');
  const exact = raw['exact'] ?? false;
  if (typeof exact !== 'boolean') throw bad(`spec.exact = ${JSON.stringify(exact)} must be a boolean`);
  return order === undefined ? { cart, exact } : { cart, exact, order };
}

/** Problems of `lines` (line key → qty) against `want` (bare id or line key → qty). */
function lineProblems(lines: ReadonlyMap<string, number>, want: Record<string, number>, exact: boolean): string[] {
  const problems: string[] = [];
  for (const [key, qty] of Object.entries(want)) {
    const k = parseShopLineKey(key);
    let have = 0;
    for (const [line, q] of lines) {
      const l = parseShopLineKey(line);
      if (l.id === k.id && (k.code === '' || l.code === k.code)) have += q;
    }
    if (have !== qty) problems.push(`${key}: want ${qty}, have ${have}`);
  }
  if (exact) {
    for (const [line, have] of lines) {
      if (have > 0 && !(line in want) && !(parseShopLineKey(line).id in want)) problems.push(`${line}: want 0, have ${have}`);
    }
  }
  return problems;
}

/**
 * Checks a session's cart (line key `<id>:<size>` or bare id → quantity) against a spec: every
 * listed product (all sizes) or product size has exactly the listed quantity; with `exact`, no
 * other line is in the cart either.
 */
export function checkCart(cart: ReadonlyMap<string, number>, spec: CartSpec): VerifyResult {
  const problems = lineProblems(cart, spec.cart, spec.exact);
  if (problems.length > 0) return { ok: false, detail: `cart differs: ${problems.join('; ')}` };
  const lines = [...cart].filter(([, q]) => q > 0).map(([id, q]) => `${id}×${q}`);
  return { ok: true, detail: `cart matches${lines.length > 0 ? `: ${lines.join(', ')}` : ' (empty)'}` };
}

function norm(s: string): string {
  return s.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Checks the latest of `orders` (oldest first) against `spec`: exact items, then each listed field. */
export function checkShopOrder(orders: readonly ShopOrder[], spec: ShopOrderSpec): VerifyResult {
  const order = orders[orders.length - 1];
  if (order === undefined) return { ok: false, detail: 'no order placed' };
  const lines = new Map<string, number>();
  for (const l of order.lines) lines.set(`${l.productId}:${l.size}`, (lines.get(`${l.productId}:${l.size}`) ?? 0) + l.qty);
  const problems = lineProblems(lines, spec.items, true).map((p) => `item ${p}`);
  for (const f of ['name', 'address', 'city', 'postcode'] as const) {
    const want = spec[f];
    if (want !== undefined && norm(order[f]) !== norm(want)) problems.push(`${f}: want ${JSON.stringify(want)}, have ${JSON.stringify(order[f])}`);
  }
  if (spec.delivery !== undefined && order.delivery !== spec.delivery) problems.push(`delivery: want ${spec.delivery}, have ${order.delivery}`);
  if (spec.promo !== undefined && order.promo.toUpperCase() !== spec.promo.trim().toUpperCase()) {
    problems.push(`promo: want ${JSON.stringify(spec.promo)}, have ${JSON.stringify(order.promo)}`);
  }
  if (problems.length > 0) return { ok: false, detail: `order ${order.number} differs: ${problems.join('; ')}` };
  return { ok: true, detail: `order ${order.number} matches: ${[...lines].map(([k, q]) => `${k}×${q}`).join(', ')}, ${order.delivery}` };
}

/**
 * The whole shop check: the cart part (skipped when the spec only describes an order), then the
 * order part when the spec has one.
 */
export function checkShopState(cart: ReadonlyMap<string, number>, orders: readonly ShopOrder[], spec: CartSpec): VerifyResult {
  const parts: VerifyResult[] = [];
  if (spec.order === undefined || spec.exact || Object.keys(spec.cart).length > 0) parts.push(checkCart(cart, spec));
  if (spec.order !== undefined) parts.push(checkShopOrder(orders, spec.order));
  return { ok: parts.every((p) => p.ok), detail: parts.map((p) => p.detail).join('; ') };
}
