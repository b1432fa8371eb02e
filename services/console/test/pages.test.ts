// The console driven in a real Chromium against a real short run (nats-server, sites, learner,
// judge and an actor as processes; the console app in this process over real gRPC and NATS):
// a round finishing shows up on the open page without a reload; pause is refused without the
// token and works with it; navigation from the overview to a round, a group and a trajectory;
// the viewer shows the stored screenshot and the action of the step the learner reports; the
// actors table lists the run's actors with the policy versions they heartbeat; chart legends
// overlap neither the chart title nor each other as rendered.
// With OWRL_CONSOLE_SHOTS=<dir> it also saves the README screenshots (scripts/console-screenshots.mjs).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumArgs } from '@owrl/browser-env';
import { Blacklist, connectBus, ScreenshotStore, type Bus } from '@owrl/bus';
import { silentLogger } from '@owrl/core';
import { RunPhase } from '@owrl/proto';
import { startSystem, waitUntil } from '@owrl/testkit';
import { ConsoleApp } from '../src/app.js';
import { LearnerClient } from '@owrl/learner-client';

const TOKEN = 'console-test-token';
const SHOTS_DIR = process.env['OWRL_CONSOLE_SHOTS'];

async function confirmAndClick(page: Page, selector: string): Promise<void> {
  page.once('dialog', (d) => void d.accept());
  await page.click(selector);
}

