// Per-session state of the shop beyond the cart (which lives in SessionState.cart, keyed
// `<product id>:<size>`): cookie consent, the checkout draft and the placed orders.
import { fnv1a } from '@owrl/core';
import {
  findShopVariant,
  parseShopLineKey,
  SHOP_DEFAULT_DELIVERY,
  type ShopCatalog,
  type ShopDeliveryId,
  type ShopOrder,
  type ShopProduct,
  type ShopVariant,
} from '@owrl/tasks/shop';
import type { SessionState } from '../session-store.js';
import { peekSiteData, siteData } from '../site.js';

/** What the checkout form remembers between submits (promo = the applied code, '' for none). */
export interface CheckoutDraft {
  name: string;
  address: string;
  city: string;
  postcode: string;
  delivery: ShopDeliveryId;
  promo: string;
}

export interface ShopSessionData {
  /** The cookie banner's answer; undefined = not answered yet (the banner shows). */
  consent: 'accepted' | 'rejected' | undefined;
  draft: CheckoutDraft;
  /** Oldest first. */
  orders: ShopOrder[];
}

const SITE = 'shop';

export function emptyDraft(): CheckoutDraft {
  return { name: '', address: '', city: '', postcode: '', delivery: SHOP_DEFAULT_DELIVERY, promo: '' };
}

/** The shop's state of a session, created on first use. */
export function shopData(session: SessionState): ShopSessionData {
  return siteData<ShopSessionData>(session, SITE, () => ({ consent: undefined, draft: emptyDraft(), orders: [] }));
}

/** The placed orders of a session without creating its shop state (verifier reads). */
export function peekOrders(session: SessionState | undefined): readonly ShopOrder[] {
  return peekSiteData<ShopSessionData>(session, SITE)?.orders ?? [];
}

export interface CartLine {
  key: string;
  product: ShopProduct;
  variant: ShopVariant;
  qty: number;
}

/** The cart's lines in the order they were first added (unknown products or sizes are skipped). */
export function cartLines(catalog: ShopCatalog, state: SessionState): CartLine[] {
  return [...state.cart].flatMap(([key, qty]) => {
    const { id, code } = parseShopLineKey(key);
    const product = catalog.byId.get(id);
    const variant = product === undefined ? undefined : findShopVariant(product, code);
    return product !== undefined && variant !== undefined && qty > 0 ? [{ key, product, variant, qty }] : [];
  });
}

export function cartCount(state: SessionState): number {
  let n = 0;
  for (const q of state.cart.values()) n += q;
  return n;
}

/** An order number derived from the order's content and how many orders came before it. */
export function nextOrderNumber(data: ShopSessionData, fingerprint: string): string {
  let n = 100_000 + (fnv1a(`${data.orders.length}|${fingerprint}`) % 900_000);
  const taken = new Set(data.orders.map((o) => o.number));
  while (taken.has(`OW-${n}`)) n = n >= 999_999 ? 100_000 : n + 1;
  return `OW-${n}`;
}
