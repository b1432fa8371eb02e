// test-run: alone (measures the memory of its own Chromium processes over 80 episodes)
// Hygiene over many episodes (docs/design.md §5): 80 short episodes through one pool of 4 slots that
// recycles Chromium every 20 episodes (4 browsers, 3 recycles; 300 episodes recycled every 50
// took minutes of `npm test` for no further check). Afterwards no Chromium process of ours is
// left, alive or zombie, and the memory of our Chromium processes, sampled every 20 episodes,
// stays bounded. The memory per episode over long runs is measured by `npm run bench -- env`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, it } from 'node:test';
import { BrowserPool, type PolicyInput, type StepDecision } from '../src/index.js';
import { listProcesses, processTree, pssBytes } from '@owrl/core';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

const EPISODES = 80;
const SLOTS = 4;
const RECYCLE_EVERY = 20;
const SAMPLE_EVERY = 20;
const MiB = 1024 * 1024;

let srv: FixtureServer;
void before(async () => {
  srv = await startFixtureServer();
});
void after(async () => {
  await srv.close();
});

/** Start time (clock ticks since boot) of a process: with the pid it names one process for good. */
function startTime(pid: number): string | null {
  try {
    const t = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return t.slice(t.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Chromium processes descending from this process (browsers, zygotes, renderers, utilities). */
function ourChromium(): number[] {
  return processTree(process.pid)
    .filter((p) => p.pid !== process.pid && /chrom/i.test(p.comm))
    .map((p) => p.pid);
}

interface Sample {
  episodes: number;
  /** PSS summed over all our Chromium processes (whatever the pool knows about), MiB. */
  pssMiB: number;
  /** Browser processes (direct Chromium children of ours) alive at the sample. */
  browsers: number;
  processes: number;
}

void it(`${EPISODES} episodes with recycling leave no Chromium process and bounded memory`, async () => {
  const pool = new BrowserPool({
    allowHosts: [srv.hostPort],
    maxEpisodesPerBrowser: RECYCLE_EVERY,
    timeouts: { initRetries: 0, toolCallMs: 5000, stepMs: 10_000, closeMs: 5000 },
  });
  const seen = new Map<number, string>(); // pid -> start time, of every Chromium process we saw
  const samples: Sample[] = [];
  const sample = (episodes: number): void => {
    const pids = ourChromium();
    for (const pid of pids) {
      const st = startTime(pid);
      if (st) seen.set(pid, st);
    }
    const browsers = listProcesses().filter((p) => p.ppid === process.pid && /chrom/i.test(p.comm) && p.state !== 'Z').length;
    const pss = pids.reduce((s, pid) => s + pssBytes(pid), 0);
    samples.push({ episodes, pssMiB: Math.round(pss / MiB), browsers, processes: pids.length });
  };
  // one step (done) or two (click the link, then done), alternating
  const policy = (twoSteps: boolean) => ({
    needsScreenshot: false,
    decide: (i: PolicyInput): Promise<StepDecision<string>> => {
      if (twoSteps && i.step === 0) {
        const a = i.observation.elements.find((e) => e.name === 'Again');
        return Promise.resolve({ reasoning: '', calls: [{ name: 'click', args: { element_id: a?.id ?? 0 } }] });
      }
      return Promise.resolve({ reasoning: '', calls: [{ name: 'done', args: { response: 'ok' } }] });
    },
  });
  const classes = new Map<string, number>();
  let next = 0;
  let completed = 0;
  const t0 = performance.now();
  try {
    await Promise.all(
      Array.from({ length: SLOTS }, async () => {
        while (next < EPISODES) {
          const n = next++;
          const r = await pool.runEpisode({ startUrl: `${srv.origin}/tiny`, instruction: 'x', maxSteps: 2, finalScreenshot: false }, policy(n % 2 === 1));
          const key = `${r.termination.cls}:${r.termination.reason}`;
          classes.set(key, (classes.get(key) ?? 0) + 1);
          completed++;
          if (completed % SAMPLE_EVERY === 0) sample(completed);
        }
      }),
    );
    const st = pool.stats();
    assert.equal(st.active, 0);
    assert.equal(st.launches, EPISODES / RECYCLE_EVERY, `exactly one Chromium per ${RECYCLE_EVERY} episodes`);
  } finally {
    await pool.close();
  }
  const wallS = (performance.now() - t0) / 1000;
  console.error(`hygiene: ${EPISODES} episodes in ${wallS.toFixed(1)} s; samples ${JSON.stringify(samples)}; terminations ${JSON.stringify([...classes])}`);

  assert.deepEqual([...classes], [['COMPLETED:done', EPISODES]]);
  // nothing of ours survives: no Chromium descendant, no zombie child, and none of the processes
  // seen during the run (orphans would have been re-parented away from us) is still there
  assert.deepEqual(ourChromium(), []);
  const zombies = listProcesses().filter((p) => p.ppid === process.pid && p.state === 'Z');
  assert.deepEqual(zombies, []);
  // Chromium's zygote and renderers outlive the browser process by a moment and are re-parented
  // to init, which reaps them: give that a few seconds, then nothing may be left, zombie or not
  const survivors = (): number[] => [...seen].filter(([pid, st]) => startTime(pid) === st).map(([pid]) => pid);
  const tw = performance.now();
  while (survivors().length > 0 && performance.now() - tw < 10_000) await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(survivors(), [], 'a Chromium process of the run is still there');
  assert.ok(seen.size >= (EPISODES / RECYCLE_EVERY) * 3, `the scans saw the Chromium trees (${seen.size} processes)`);

  // At most the current browser and one draining browser at any sample: recycled ones are gone.
  for (const s of samples) assert.ok(s.browsers >= 1 && s.browsers <= 2, JSON.stringify(s));
  // Memory stays bounded: each sample holds one or two browsers with at most 4 tiny pages, so it
  // may vary by one browser's base footprint (the first sample is one such browser after
  // RECYCLE_EVERY episodes) but must not grow with the episodes served; a leak of contexts or of whole
  // browsers would add to every later sample. Bound: twice the first sample, plus 64 MiB slack.
  assert.equal(samples.length, EPISODES / SAMPLE_EVERY);
  const first = samples[0]!.pssMiB;
  const bound = 2 * first + 64;
  for (const s of samples) assert.ok(s.pssMiB <= bound, `PSS ${s.pssMiB} MiB after ${s.episodes} episodes exceeds ${bound} MiB (first ${first} MiB)`);
});
