// A browser-free imitation of the bundled shop ("Owrl Goods") for learning tests: observations
// shaped like the ones packages/browser-env extracts from the real pages (elements with roles,
// names, hrefs and card contexts; short texts; effect lines), the same task families and
// verifiers, and a fresh random catalog per task so that only generic features can succeed.
import { type ElementInfo, type HistoryEntry, type Observation, type Rng, type TextItem, type ToolCallSpec } from '@owrl/core';

export const BASE = 'http://127.0.0.1:8400';

export type Family = 'price' | 'sku' | 'add_to_cart' | 'search_sku' | 'add_qty' | 'search_add' | 'cheapest_in_category' | 'cheapest_qty';
export const FAMILIES: readonly Family[] = ['price', 'sku', 'add_to_cart', 'search_sku', 'add_qty', 'search_add', 'cheapest_in_category', 'cheapest_qty'];

interface Product {
  id: string;
  name: string;
  cat: string;
  price: number;
  sku: string;
  color: string;
  material: string;
}
interface Category {
  slug: string;
  name: string;
}

const CATS: readonly { slug: string; name: string; prefix: string; nouns: string[]; materials: string[] }[] = [
  { slug: 'kitchen', name: 'Kitchen', prefix: 'KT', nouns: ['Mug', 'Teapot', 'Skillet', 'Colander', 'Whisk', 'Ladle', 'Kettle', 'Spatula', 'Grater', 'Saucepan', 'Tumbler', 'Cleaver'], materials: ['Ceramic', 'Steel', 'Copper', 'Bamboo', 'Glass', 'Enamel'] },
  { slug: 'outdoor', name: 'Outdoor', prefix: 'OD', nouns: ['Tent', 'Lantern', 'Hammock', 'Backpack', 'Canteen', 'Compass', 'Tarp', 'Poncho', 'Trowel', 'Cooler', 'Binoculars', 'Hatchet'], materials: ['Nylon', 'Canvas', 'Aluminum', 'Waxed', 'Rubber', 'Titanium'] },
  { slug: 'office', name: 'Office', prefix: 'OF', nouns: ['Stapler', 'Notebook', 'Binder', 'Planner', 'Pen', 'Marker', 'Clipboard', 'Organizer', 'Ruler', 'Calculator', 'Folder', 'Easel'], materials: ['Leather', 'Metal', 'Recycled', 'Oak', 'Walnut', 'Cork'] },
  { slug: 'toys', name: 'Toys', prefix: 'TY', nouns: ['Robot', 'Kite', 'Puzzle', 'Yoyo', 'Train', 'Dinosaur', 'Blocks', 'Marbles', 'Rocket', 'Spinner', 'Glider', 'Drum'], materials: ['Wooden', 'Plush', 'Foam', 'Tin', 'Felt', 'Magnetic'] },
  { slug: 'audio', name: 'Audio', prefix: 'AU', nouns: ['Headphones', 'Speaker', 'Earbuds', 'Turntable', 'Microphone', 'Amplifier', 'Radio', 'Soundbar', 'Subwoofer', 'Receiver', 'Mixer', 'Metronome'], materials: ['Wireless', 'Studio', 'Portable', 'Vintage', 'Acoustic', 'Digital'] },
];
const COLORS = ['Blue', 'Red', 'Green', 'Amber', 'Black', 'White', 'Silver', 'Coral', 'Teal', 'Violet', 'Orange', 'Olive', 'Navy', 'Ivory', 'Crimson'];

function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[Math.floor(rng() * xs.length)] as T;
}
function shuffle<T>(rng: Rng, xs: readonly T[]): T[] {
  const a = xs.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a;
}
export function fmtPrice(c: number): string {
  return `$${Math.floor(c / 100).toLocaleString('en-US')}.${String(c % 100).padStart(2, '0')}`;
}

