// End to end in real Chromium: a scripted "agent" solves one task of every shop family through
// the UI, and the task's own verifier accepts it; a wrong product in the cart is rejected.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Task } from '@owrl/proto';
import { chromiumArgs } from '@owrl/browser-env';
import { matchAnswer } from '@owrl/judge-core';
import { generateShopTasks, SHOP_FAMILIES, withSession } from '@owrl/tasks';
import { startSitesServer, type SitesServer } from '../src/index.js';


let srv: SitesServer;
let browser: Browser;

before(async () => {
  srv = await startSitesServer({ port: 0, seed: 3 });
  browser = await chromium.launch({ executablePath: process.env['OWRL_CHROMIUM'] || '/usr/bin/chromium', args: chromiumArgs() });
});
after(async () => {
  await browser?.close();
  await srv?.close();
});

/** Asks the task's site-state verifier, exactly as the judge does. */
async function siteState(task: Task, session: string): Promise<{ ok: boolean; detail: string }> {
  const v = task.verifier?.kind;
  assert.equal(v?.case, 'siteState', `${task.id} has a site-state verifier`);
  if (v?.case !== 'siteState') throw new Error('unreachable');
  const res = await fetch(`${v.value.endpoint}?session=${encodeURIComponent(session)}&spec=${encodeURIComponent(v.value.specJson)}`);
  assert.equal(res.status, 200);
  return (await res.json()) as { ok: boolean; detail: string };
}

function answerOk(task: Task, answer: string): boolean {
  const v = task.verifier?.kind;
  assert.equal(v?.case, 'answer', `${task.id} has an answer verifier`);
  if (v?.case !== 'answer') throw new Error('unreachable');
  return matchAnswer(v.value, answer).status === 'pass';
}

async function clickLink(page: Page, name: string): Promise<void> {
  const before = page.url();
  await Promise.all([page.waitForURL((u) => u.href !== before), page.getByRole('link', { name, exact: true }).first().click()]);
}

async function addToCart(page: Page, qty?: string): Promise<void> {
  if (qty !== undefined) {
    const field = page.getByLabel('Quantity');
    await field.fill(qty);
    // Enter in the quantity field must not submit (add_qty is "write, then click"); were it to,
    // the cart would end with a different quantity and the exact verifier below would fail.
    await field.press('Enter');
  }
  await page.getByRole('button', { name: 'Add to cart' }).click();
  await page.getByRole('status').filter({ hasText: 'Added to cart' }).waitFor();
}

async function search(page: Page, name: string): Promise<void> {
  const box = page.getByRole('searchbox', { name: 'Search products' });
  await box.fill(name);
  await Promise.all([page.waitForURL(/\/shop\/search\?q=/), box.press('Enter')]);
}

async function skuText(page: Page): Promise<string> {
  return (await page.locator('p.sku').innerText()).trim();
}

/** The scripted solution of each family, following its route; returns the done() answer. */
async function solve(page: Page, task: Task): Promise<string> {
  const name = task.metadata['product_name'] ?? '';
  const qty = task.metadata['qty'];
  const categoryName = /"([^"]+)" category/.exec(task.instruction)?.[1] ?? '';
  switch (task.family) {
    case 'price':
      return await page.locator('li.card', { has: page.getByRole('link', { name, exact: true }) }).locator('.price').innerText();
    case 'sku':
      await clickLink(page, name);
      return await skuText(page);
    case 'search_sku':
      await search(page, name);
      await clickLink(page, name);
      return await skuText(page);
    case 'add_to_cart':
      await clickLink(page, name);
      await addToCart(page);
      return 'ok';
    case 'add_qty':
      await clickLink(page, name);
      await addToCart(page, qty);
      return 'ok';
    case 'search_add':
      await search(page, name);
      await clickLink(page, name);
      await addToCart(page);
      return 'ok';
    case 'cheapest_in_category':
    case 'cheapest_qty': {
      await clickLink(page, categoryName);
      await clickLink(page, 'Price: low to high');
      await Promise.all([page.waitForURL(/\/shop\/p\//), page.locator('li.card a').first().click()]);
      assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), name, 'the first sorted card is the cheapest');
      await addToCart(page, task.family === 'cheapest_qty' ? qty : undefined);
      return 'ok';
    }
    default:
      throw new Error(`no script for family ${task.family}`);
  }
}

void test('a scripted agent solves one task of every family and the verifiers accept', async () => {
  const tasks = generateShopTasks({ seed: 21, n: SHOP_FAMILIES.length, baseUrl: srv.url, catalogSeed: 3 });
  assert.deepEqual(new Set(tasks.map((t) => t.family)), new Set(SHOP_FAMILIES.map((f) => f.name)));
  for (const task of tasks) {
    const session = `test/${task.id}`;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(withSession(task.startUrl, session));
      const answer = await solve(page, task);
      const family = SHOP_FAMILIES.find((f) => f.name === task.family);
      if (family?.check === 'answer') {
        assert.ok(answerOk(task, answer), `${task.id}: answer ${JSON.stringify(answer)} accepted`);
        assert.equal(answerOk(task, `${answer}9`), false, `${task.id}: a wrong answer is rejected`);
      } else {
        const r = await siteState(task, session);
        assert.equal(r.ok, true, `${task.id}: ${r.detail}`);
        // The cookie, not the URL, carries the session after the first page.
        assert.ok(!page.url().includes('owrl_session'), page.url());
      }
    } finally {
      await context.close();
    }
  }
});

void test('a wrong product in the cart is rejected, and sessions stay apart', async () => {
  const [task] = generateShopTasks({ seed: 5, n: 1, baseUrl: srv.url, catalogSeed: 3, families: ['add_to_cart'] });
  assert.ok(task);
  const wanted = task.metadata['product_name'] ?? '';
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(withSession(task.startUrl, 'wrong-1'));
    const other = (await page.locator('li.card a').allInnerTexts()).find((n) => n !== wanted);
    assert.ok(other);
    await clickLink(page, other);
    await addToCart(page);
    const r = await siteState(task, 'wrong-1');
    assert.equal(r.ok, false);
    assert.match(r.detail, /want 1, have 0/);

    // Adding the right product as well still fails: the spec is exact.
    const categoryName = srv.catalog.categories.find((c) => c.slug === task.metadata['category'])?.name ?? '';
    await clickLink(page, categoryName);
    await clickLink(page, wanted);
    await addToCart(page);
    assert.equal((await siteState(task, 'wrong-1')).ok, false);
    await page.goto(`${srv.url}/shop/cart`);
    await Promise.all([page.waitForURL(/\/shop\/cart$/), page.getByRole('button', { name: `Remove ${other}` }).click()]);
    await page.getByRole('status').filter({ hasText: 'Removed from cart' }).waitFor();
    assert.equal((await siteState(task, 'wrong-1')).ok, true);
    // A different session never sees this cart.
    assert.equal((await siteState(task, 'wrong-2')).ok, false);
  } finally {
    await context.close();
  }
});
