// Linux process-tree queries from /proc for test harnesses: the live descendants of a process and
// the members of a process group. Playwright starts Chromium in a process group of its own, so a
// service's group alone does not hold its browsers; the harness snapshots descendants before a
// signal and kills their groups after the exit.
import fs from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  comm: string;
}

function readStat(pid: number): ProcInfo | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
    const close = stat.lastIndexOf(')');
    const rest = stat.slice(close + 2).split(' ');
    return { pid, comm: stat.slice(stat.indexOf('(') + 1, close), state: rest[0] ?? '?', ppid: Number(rest[1]), pgid: Number(rest[2]) };
  } catch {
    return null;
  }
}

/** Every process on the machine that is not a zombie (empty where /proc is absent). */
export function listProcesses(): ProcInfo[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcInfo[] = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const p = readStat(Number(e));
    if (p && p.state !== 'Z') out.push(p);
  }
  return out;
}

/** Live descendants of `pid` (children, grandchildren, …), not including `pid`. */
export function descendants(pid: number): ProcInfo[] {
  const all = listProcesses();
  const byParent = new Map<number, ProcInfo[]>();
  for (const p of all) byParent.set(p.ppid, [...(byParent.get(p.ppid) ?? []), p]);
  const out: ProcInfo[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const c of byParent.get(queue.shift() as number) ?? []) {
      out.push(c);
      queue.push(c.pid);
    }
  }
  return out;
}

/** Live members of process group `pgid`. */
export function groupMembers(pgid: number): ProcInfo[] {
  return listProcesses().filter((p) => p.pgid === pgid);
}

/** True while `pid` exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  const p = readStat(pid);
  return p !== null && p.state !== 'Z';
}
