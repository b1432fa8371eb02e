// Scripted solutions of every shop family, written against the pages' roles and accessible names
// and built from a task's metadata only: one PlanPolicy step per step of the family's route, so
// `plan.length === task.difficulty`. Answers are read from the observed page, never the catalog.
import type { PlanCall, PlanStep } from '@owrl/browser-env';
import type { Task } from '@owrl/proto';
import { button, checkbox, finish, link, meta, radio, readText, write } from './common.js';

const enter: PlanCall = { press: ['Enter'] };

/** Clicks the first product card of the listing on screen. */
const firstProduct: PlanStep = (input) => {
  const card = input.observation.elements.find((e) => e.role === 'link' && /\/shop\/p\//.test(e.href));
  if (card === undefined) throw new Error(`no product card on ${input.observation.url}`);
  return link(card.name);
};

/** The step that sets a scenario's second filter (suffix '' or '_b'). */
function filterStep(task: Task, suffix: string): PlanCall {
  const value = meta(task, `filter_value${suffix}`);
  switch (meta(task, `filter${suffix}`)) {
    case 'waterproof':
      return checkbox('Waterproof only');
    case 'brand':
      return checkbox(value);
    case 'color':
      return write(value, 'Colour', 'combobox');
    default:
      return write(value, 'Minimum rating', 'combobox');
  }
}

const cartLink = link(/^Cart \(\d+\)$/);

function checkoutForm(task: Task): PlanStep[] {
  return [
    write(meta(task, 'name'), 'Full name'),
    write(meta(task, 'address'), 'Address'),
    write(meta(task, 'city'), 'City'),
    write(meta(task, 'postcode'), 'Postcode'),
  ];
}

/** Category, open the filters, size, filter, apply, sort, first product (the link preselects the size). */
function filteredPick(task: Task, suffix: string): PlanStep[] {
  return [
    link(meta(task, `category_name${suffix}`)),
    button('Filters'),
    radio(meta(task, `size${suffix}`)),
    filterStep(task, suffix),
    button('Apply filters'),
    link('Price: low to high'),
    firstProduct,
  ];
}

const RATING = /^(\d\.\d) \/ 5 \(/;

/** The category the original cheapest families name in quotes (their metadata has only the slug). */
function quotedCategory(task: Task): string {
  const m = /"([^"]+)" category/.exec(task.instruction);
  if (m?.[1] === undefined) throw new Error(`${task.id}: no quoted category in ${task.instruction}`);
  return m[1];
}

/** The scripted solution of `task`, one entry per step. */
export function shopPlan(task: Task): PlanStep[] {
  const name = task.metadata['product_name'] ?? '';
  const qty = task.metadata['qty'] ?? '1';
  switch (task.family) {
    case 'price':
      return [(i) => ({ done: readText(i, /^\$[\d,]+\.\d\d$/, name) })];
    case 'sku':
      return [link(name), (i) => ({ done: readText(i, /^SKU: (\S+)$/) })];
    case 'search_sku':
      return [[write(name, 'Search products', 'searchbox'), enter], link(name), (i) => ({ done: readText(i, /^SKU: (\S+)$/) })];
    case 'add_to_cart':
      return [link(name), button('Add to cart'), finish];
    case 'add_qty':
      return [link(name), write(qty, 'Quantity', 'spinbutton'), button('Add to cart'), finish];
    case 'search_add':
      return [[write(name, 'Search products', 'searchbox'), enter], link(name), button('Add to cart'), finish];
    case 'cheapest_in_category':
      return [link(quotedCategory(task)), link('Price: low to high'), firstProduct, button('Add to cart'), finish];
    case 'cheapest_qty':
      return [link(quotedCategory(task)), link('Price: low to high'), firstProduct, write(qty, 'Quantity', 'spinbutton'), button('Add to cart'), finish];
    case 'compare_rating': {
      const ratings: number[] = [];
      return [
        link(meta(task, 'category_name')),
        link(name),
        (i) => {
          ratings.push(Number(readText(i, RATING)));
          return link(meta(task, 'category_name_b'));
        },
        link(meta(task, 'product_name_b')),
        (i) => {
          ratings.push(Number(readText(i, RATING)));
          return { done: (ratings[0] ?? 0) > (ratings[1] ?? 0) ? name : meta(task, 'product_name_b') };
        },
      ];
    }
    case 'promo_total':
      return [link(name), button('Add to cart'), cartLink, link('Checkout'), [write(meta(task, 'promo'), 'Promo code'), enter], (i) => ({ done: readText(i, /^Total: (\$[\d,]+\.\d\d)$/) })];
    case 'filter_cheapest':
      return [...filteredPick(task, ''), button('Add to cart'), finish];
    case 'multi_constraint':
      return [
        link(meta(task, 'category_name')),
        button('Filters'),
        radio(meta(task, 'size')),
        filterStep(task, ''),
        [write(meta(task, 'max_price'), 'Max price'), enter],
        link('Top rated'),
        firstProduct,
        write(qty, 'Quantity', 'spinbutton'),
        button('Add to cart'),
        finish,
      ];
    case 'checkout_confirm':
      return [link(name), radio(meta(task, 'size')), button('Add to cart'), cartLink, link('Checkout'), ...checkoutForm(task), radio(meta(task, 'delivery_label')), button('Place order'), finish];
    case 'checkout_two_items':
      return [
        link(meta(task, 'category_name')), link(name), radio(meta(task, 'size')), write(qty, 'Quantity', 'spinbutton'), button('Add to cart'),
        link(meta(task, 'category_name_b')), link(meta(task, 'product_name_b')), radio(meta(task, 'size_b')), button('Add to cart'),
        cartLink, link('Checkout'), ...checkoutForm(task), radio(meta(task, 'delivery_label')), button('Place order'), finish,
      ];
    case 'checkout_constrained':
      return [
        ...filteredPick(task, ''), write(qty, 'Quantity', 'spinbutton'), button('Add to cart'),
        ...filteredPick(task, '_b'), button('Add to cart'),
        cartLink, link('Checkout'), ...checkoutForm(task), write(meta(task, 'promo'), 'Promo code'), button('Place order'), finish,
      ];
    default:
      throw new Error(`no plan for family ${task.family}`);
  }
}
