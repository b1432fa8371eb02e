#!/usr/bin/env node
// Takes the README's screenshots of the bundled sites: starts the sites server (built code), opens
// a page of every hosted site in Chromium and writes docs/img/<site>.png (1280×800).
// Usage: npm run build && node scripts/screenshots.mjs [--out docs/img]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { chromiumArgs } from '@owrl/browser-env';
import { startSitesServer } from '../services/sites/dist/src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outArg = process.argv.indexOf('--out');
const out = path.resolve(root, outArg > 0 ? process.argv[outArg + 1] ?? '' : 'docs/img');
fs.mkdirSync(out, { recursive: true });

// A page that shows what a site is about (its home page unless listed).
const SHOWCASE = { shop: '/shop/c/clothing' };

const srv = await startSitesServer({ port: 0 });
const browser = await chromium.launch({ executablePath: process.env.OWRL_CHROMIUM || '/usr/bin/chromium', args: chromiumArgs() });
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  const page = await context.newPage();
  for (const site of srv.sites) {
    const where = SHOWCASE[site.name] ?? `/${site.name}/`;
    await page.goto(`${srv.url}${where}?owrl_session=screenshot-${site.name}`, { waitUntil: 'load' });
    const file = path.join(out, `${site.name}.png`);
    await page.screenshot({ path: file });
    console.log(`${site.name}: ${path.relative(root, file)}`);
  }
} finally {
  await browser.close();
  await srv.close();
}
