// Buying pages of the shop: the cart, the checkout form (address, delivery, promo code) with its
// order summary, the order confirmation and the list of the session's orders.
import {
  findShopPromo,
  formatPrice,
  priceShopOrder,
  SHOP_DELIVERY_OPTIONS,
  type ShopDeliveryId,
  type ShopOrder,
  type ShopOrderTotals,
} from '@owrl/tasks/shop';
import { html, raw, type Html } from '../html.js';
import { layout, noticeBlock, type PageContext } from './layout.js';
import { cartLines, type CartLine } from './shop-state.js';

// The summary follows the delivery radios without a round trip (each carries its total).
const CHECKOUT_SCRIPT = `document.querySelectorAll('input[name=delivery]').forEach(function(r){r.addEventListener('change',function(){
if(!r.checked)return;document.getElementById('summary-delivery').textContent=r.dataset.fee;
document.getElementById('checkout-total').textContent=r.dataset.total;});});`;

function productHref(l: CartLine): string {
  return l.variant.code === l.product.size ? `/shop/p/${l.product.id}` : `/shop/p/${l.product.id}?size=${encodeURIComponent(l.variant.code)}`;
}

/** `Remove Blue Mug`, or `Remove Blue Mug (L)` for a product that comes in several sizes. */
function removeLabel(l: CartLine): string {
  return l.product.variants.length > 1 ? `Remove ${l.product.name} (${l.variant.code})` : `Remove ${l.product.name}`;
}

export function cartPage(ctx: PageContext): Html {
  const lines = cartLines(ctx.catalog, ctx.state);
  if (lines.length === 0) {
    return layout(ctx, 'Cart', html`<h1>Your cart</h1>${noticeBlock(ctx.state.notice)}<p>Your cart is empty.</p><p><a href="/shop/">Continue shopping</a></p>`);
  }
  const subtotal = lines.reduce((s, l) => s + l.variant.priceCents * l.qty, 0);
  const rows = lines.map(
    (l) => html`<tr><td><a href="${productHref(l)}">${l.product.name}</a></td><td>${l.variant.code}</td><td>${l.qty}</td><td>${formatPrice(l.variant.priceCents)}</td>
<td>${formatPrice(l.variant.priceCents * l.qty)}</td><td><form method="post" action="/shop/cart/remove"><input type="hidden" name="id" value="${l.product.id}">
<input type="hidden" name="size" value="${l.variant.code}"><button type="submit" aria-label="${removeLabel(l)}">Remove</button></form></td></tr>`,
  );
  return layout(
    ctx,
    'Cart',
    html`<h1>Your cart</h1>${noticeBlock(ctx.state.notice)}<table><thead><tr><th>Product</th><th>Size</th><th>Quantity</th><th>Price</th><th>Subtotal</th><th></th></tr></thead>
<tbody>${rows}</tbody></table><p class="total">Subtotal: ${formatPrice(subtotal)}</p>
<p><a class="cta" href="/shop/checkout">Checkout</a> <a href="/shop/">Continue shopping</a></p>`,
  );
}

function field(id: string, name: string, label: string, value: string, autocomplete: string): Html {
  return html`<label for="${id}">${label}</label><input id="${id}" name="${name}" value="${value}" autocomplete="${autocomplete}" aria-required="true">`;
}

function linesTable(rows: readonly { name: string; size: string; qty: number; unitCents: number; item: string }[]): Html {
  const tr = rows.map(
    (r) => html`<tr data-item="${r.item}" data-qty="${r.qty}"><td>${r.name}</td><td>${r.size}</td><td>${r.qty}</td><td>${formatPrice(r.unitCents * r.qty)}</td></tr>`,
  );
  return html`<table class="lines"><thead><tr><th>Product</th><th>Size</th><th>Qty</th><th>Amount</th></tr></thead><tbody>${tr}</tbody></table>`;
}

function deliveryFee(cents: number): string {
  return cents === 0 ? 'Free' : formatPrice(cents);
}

