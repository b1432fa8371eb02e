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
  /** CPU time in clock ticks: its own (user + system), and that of its children it has reaped. */
  cpuTicks: number;
  reapedTicks: number;
  /** Start time after boot, in clock ticks: with the pid, names one process (a pid is reused). */
  start: number;
}

/** /proc/<pid>/stat of one process, or null when it is gone (or /proc is absent). */
export function readStat(pid: number): ProcInfo | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid pgrp … utime(11) stime(12) cutime(13) cstime(14) … starttime(19),
    // counted after the comm, which may hold spaces and parentheses.
    const close = stat.lastIndexOf(')');
    const f = stat.slice(close + 2).split(' ');
    const n = (i: number): number => Number(f[i] ?? 0);
    return { pid, comm: stat.slice(stat.indexOf('(') + 1, close), state: f[0] ?? '?', ppid: n(1), pgid: n(2), cpuTicks: n(11) + n(12), reapedTicks: n(13) + n(14), start: n(19) };
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
