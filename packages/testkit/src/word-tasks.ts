// The language-model loops' task family: one-step "answer with the word W" tasks on a bundled
// page, verified by answer match, so any policy that can call `done` is scored without a site oracle.
import fs from 'node:fs';
import type { OwrlSystem } from './system.js';

/** The words the tasks ask for, in task order (`words/<i>` asks for `LOOP_WORDS[i]`). */
export const LOOP_WORDS = ['amber', 'birch', 'cobalt', 'dune', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'juniper', 'kelp', 'lagoon'] as const;

/** Writes `n` word tasks as a JSONL task file; they start on the first shop task's page of `sys`'s sites. */
export async function writeWordTasks(sys: OwrlSystem, file: string, n: number): Promise<void> {
  const res = await fetch(`${sys.sitesUrl}/__owrl/tasks?suite=shop&seed=1&n=1`);
  const first = JSON.parse((await res.text()).split('\n')[0] ?? '{}') as { startUrl?: string; start_url?: string };
  const startUrl = first.startUrl ?? first.start_url ?? `${sys.sitesUrl}/`;
  const lines = LOOP_WORDS.slice(0, n).map((w, i) =>
    JSON.stringify({ id: `words/${i}`, suite: 'words', startUrl, instruction: `Answer with the single word ${w} and nothing else.`, difficulty: 1, verifier: { answer: { accepted: [w], normalize: true } } }),
  );
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

/** Starts the learner, the judge and every actor of a system started with nothing autostarted. */
export function startLoopServices(sys: OwrlSystem): void {
  for (const n of ['learner', 'judge', ...sys.names().filter((x) => x.startsWith('actor-'))]) sys.start(n);
}
