// Checkout rules of the bundled shop: delivery options, promo code checks and order totals, plus
// the shape of a placed order. Pure, so the site's pages and the task generator's expected totals
// always agree.
import { formatPrice, type ShopCatalog, type ShopPromo } from './shop-catalog.js';

export type ShopDeliveryId = 'standard' | 'express';

export interface ShopDeliveryOption {
  id: ShopDeliveryId;
  /** Label of its radio button, e.g. `Express delivery`. */
  label: string;
  /** When it arrives, shown next to the label. */
  note: string;
  priceCents: number;
  /** Free from this subtotal (after discount) on; undefined = never free. */
  freeFromCents?: number;
}

export const SHOP_DELIVERY_OPTIONS: readonly ShopDeliveryOption[] = [
  { id: 'standard', label: 'Standard delivery', note: '3–5 business days, free from $100', priceCents: 495, freeFromCents: 10_000 },
  { id: 'express', label: 'Express delivery', note: 'next business day', priceCents: 1295 },
];

/** The default choice on the checkout page. */
export const SHOP_DEFAULT_DELIVERY: ShopDeliveryId = 'standard';

export function findShopDelivery(id: string): ShopDeliveryOption | undefined {
  return SHOP_DELIVERY_OPTIONS.find((d) => d.id === id);
}

export interface ShopPricedLine {
  unitCents: number;
  qty: number;
}

export interface ShopOrderTotals {
  subtotalCents: number;
  discountCents: number;
  deliveryCents: number;
  totalCents: number;
}

/** The promo code `code` (case-insensitive, surrounding spaces ignored). */
export function findShopPromo(catalog: ShopCatalog, code: string): ShopPromo | undefined {
  const c = code.trim().toUpperCase();
  return catalog.promos.find((p) => p.code === c);
}

/** Why `promo` does not apply to a subtotal, or undefined when it does. */
export function shopPromoProblem(promo: ShopPromo, subtotalCents: number): string | undefined {
  if (subtotalCents < promo.minSubtotalCents) {
    return `Code ${promo.code} needs a subtotal of at least ${formatPrice(promo.minSubtotalCents)}.`;
  }
  return undefined;
}

/** One line describing the offer, e.g. `15% off orders from $60.00`. */
export function shopPromoText(promo: ShopPromo): string {
  const off = promo.kind === 'percent' ? `${promo.value}% off` : `${formatPrice(promo.value)} off`;
  return promo.minSubtotalCents > 0 ? `${off} orders from ${formatPrice(promo.minSubtotalCents)}` : `${off} your order`;
}

/**
 * Totals of an order: a promo that does not apply is ignored; percentages round down to the cent;
 * a fixed discount never exceeds the subtotal; delivery is charged on the discounted subtotal.
 */
export function priceShopOrder(lines: readonly ShopPricedLine[], promo: ShopPromo | undefined, delivery: ShopDeliveryId): ShopOrderTotals {
  const subtotalCents = lines.reduce((s, l) => s + l.unitCents * l.qty, 0);
  let discountCents = 0;
  if (promo !== undefined && shopPromoProblem(promo, subtotalCents) === undefined) {
    discountCents = promo.kind === 'percent' ? Math.floor((subtotalCents * promo.value) / 100) : Math.min(promo.value, subtotalCents);
  }
  const after = subtotalCents - discountCents;
  const opt = findShopDelivery(delivery) ?? (SHOP_DELIVERY_OPTIONS[0] as ShopDeliveryOption);
  const deliveryCents = opt.freeFromCents !== undefined && after >= opt.freeFromCents ? 0 : opt.priceCents;
  return { subtotalCents, discountCents, deliveryCents, totalCents: after + deliveryCents };
}

/** A line of a placed order. */
export interface ShopOrderLine {
  productId: string;
  /** Size code of the variant. */
  size: string;
  qty: number;
  unitCents: number;
}

/** An order placed in a session (what the order verifier checks). */
export interface ShopOrder {
  /** e.g. `OW-482913`. */
  number: string;
  lines: ShopOrderLine[];
  name: string;
  address: string;
  city: string;
  postcode: string;
  delivery: ShopDeliveryId;
  /** Applied promo code, '' for none. */
  promo: string;
  totals: ShopOrderTotals;
}