export function checkoutPage(ctx: PageContext): Html {
  const lines = cartLines(ctx.catalog, ctx.state);
  if (lines.length === 0) {
    return layout(ctx, 'Checkout', html`<h1>Checkout</h1>${noticeBlock(ctx.state.notice)}<p>Your cart is empty.</p><p><a href="/shop/">Continue shopping</a></p>`);
  }
  const d = ctx.shop.draft;
  const promo = findShopPromo(ctx.catalog, d.promo);
  const priced = lines.map((l) => ({ unitCents: l.variant.priceCents, qty: l.qty }));
  const totals = (id: ShopDeliveryId): ShopOrderTotals => priceShopOrder(priced, promo, id);
  const now = totals(d.delivery);
  const radios = SHOP_DELIVERY_OPTIONS.map((o) => {
    const t = totals(o.id);
    return html`<p><input type="radio" id="dl-${o.id}" name="delivery" value="${o.id}" data-fee="${deliveryFee(t.deliveryCents)}" data-total="${formatPrice(t.totalCents)}"${
      o.id === d.delivery ? raw(' checked') : ''
    }><label for="dl-${o.id}">${o.label}</label> <small class="muted">${formatPrice(o.priceCents)} · ${o.note}</small></p>`;
  });
  const rows = lines.map((l) => ({ name: l.product.name, size: l.variant.code, qty: l.qty, unitCents: l.variant.priceCents, item: l.key }));
  const discount = now.discountCents > 0 && promo !== undefined ? html`<tr><td>Discount (${promo.code})</td><td>−${formatPrice(now.discountCents)}</td></tr>` : html``;
  return layout(
    ctx,
    'Checkout',
    html`<h1>Checkout</h1>${noticeBlock(ctx.state.notice)}<div class="checkout">
<form method="post" action="/shop/checkout"><fieldset><legend>Shipping address</legend><div class="grid2">
${field('co-name', 'name', 'Full name', d.name, 'name')}${field('co-address', 'address', 'Address', d.address, 'street-address')}
${field('co-city', 'city', 'City', d.city, 'address-level2')}${field('co-postcode', 'postcode', 'Postcode', d.postcode, 'postal-code')}</div></fieldset>
<fieldset><legend>Delivery</legend>${radios}</fieldset>
<fieldset><legend>Have a promo code?</legend><label for="co-promo">Promo code</label> <input id="co-promo" name="promo" value="${d.promo}">
<button type="submit" name="action" value="apply">Apply code</button></fieldset>
<p><button class="cta" type="submit" name="action" value="place">Place order</button> <a href="/shop/cart">Back to cart</a></p></form>
<aside class="summary" aria-label="Order summary"><h2>Order summary</h2>${linesTable(rows)}
<table><tbody><tr><td>Subtotal</td><td>${formatPrice(now.subtotalCents)}</td></tr>${discount}
<tr><td>Delivery</td><td id="summary-delivery">${deliveryFee(now.deliveryCents)}</td></tr></tbody></table>
<p class="total">Total: <span id="checkout-total">${formatPrice(now.totalCents)}</span></p></aside></div>`,
    { script: CHECKOUT_SCRIPT },
  );
}

/** The confirmation / detail page of one order. */
export function orderPage(ctx: PageContext, o: ShopOrder): Html {
  const rows = o.lines.map((l) => ({
    name: ctx.catalog.byId.get(l.productId)?.name ?? l.productId,
    size: l.size,
    qty: l.qty,
    unitCents: l.unitCents,
    item: `${l.productId}:${l.size}`,
  }));
  const delivery = SHOP_DELIVERY_OPTIONS.find((x) => x.id === o.delivery)?.label ?? o.delivery;
  const t = o.totals;
  return layout(
    ctx,
    `Order ${o.number}`,
    html`<h1>Order confirmed</h1>${noticeBlock(ctx.state.notice)}<p>Thank you, <span id="order-name">${o.name}</span>. Your order number is <strong id="order-number">${o.number}</strong>.</p>
<div class="checkout"><section aria-label="Items">${linesTable(rows)}</section>
<section class="summary" aria-label="Shipping and totals"><h2>Shipping to</h2><p id="order-address">${o.name}<br>${o.address}<br>${o.city} <span id="order-postcode">${o.postcode}</span></p>
<p id="order-delivery" data-delivery="${o.delivery}">${delivery}</p>
<dl><dt>Subtotal</dt><dd>${formatPrice(t.subtotalCents)}</dd>${t.discountCents > 0 ? html`<dt>Discount (${o.promo})</dt><dd>−${formatPrice(t.discountCents)}</dd>` : ''}
<dt>Delivery</dt><dd>${deliveryFee(t.deliveryCents)}</dd><dt>Total</dt><dd id="order-total">${formatPrice(t.totalCents)}</dd></dl></section></div>
<p><a href="/shop/orders">All orders</a> · <a href="/shop/">Continue shopping</a></p>`,
  );
}

export function ordersPage(ctx: PageContext): Html {
  const orders = [...ctx.shop.orders].reverse();
  if (orders.length === 0) {
    return layout(ctx, 'Orders', html`<h1>Your orders</h1><p>You have not placed any orders yet.</p><p><a href="/shop/">Start shopping</a></p>`);
  }
  const rows = orders.map(
    (o) => html`<tr><td><a href="/shop/orders/${o.number}">${o.number}</a></td><td>${o.lines.reduce((s, l) => s + l.qty, 0)}</td>
<td>${SHOP_DELIVERY_OPTIONS.find((x) => x.id === o.delivery)?.label ?? o.delivery}</td><td>${formatPrice(o.totals.totalCents)}</td></tr>`,
  );
  return layout(
    ctx,
    'Orders',
    html`<h1>Your orders</h1>${noticeBlock(ctx.state.notice)}<table><thead><tr><th>Order</th><th>Items</th><th>Delivery</th><th>Total</th></tr></thead><tbody>${rows}</tbody></table>`,
  );
}
