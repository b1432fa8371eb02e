// Prints the top functions of a V8 .cpuprofile by self time and by inclusive time (the fleet
// bench's OWRL_BENCH_LEARNER_PROFILE writes one):  node bench/dist/src/profile-top.js <file> [n]
import fs from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (!file) throw new Error('usage: profile-top <file.cpuprofile> [n]');
const n = Number(process.argv[3] ?? '30');
const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(p.nodes.map((x) => [x.id, x]));
const parent = new Map<number, number>();
for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
const selfUs = new Map<number, number>();
p.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const label = (x: Node) => `${x.callFrame.functionName || '(anon)'} ${x.callFrame.url.replace(/^.*\/(services|packages|node_modules)\//, '$1/')}:${x.callFrame.lineNumber + 1}`;
const self = new Map<string, number>();
const incl = new Map<string, number>();
for (const [id, us] of selfUs) {
  const x = byId.get(id);
  if (!x) continue;
  self.set(label(x), (self.get(label(x)) ?? 0) + us);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const y = byId.get(cur);
    if (!y) break;
    const l = label(y);
    if (seen.has(l)) continue;
    seen.add(l);
    incl.set(l, (incl.get(l) ?? 0) + us);
  }
}
const pct = (us: number) => `${((100 * us) / total).toFixed(1)}%`.padStart(6);
console.log(`total ${(total / 1e6).toFixed(1)} s sampled`);
console.log('--- self');
for (const [l, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(pct(us), l);
console.log('--- inclusive');
for (const [l, us] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(pct(us), l);