void test('console pages in Chromium against a live run', { timeout: 8 * 60_000 }, async () => {
  const sys = await startSystem({
    actors: 1,
    slots: 2,
    learnerEnv: {
      OWRL_ROUNDS: '3',
      OWRL_GROUPS_PER_ROUND: '1',
      OWRL_GROUP_SIZE: '2',
      OWRL_CURRICULUM: '3:4',
      OWRL_DIFFICULTIES: '1',
      OWRL_TASK_COUNT: '12',
      OWRL_CONTROL_TOKEN: TOKEN,
    },
  });
  let bus: Bus | null = null;
  let app: ConsoleApp | null = null;
  let browser: Browser | null = null;
  const learner = new LearnerClient(sys.grpcAddress);
  try {
    await sys.waitForLearner();
    bus = await connectBus({ servers: sys.natsUrl, name: 'console-test' });
    app = new ConsoleApp({ learner, shots: new ScreenshotStore(bus), blacklist: await Blacklist.open(bus), controlToken: TOKEN, logger: silentLogger, pushIntervalMs: 100 });
    const base = `http://127.0.0.1:${await app.start(0, '127.0.0.1')}`;
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs() });
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });

    // Live: the overview gets the next finished round pushed, without a reload.
    await page.goto(`${base}/`);
    await page.waitForSelector('#live[data-rv]', { timeout: 30_000 });
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    const rowsAtLoad = await page.locator('#rounds tbody tr').count();
    await page.waitForFunction((n) => document.querySelectorAll('#rounds tbody tr').length > n, rowsAtLoad, { timeout: 5 * 60_000 });
    assert.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 42, 'the page was not reloaded');
    assert.ok(Number(await page.evaluate(() => document.body.dataset['updates'] ?? '0')) >= 1, 'updates arrived as server-sent events');
    assert.match((await page.locator('#chart-success').innerHTML()) ?? '', /<path class="series"/, 'the learning curve has a line');
    // Chart legends as rendered: no legend item overlaps the chart title or another item.
    const overlaps = await page.evaluate(() => {
      const out: string[] = [];
      const hit = (a: DOMRect, b: DOMRect) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
      for (const svg of Array.from(document.querySelectorAll('svg.chart'))) {
        const title = svg.querySelector<SVGGraphicsElement>('.chart-title');
        const items = Array.from(svg.querySelectorAll<SVGGraphicsElement>('.legend-item'));
        const boxes = items.map((g) => g.getBBox());
        boxes.forEach((b, i) => {
          const name = items[i]?.textContent ?? '';
          if (title && hit(b, title.getBBox())) out.push(`${svg.id}: "${name}" over the title`);
          for (let k = i + 1; k < boxes.length; k++) if (hit(b, boxes[k]!)) out.push(`${svg.id}: "${name}" over "${items[k]?.textContent ?? ''}"`);
        });
      }
      return out;
    });
    assert.deepEqual(overlaps, [], 'chart legends overlap');

    // Pause: refused without the token (the run keeps going), done with it (the page shows it live).
    await confirmAndClick(page, '#pause');
    await page.waitForFunction(() => /refused/.test(document.getElementById('control-result')?.textContent ?? ''));
    assert.match((await page.textContent('#control-result')) ?? '', /token/);
    assert.notEqual((await learner.getRunState()).phase, RunPhase.PAUSED);
    await page.fill('#token', TOKEN);
    await confirmAndClick(page, '#pause');
    await page.waitForFunction(() => document.getElementById('phase')?.textContent === 'paused', null, { timeout: 30_000 });
    assert.equal((await learner.getRunState()).phase, RunPhase.PAUSED);

    // Actors: the table lists the run's actors (KV owrl_actors, via the learner's run state) with
    // the policy version each one heartbeats.
    const tableRows = () =>
      page.$$eval('#actors tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent?.trim() ?? '')));
    const shown = await waitUntil(
      'the actors table to show the registered actors and their policy versions',
      async () => {
        // [id, slots, policy version]; busy moves with every episode, so it is left out.
        const live = (await sys.actors()).map((a) => [a.actorId, String(a.slots), String(a.policyVersion)]);
        const rows = (await tableRows()).map((r) => [r[0], r[1]?.split('/')[1], r[2]]);
        return live.length >= 1 && JSON.stringify(rows) === JSON.stringify(live) ? rows : undefined;
      },
      { timeoutMs: 40_000, intervalMs: 250 },
    );
    assert.equal(shown.length, 1, 'one actor in this run');
    if (SHOTS_DIR) {
      fs.mkdirSync(SHOTS_DIR, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS_DIR, 'console-overview.png'), fullPage: true });
    }
    await confirmAndClick(page, '#resume');
    await page.waitForFunction(() => document.getElementById('phase')?.textContent === 'running', null, { timeout: 30_000 });

    // Navigation: overview → round → group → trajectory.
    const round = (await page.locator('#rounds tbody tr td a').last().textContent())?.trim() ?? '';
    await page.click(`#rounds a[href="/rounds/${round}"]`);
    await page.waitForURL(`${base}/rounds/${round}`);
    assert.ok((await page.locator('#groups tbody tr').count()) >= 1, 'the round lists its groups');
    await page.locator('#groups tbody tr td a').first().click();
    await page.waitForURL(new RegExp(`/rounds/${round}/groups/\\d+$`));
    const rollouts = page.locator('.rollout');
    assert.ok((await rollouts.count()) >= 2, 'the group shows its rollouts side by side');
    await rollouts.first().locator('h3 a').click();
    await page.waitForURL(/\/trajectory\?id=/);

    // Viewer: the screenshot and the action of each step are the ones the learner holds.
    const id = new URL(page.url()).searchParams.get('id') ?? '';
    const scored = await learner.getTrajectory(id);
    const steps = scored.trajectory?.steps ?? [];
    assert.ok(steps.length >= 1, 'the trajectory has steps');
    const check = async (k: number): Promise<void> => {
      const st = steps[k]!;
      const sec = page.locator(`section#step-${st.index}`);
      await sec.waitFor({ state: 'visible' });
      const img = sec.locator('.shot img');
      assert.equal(await img.getAttribute('data-sha256'), st.screenshot?.sha256, `step ${st.index} screenshot`);
      await page.waitForFunction((sel) => (document.querySelector(sel) as HTMLImageElement | null)?.naturalWidth ?? 0, `section#step-${st.index} .shot img`);
      assert.equal(await sec.locator('.call-name').first().textContent(), st.results[0]?.call?.name, `step ${st.index} action`);
      const p = st.results[0]?.points[0];
      if (p) assert.deepEqual([await sec.locator('circle.mark').first().getAttribute('data-x'), await sec.locator('circle.mark').first().getAttribute('data-y')], [String(p.x), String(p.y)]);
      assert.equal(await page.locator('section.step:not([hidden])').count(), 1, 'one step shown at a time');
    };
    await check(0);
    if (SHOTS_DIR) await page.screenshot({ path: path.join(SHOTS_DIR, 'console-trajectory.png'), fullPage: true });
    if (steps.length > 1) {
      await page.click(`.step-list a[data-step="${steps[1]!.index}"]`);
      await check(1);
      assert.match(page.url(), new RegExp(`step=${steps[1]!.index}`));
    }
    assert.match((await page.textContent('#termination')) ?? '', /COMPLETED|STEP_BUDGET_EXHAUSTED|FORMAT_ERROR|GENERATION_LIMIT|ERROR/);
    assert.match((await page.textContent('#verdict')) ?? '', /reward|excluded/);
    assert.equal(sys.failure(), null);
  } finally {
    await browser?.close();
    await app?.stop();
    learner.close();
    await bus?.close();
    await sys.dispose();
  }
});
