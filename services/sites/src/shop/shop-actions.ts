// The shop's form posts: add to cart (with a size), remove a line, answer the cookie banner, and
// the checkout (save details / apply a promo code, or place the order). Each changes the
// session's state and answers with a 303 redirect and a one-shot notice.
import type { ServerResponse } from 'node:http';
import {
  findShopDelivery,
  findShopPromo,
  formatPrice,
  priceShopOrder,
  shopDefaultVariant,
  shopLineKey,
  shopPromoProblem,
  shopPromoText,
  type ShopCatalog,
} from '@owrl/tasks/shop';
import { redirect } from '../http-util.js';
import type { SessionState } from '../session-store.js';
import { cartLines, emptyDraft, nextOrderNumber, shopData } from './shop-state.js';

/** Most units of one product size a cart line may hold. */
export const MAX_LINE_QTY = 99;

/** Longest text a checkout field keeps. */
const MAX_FIELD = 100;

const POSTCODE_RE = /^[A-Za-z0-9][A-Za-z0-9 -]{1,8}[A-Za-z0-9]$/;

/** Adds to the cart; false when the product does not exist (the caller answers 404). */
export function addToCart(res: ServerResponse, catalog: ShopCatalog, state: SessionState, form: URLSearchParams): boolean {
  const p = catalog.byId.get(form.get('id') ?? '');
  if (p === undefined) return false;
  const size = form.get('size');
  const v = size === null || size === '' ? shopDefaultVariant(p) : p.variants.find((x) => x.code === size);
  const back = v === undefined || v.code === p.size ? `/shop/p/${p.id}` : `/shop/p/${p.id}?size=${encodeURIComponent(v.code)}`;
  const rawQty = (form.get('qty') ?? '1').trim();
  const qty = /^\d+$/.test(rawQty) ? Number(rawQty) : NaN;
  if (v === undefined || v.stock === 0) {
    const sizes = p.variants.filter((x) => x.stock > 0).map((x) => x.code);
    state.notice = { kind: 'error', text: `Size "${size ?? ''}" of ${p.name} is not available: choose one of ${sizes.join(', ')}.` };
    redirect(res, 303, back);
    return true;
  }
  const key = shopLineKey(p.id, v.code);
  const have = state.cart.get(key) ?? 0;
  const limit = Math.min(v.stock, MAX_LINE_QTY);
  const what = p.variants.length > 1 ? `${p.name} (size ${v.code})` : p.name;
  if (!Number.isInteger(qty) || qty < 1) {
    state.notice = { kind: 'error', text: `Quantity "${rawQty}" is not valid: enter a whole number from 1 to ${limit}.` };
  } else if (have + qty > limit) {
    state.notice = { kind: 'error', text: `Only ${limit} of ${what} can be in the cart (you have ${have}).` };
  } else {
    state.cart.set(key, have + qty);
    state.notice = { kind: 'ok', text: `Added to cart: ${qty} × ${what}` };
  }
  redirect(res, 303, back);
  return true;
}

/** Removes one size of a product from the cart, or every size when none is given. */
export function removeFromCart(res: ServerResponse, catalog: ShopCatalog, state: SessionState, form: URLSearchParams): void {
  const id = form.get('id') ?? '';
  const size = form.get('size') ?? '';
  const p = catalog.byId.get(id);
  let removed = false;
  for (const key of [...state.cart.keys()]) {
    if (key === shopLineKey(id, size) || (size === '' && key.startsWith(`${id}:`))) removed = state.cart.delete(key) || removed;
  }
  if (p !== undefined && removed) state.notice = { kind: 'ok', text: `Removed from cart: ${p.name}` };
  redirect(res, 303, '/shop/cart');
}

/** Where a form may send the shopper back to: a shop path, never another origin. */
function safeBack(back: string | null): string {
  return back !== null && /^\/shop(\/|\?|$)/.test(back) && !back.includes('\\') && !back.startsWith('//') ? back : '/shop/';
}