export class Catalog {
  readonly products: Product[] = [];
  readonly categories: Category[] = CATS.map((c) => ({ slug: c.slug, name: c.name }));
  readonly featured: Product[];
  constructor(rng: Rng) {
    for (const c of CATS) {
      const prices = new Set<number>();
      for (const noun of shuffle(rng, c.nouns).slice(0, 8)) {
        const color = pick(rng, COLORS);
        const material = pick(rng, c.materials);
        const name = rng() < 0.6 ? `${color} ${material} ${noun}` : `${color} ${noun}`;
        let price: number;
        do price = (2 + Math.floor(rng() * 150)) * 100 + pick(rng, [0, 50, 95, 99, 25, 75]);
        while (prices.has(price));
        prices.add(price);
        const sku = `${c.prefix}-${1000 + Math.floor(rng() * 9000)}`;
        this.products.push({ id: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'), name, cat: c.slug, price, sku, color, material });
      }
    }
    this.featured = shuffle(rng, this.products).slice(0, 4);
  }
  list(cat: string, sort: string): Product[] {
    const xs = this.products.filter((p) => p.cat === cat);
    if (sort === 'price_asc') return xs.sort((a, b) => a.price - b.price);
    if (sort === 'price_desc') return xs.sort((a, b) => b.price - a.price);
    return xs.sort((a, b) => a.name.localeCompare(b.name, 'en'));
  }
  search(q: string): Product[] {
    const toks = q.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
    if (toks.length === 0) return [];
    return this.products.filter((p) => {
      const hay = new Set(`${p.name} ${p.cat} ${p.color} ${p.material}`.toLowerCase().split(/[^a-z0-9]+/));
      return toks.every((t) => hay.has(t));
    });
  }
}

export interface FakeTask {
  family: Family;
  instruction: string;
  startUrl: string;
  catalog: Catalog;
  /** Reward of a finished episode: 1 when the answer / cart is right, else 0. */
  verify(response: string | undefined, cart: ReadonlyMap<string, number>): number;
}

export function makeTask(rng: Rng, family: Family): FakeTask {
  const catalog = new Catalog(rng);
  const p = pick(rng, catalog.products);
  const cat = pick(rng, catalog.categories);
  const cheapest = catalog.list(cat.slug, 'price_asc')[0] as Product;
  const qty = 2 + Math.floor(rng() * 4);
  const catUrl = `${BASE}/shop/c/${p.cat}`;
  const home = `${BASE}/shop/`;
  const answer = (want: string) => (r: string | undefined) => (r !== undefined && r.toLowerCase().includes(want.toLowerCase()) ? 1 : 0);
  const cartHas = (id: string, n?: number) => (r: string | undefined, cart: ReadonlyMap<string, number>) =>
    r !== undefined && (n === undefined ? (cart.get(id) ?? 0) >= 1 : cart.get(id) === n) ? 1 : 0;
  switch (family) {
    case 'price':
      return { family, catalog, instruction: `What is the price of "${p.name}"?`, startUrl: catUrl, verify: answer(fmtPrice(p.price)) };
    case 'sku':
      return { family, catalog, instruction: `What is the SKU of "${p.name}"?`, startUrl: catUrl, verify: answer(p.sku) };
    case 'add_to_cart':
      return { family, catalog, instruction: `Add "${p.name}" to the cart.`, startUrl: catUrl, verify: cartHas(p.id) };
    case 'search_sku':
      return { family, catalog, instruction: `Search for "${p.name}" and report its SKU.`, startUrl: home, verify: answer(p.sku) };
    case 'add_qty':
      return { family, catalog, instruction: `Add ${qty} of "${p.name}" to the cart.`, startUrl: catUrl, verify: cartHas(p.id, qty) };
    case 'search_add':
      return { family, catalog, instruction: `Search for "${p.name}" and add it to the cart.`, startUrl: home, verify: cartHas(p.id) };
    case 'cheapest_in_category':
      return { family, catalog, instruction: `Add the cheapest item in the "${cat.name}" category to the cart.`, startUrl: home, verify: cartHas(cheapest.id) };
    case 'cheapest_qty':
      return { family, catalog, instruction: `Add ${qty} of the cheapest item in the "${cat.name}" category to the cart.`, startUrl: home, verify: cartHas(cheapest.id, qty) };
  }
}

const BOX = { x: 0, y: 0, width: 100, height: 20 };

/** Mutable state of one episode in the fake shop. */
export class FakeSession {
  url: string;
  private stack: string[] = [];
  readonly cart = new Map<string, number>();
  private notice = '';
  private fields = new Map<string, string>();
  private scrollY = 0;
  private lastEffects: string[] = [];
  private els: ElementInfo[] = [];
  private actions = new Map<number, () => string[]>();
  readonly history: HistoryEntry[] = [];

  constructor(readonly task: FakeTask) {
    this.url = task.startUrl;
  }

  private path(): { path: string; query: URLSearchParams } {
    const u = new URL(this.url);
    return { path: u.pathname, query: u.searchParams };
  }

  private header(cur: string): { els: Omit<ElementInfo, 'id'>[]; act: (() => string[])[] } {
    const cartN = [...this.cart.values()].reduce((a, b) => a + b, 0);
    const headerText = `Owrl Goods ${this.task.catalog.categories.map((c) => c.name).join(' ')} Cart (${cartN})`;
    const els: Omit<ElementInfo, 'id'>[] = [];
    const act: (() => string[])[] = [];
    const link = (name: string, href: string, context: string) => {
      els.push({ role: 'link', tag: 'a', name, value: '', type: '', href, box: BOX, inViewport: true, context, frame: '' });
      act.push(() => this.navigate(href));
    };
    link('Owrl Goods', `${BASE}/shop/`, headerText);
    for (const c of this.task.catalog.categories) link(c.name, `${BASE}/shop/c/${c.slug}`, c.name);
    link(`Cart (${cartN})`, `${BASE}/shop/cart`, headerText);
    void cur;
    return { els, act };
  }

  navigate(href: string): string[] {
    const before = this.url;
    this.stack.push(this.url);
    this.url = href;
    this.scrollY = 0;
    this.notice = '';
    this.fields.clear();
    return before === href ? ['dom_changed: 0 added, 0 removed interactive elements'] : [`navigated to ${new URL(href).pathname}${new URL(href).search}`];
  }

  /** The current observation; element ids are valid for the next act(). */
  observe(): Observation {
    const { path, query } = this.path();
    const cat = this.task.catalog;
    const h = this.header(path);
    const els = [...h.els];
    const acts = [...h.act];
    const texts: Omit<TextItem, 'id'>[] = [];
    let title = 'Owrl Goods';
    let scrollMaxY = 0;
    const text = (t: string, tag: string, context: string) => texts.push({ text: t, tag, context, box: BOX, inViewport: true });
    const cards = (ps: readonly Product[]) => {
      ps.forEach((p, i) => {
        const ctx = `${p.name} ${fmtPrice(p.price)}`;
        const inViewport = i < 8 || this.scrollY > 0;
        els.push({ role: 'link', tag: 'a', name: p.name, value: '', type: '', href: `${BASE}/shop/p/${p.id}`, box: BOX, inViewport, context: ctx, frame: '' });
        acts.push(() => this.navigate(`${BASE}/shop/p/${p.id}`));
        texts.push({ text: fmtPrice(p.price), tag: 'span', context: ctx, box: BOX, inViewport });
      });
    };
    const searchForm = (q: string) => {
      els.push({ role: 'searchbox', tag: 'input', name: 'Search products', value: this.fields.get('q') ?? q, type: 'search', href: '', box: BOX, inViewport: true, context: 'Search products Search', frame: '' });
      acts.push(() => ['no_effect']);
      els.push({ role: 'button', tag: 'button', name: 'Search', value: '', type: 'submit', href: '', box: BOX, inViewport: true, context: 'Search products Search', frame: '' });
      acts.push(() => this.navigate(`${BASE}/shop/search?q=${encodeURIComponent(this.fields.get('q') ?? q)}`));
      text('Search products', 'label', 'Search products Search');
    };
    const noticeText = () => {
      if (this.notice) text(this.notice, 'p', this.notice);
    };
    let m: RegExpExecArray | null;
    if (path === '/shop/' || path === '/shop') {
      title = 'Home · Owrl Goods';
      text('Welcome to Owrl Goods', 'h1', '');
      noticeText();
      searchForm('');
      text('Featured', 'h2', '');
      cards(cat.featured);
    } else if ((m = /^\/shop\/c\/([a-z]+)$/.exec(path))) {
      const c = cat.categories.find((x) => x.slug === m?.[1]);
      const sort = query.get('sort') ?? 'name';
      title = `${c?.name ?? 'Not found'} · Owrl Goods`;
      text(c?.name ?? 'Not found', 'h1', '');
      noticeText();
      text('Sort by', 'span', 'Sort by Price: low to high Price: high to low');
      for (const [s, label] of [['price_asc', 'Price: low to high'], ['price_desc', 'Price: high to low']] as const) {
        const href = `${BASE}/shop/c/${c?.slug ?? ''}?sort=${s}`;
        els.push({ role: 'link', tag: 'a', name: label, value: '', type: '', href, box: BOX, inViewport: true, context: 'Sort by Price: low to high Price: high to low', frame: '' });
        acts.push(() => this.navigate(href));
      }
      if (c) cards(cat.list(c.slug, sort));
      scrollMaxY = 300;
    } else if (path === '/shop/search') {
      const q = query.get('q') ?? '';
      title = `Search: ${q} · Owrl Goods`;
      text('Search results', 'h1', '');
      searchForm(q);
      const rs = cat.search(q);
      text(rs.length === 0 ? `No products match "${q}".` : `${rs.length} ${rs.length === 1 ? 'result' : 'results'}`, 'p', '');
      cards(rs);
    } else if ((m = /^\/shop\/p\/([a-z0-9-]+)$/.exec(path))) {
      const p = cat.products.find((x) => x.id === m?.[1]);
      if (p) {
        title = `${p.name} · Owrl Goods`;
        const art = `${p.name} ${fmtPrice(p.price)} SKU: ${p.sku} Quantity Add to cart Category ${p.cat} Color ${p.color} Material ${p.material}`.slice(0, 200);
        noticeText();
        text(p.name, 'h1', art);
        text(fmtPrice(p.price), 'p', art);
        text(`SKU: ${p.sku}`, 'p', art);
        text(p.sku, 'span', art);
        text('Quantity', 'label', 'Quantity Add to cart');
        els.push({ role: 'spinbutton', tag: 'input', name: 'Quantity', value: this.fields.get('qty') ?? '1', type: 'number', href: '', box: BOX, inViewport: true, context: 'Quantity Add to cart', frame: '' });
        acts.push(() => ['no_effect']);
        els.push({ role: 'button', tag: 'button', name: 'Add to cart', value: '', type: 'submit', href: '', box: BOX, inViewport: true, context: 'Quantity Add to cart', frame: '' });
        acts.push(() => {
          const n = Number(this.fields.get('qty') ?? '1');
          this.cart.set(p.id, (this.cart.get(p.id) ?? 0) + n);
          this.notice = `Added ${n} × ${p.name} to the cart.`;
          this.fields.clear();
          return ['dom_changed: 1 added, 1 removed interactive elements'];
        });
        for (const [k, v] of [['Category', cat.categories.find((c) => c.slug === p.cat)?.name ?? ''], ['Color', p.color], ['Material', p.material], ['Rating', '4.2 / 5'], ['Stock', '17 in stock']]) {
          text(k ?? '', 'dt', art);
          text(v ?? '', 'dd', art);
        }
        scrollMaxY = 120;
      }
    } else if (path === '/shop/cart') {
      title = 'Cart · Owrl Goods';
      text('Your cart', 'h1', '');
      if (this.cart.size === 0) text('Your cart is empty.', 'p', '');
      for (const [id, n] of this.cart) {
        const p = cat.products.find((x) => x.id === id);
        if (!p) continue;
        const row = `${p.name} ${n} ${fmtPrice(p.price)} ${fmtPrice(p.price * n)} Remove`;
        els.push({ role: 'link', tag: 'a', name: p.name, value: '', type: '', href: `${BASE}/shop/p/${p.id}`, box: BOX, inViewport: true, context: row, frame: '' });
        acts.push(() => this.navigate(`${BASE}/shop/p/${p.id}`));
        els.push({ role: 'button', tag: 'button', name: `Remove ${p.name}`, value: '', type: 'submit', href: '', box: BOX, inViewport: true, context: row, frame: '' });
        acts.push(() => {
          this.cart.delete(id);
          return ['dom_changed: 0 added, 2 removed interactive elements'];
        });
        text(String(n), 'td', row);
        text(fmtPrice(p.price), 'td', row);
      }
    } else {
      text('Not found', 'h1', '');
    }
    this.els = els.map((e, i) => ({ ...e, id: i + 1 }));
    this.actions = new Map(acts.map((a, i) => [i + 1, a]));
    return {
      url: this.url,
      title,
      tabs: [{ index: 0, url: this.url, title, active: true }],
      elements: this.els,
      texts: texts.map((t, i) => ({ ...t, id: els.length + i + 1 })),
      scrollY: this.scrollY,
      scrollMaxY,
      viewport: { width: 1280, height: 720 },
      lastEffects: this.lastEffects,
      screenshots: [],
    };
  }

  /** Applies one step's calls; returns the done response when the policy finished. */
  act(calls: readonly ToolCallSpec[], reasoning: string, step: number): string | undefined {
    const effects: string[] = [];
    const url = this.url;
    let done: string | undefined;
    for (const c of calls) {
      const id = Number(c.args['element_id']);
      if (c.name === 'click') {
        effects.push(...(this.actions.get(id)?.() ?? ['error: element_not_found']));
      } else if (c.name === 'write') {
        const el = this.els.find((e) => e.id === id);
        const msg = String(c.args['message']);
        if (el?.name === 'Quantity') {
          if (/^\d+$/.test(msg)) this.fields.set('qty', msg);
        } else if (el?.role === 'searchbox') this.fields.set('q', msg);
        effects.push(`value_set ${JSON.stringify(msg)} in ${el?.name ?? ''}`);
      } else if (c.name === 'press_keys') {
        if (this.fields.has('q')) effects.push(...this.navigate(`${BASE}/shop/search?q=${encodeURIComponent(this.fields.get('q') ?? '')}`));
        else effects.push('no_effect');
      } else if (c.name === 'scroll') {
        effects.push('scrolled down 300px');
        this.scrollY = 300;
      } else if (c.name === 'go_back') {
        const prev = this.stack.pop();
        if (prev) {
          this.url = prev;
          this.notice = '';
          this.fields.clear();
          effects.push(`navigated to ${new URL(prev).pathname}`);
        } else effects.push('no_effect');
      } else if (c.name === 'done') {
        done = String(c.args['response'] ?? '');
      }
    }
    this.lastEffects = effects;
    this.history.push({ step, reasoning, calls: [...calls], effects, url });
    return done;
  }
}
