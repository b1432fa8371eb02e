// Hand-made observations shaped like the bundled shop's pages, for candidate and policy tests.
import { type ElementInfo, type Observation, type TextItem } from '@owrl/core';

const BOX = { x: 10, y: 10, width: 100, height: 20 };

function el(id: number, role: string, tag: string, name: string, extra: Partial<ElementInfo> = {}): ElementInfo {
  return { id, role, tag, name, value: '', type: '', href: '', box: BOX, inViewport: true, context: '', frame: '', ...extra };
}
function tx(id: number, text: string, tag: string, context = '', inViewport = true): TextItem {
  return { id, text, tag, context, box: BOX, inViewport };
}

const ART = 'Blue Ceramic Mug $12.50 SKU: KT-4821 Quantity Add to cart Category Kitchen Color Blue';

export function productPage(): Observation {
  return {
    url: 'http://127.0.0.1:8400/shop/p/blue-ceramic-mug',
    title: 'Blue Ceramic Mug · Owrl Goods',
    tabs: [],
    elements: [
      el(1, 'link', 'a', 'Owrl Goods', { href: 'http://127.0.0.1:8400/shop/' }),
      el(2, 'link', 'a', 'Kitchen', { href: 'http://127.0.0.1:8400/shop/c/kitchen', context: 'Kitchen' }),
      el(3, 'link', 'a', 'Cart (0)', { href: 'http://127.0.0.1:8400/shop/cart' }),
      el(4, 'spinbutton', 'input', 'Quantity', { type: 'number', value: '1', context: 'Quantity Add to cart' }),
      el(5, 'button', 'button', 'Add to cart', { type: 'submit', context: 'Quantity Add to cart' }),
      el(6, 'link', 'a', 'Far away link', { href: 'http://127.0.0.1:8400/shop/x', inViewport: false }),
    ],
    texts: [
      tx(7, 'Blue Ceramic Mug', 'h1', ART),
      tx(8, '$12.50', 'p', ART),
      tx(9, 'SKU: KT-4821', 'p', ART),
      tx(10, 'Quantity', 'label', 'Quantity Add to cart'),
      tx(11, 'Kitchen', 'dd', ART),
    ],
    scrollY: 0,
    scrollMaxY: 400,
    viewport: { width: 1280, height: 720 },
    lastEffects: ['navigated to /shop/p/blue-ceramic-mug'],
    screenshots: [],
  };
}

export function categoryPage(): Observation {
  const cards = [
    ['Blue Ceramic Mug', '$12.50', 'blue-ceramic-mug'],
    ['Red Teapot', '$30.00', 'red-teapot'],
    ['Green Steel Whisk', '$7.95', 'green-steel-whisk'],
  ] as const;
  const elements: ElementInfo[] = [el(1, 'link', 'a', 'Price: low to high', { href: 'http://127.0.0.1:8400/shop/c/kitchen?sort=price_asc' })];
  const texts: TextItem[] = [tx(100, 'Kitchen', 'h1')];
  cards.forEach(([name, price, slug], i) => {
    const ctx = `${name} ${price}`;
    elements.push(el(10 + i, 'link', 'a', name, { href: `http://127.0.0.1:8400/shop/p/${slug}`, context: ctx }));
    texts.push(tx(20 + i, price, 'span', ctx));
  });
  return {
    url: 'http://127.0.0.1:8400/shop/c/kitchen',
    title: 'Kitchen · Owrl Goods',
    tabs: [],
    elements,
    texts,
    scrollY: 0,
    scrollMaxY: 0,
    viewport: { width: 1280, height: 720 },
    lastEffects: [],
    screenshots: [],
  };
}

export function homePage(): Observation {
  return {
    url: 'http://127.0.0.1:8400/shop/',
    title: 'Home · Owrl Goods',
    tabs: [],
    elements: [
      el(1, 'link', 'a', 'Kitchen', { href: 'http://127.0.0.1:8400/shop/c/kitchen', context: 'Kitchen' }),
      el(2, 'searchbox', 'input', 'Search products', { type: 'search', context: 'Search products Search' }),
      el(3, 'button', 'button', 'Search', { type: 'submit', context: 'Search products Search' }),
      el(4, 'combobox', 'select', 'Sort', {}),
    ],
    texts: [tx(5, 'Welcome to Owrl Goods', 'h1')],
    scrollY: 0,
    scrollMaxY: 0,
    viewport: { width: 1280, height: 720 },
    lastEffects: [],
    screenshots: [],
  };
}

/** Random candidate feature sets for numeric tests. */
export function randomFeatures(rng: () => number, c: number, maxF: number, dim: number): { index: Uint32Array; value: Float32Array }[] {
  return Array.from({ length: c }, () => {
    const n = 1 + Math.floor(rng() * maxF);
    return {
      index: Uint32Array.from({ length: n }, () => Math.floor(rng() * dim)),
      value: Float32Array.from({ length: n }, () => rng() * 2 - 0.5),
    };
  });
}