export function answerCookies(res: ServerResponse, state: SessionState, form: URLSearchParams): void {
  const choice = form.get('choice');
  if (choice === 'accept') shopData(state).consent = 'accepted';
  else if (choice === 'reject') shopData(state).consent = 'rejected';
  redirect(res, 303, safeBack(form.get('back')));
}

function text(form: URLSearchParams, name: string): string {
  return (form.get(name) ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_FIELD);
}

/**
 * The checkout form: always saves the details and the delivery choice; `action=place` also
 * checks everything and places the order, else (Apply code, Enter) applies the promo code.
 */
export function checkout(res: ServerResponse, catalog: ShopCatalog, state: SessionState, form: URLSearchParams): void {
  const data = shopData(state);
  const lines = cartLines(catalog, state);
  if (lines.length === 0) {
    state.notice = { kind: 'error', text: 'Your cart is empty: add something before checking out.' };
    redirect(res, 303, '/shop/cart');
    return;
  }
  const d = data.draft;
  d.name = text(form, 'name');
  d.address = text(form, 'address');
  d.city = text(form, 'city');
  d.postcode = text(form, 'postcode');
  const delivery = findShopDelivery(form.get('delivery') ?? '');
  if (delivery !== undefined) d.delivery = delivery.id;
  const priced = lines.map((l) => ({ unitCents: l.variant.priceCents, qty: l.qty }));
  const subtotal = priceShopOrder(priced, undefined, d.delivery).subtotalCents;
  const code = text(form, 'promo');
  let promoError: string | undefined;
  if (code === '') d.promo = '';
  else {
    const promo = findShopPromo(catalog, code);
    promoError = promo === undefined ? `Promo code "${code}" is not valid.` : shopPromoProblem(promo, subtotal);
    if (promo !== undefined && promoError === undefined) d.promo = promo.code;
  }
  if (form.get('action') !== 'place') {
    const applied = findShopPromo(catalog, d.promo);
    state.notice =
      promoError !== undefined
        ? { kind: 'error', text: promoError }
        : applied !== undefined && code !== ''
          ? { kind: 'ok', text: `Code ${applied.code} applied: ${shopPromoText(applied)}.` }
          : { kind: 'ok', text: 'Checkout details saved.' };
    redirect(res, 303, '/shop/checkout');
    return;
  }
  const problems: string[] = [];
  const missing = (['name', 'address', 'city', 'postcode'] as const).filter((f) => d[f] === '');
  const labels = { name: 'Full name', address: 'Address', city: 'City', postcode: 'Postcode' };
  if (missing.length > 0) problems.push(`Please fill in: ${missing.map((f) => labels[f]).join(', ')}.`);
  if (d.postcode !== '' && !POSTCODE_RE.test(d.postcode)) problems.push(`Postcode "${d.postcode}" is not valid: use 3–10 letters or digits.`);
  if (promoError !== undefined) problems.push(promoError);
  for (const l of lines) {
    if (l.qty > l.variant.stock) problems.push(`Only ${l.variant.stock} of ${l.product.name} (${l.variant.code}) are in stock.`);
  }
  if (problems.length > 0) {
    state.notice = { kind: 'error', text: problems.join(' ') };
    redirect(res, 303, '/shop/checkout');
    return;
  }
  const promo = findShopPromo(catalog, d.promo);
  const totals = priceShopOrder(priced, promo, d.delivery);
  const orderLines = lines.map((l) => ({ productId: l.product.id, size: l.variant.code, qty: l.qty, unitCents: l.variant.priceCents }));
  const number = nextOrderNumber(data, JSON.stringify([orderLines, d]));
  data.orders.push({ number, lines: orderLines, name: d.name, address: d.address, city: d.city, postcode: d.postcode, delivery: d.delivery, promo: promo?.code ?? '', totals });
  state.cart.clear();
  data.draft = emptyDraft();
  state.notice = { kind: 'ok', text: `Thank you! Order ${number} is placed: ${formatPrice(totals.totalCents)}.` };
  redirect(res, 303, `/shop/orders/${number}`);
}
