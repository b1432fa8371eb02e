// Linux /proc readers, the one place owrl reads /proc: a process's stat line, every process on the
// machine, a process tree (children found through the ppid field), command lines, and memory (PSS
// from smaps_rollup, RSS as fallback and for comparison). Used by the browser environment (its
// Chromium's tree and memory), the test kit (a service's descendants before a signal) and the
// benchmarks. Off Linux, or once a process is gone, they return empty results instead of throwing.
import fs from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  /** Process group. */
  pgid: number;
  state: string;
  comm: string;
  /** CPU time in clock ticks: its own (user + system), and that of its children it has reaped. */
  cpuTicks: number;
  reapedTicks: number;
  /** Start time after boot, in clock ticks: with the pid, names one process (a pid is reused). */
  start: number;
}

/** Parses a /proc/<pid>/stat line (the comm field may hold spaces and parentheses); null when it is not one. */
export function parseProcStat(text: string): ProcInfo | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  // state ppid pgrp … utime(11) stime(12) cutime(13) cstime(14) … starttime(19), counted after the comm
  const f = text.slice(close + 2).split(' ');
  const n = (i: number): number => Number(f[i] ?? 0);
  const ppid = Number(f[1]);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid)) return null;
  return { pid, ppid, pgid: n(2), state: f[0] ?? '?', comm: text.slice(open + 1, close), cpuTicks: n(11) + n(12), reapedTicks: n(13) + n(14), start: n(19) };
}

function readProc(pid: number, file: string): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;
  }
}

/** /proc/<pid>/stat of one process, or null when it is gone (or /proc is absent). */
export function readProcStat(pid: number): ProcInfo | null {
  const text = readProc(pid, 'stat');
  return text === null ? null : parseProcStat(text);
}

/** Every process on the machine, zombies included (empty where /proc is absent). */
export function listProcesses(): ProcInfo[] {
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcInfo[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    const p = readProcStat(Number(n)); // null: exited meanwhile
    if (p) out.push(p);
  }
  return out;
}

/** The root and all its descendants (root first), from one /proc scan; empty when the root is gone. */
export function processTree(root: number, procs: ProcInfo[] = listProcesses()): ProcInfo[] {
  const kids = new Map<number, ProcInfo[]>();
  let rootInfo: ProcInfo | undefined;
  for (const p of procs) {
    if (p.pid === root) rootInfo = p;
    const l = kids.get(p.ppid);
    if (l) l.push(p);
    else kids.set(p.ppid, [p]);
  }
  if (!rootInfo) return [];
  const out: ProcInfo[] = [rootInfo];
  for (let i = 0; i < out.length; i++) for (const k of kids.get(out[i]!.pid) ?? []) out.push(k);
  return out;
}

/** Live descendants of `pid` (children, grandchildren, …; no zombies), not including `pid`. */
export function procDescendants(pid: number): ProcInfo[] {
  const byParent = new Map<number, ProcInfo[]>();
  for (const p of listProcesses()) {
    if (p.state === 'Z') continue;
    const l = byParent.get(p.ppid);
    if (l) l.push(p);
    else byParent.set(p.ppid, [p]);
  }
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

/** True while `pid` exists and is not a zombie. */
export function isProcessAlive(pid: number): boolean {
  const p = readProcStat(pid);
  return p !== null && p.state !== 'Z';
}

/** The command line of a process, one element per argument (empty when it is gone). */
export function readCmdline(pid: number): string[] {
  return (readProc(pid, 'cmdline') ?? '').split('\0').filter((s) => s !== '');
}

/** Bytes of a `Name:   123 kB` line of a /proc text (status, smaps_rollup); null when absent. */
export function parseKbField(text: string, name: string): number | null {
  const m = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
  return m?.[1] ? Number(m[1]) * 1024 : null;
}

/** VmRSS of a process in bytes (0 when unreadable). */
export function rssBytes(pid: number): number {
  const t = readProc(pid, 'status');
  return t === null ? 0 : (parseKbField(t, 'VmRSS') ?? 0);
}

/**
 * Proportional set size of a process in bytes: its private pages plus its share of pages mapped by
 * several processes, so that a tree's sum does not count shared libraries once per process. Falls
 * back to VmRSS where /proc/<pid>/smaps_rollup is unreadable (older kernels, no permission).
 */
export function pssBytes(pid: number): number {
  const t = readProc(pid, 'smaps_rollup');
  const pss = t === null ? null : parseKbField(t, 'Pss');
  return pss ?? rssBytes(pid);
}

export interface TreeMemory {
  /** Summed PSS (RSS where PSS is unreadable), bytes. */
  pssBytes: number;
  /** Summed VmRSS, bytes: counts shared pages once per process, so it overstates a tree. */
  rssBytes: number;
  processes: number;
}

/** Memory of a process and its descendants, from one /proc scan. */
export function treeMemory(root: number, procs?: ProcInfo[]): TreeMemory {
  const out: TreeMemory = { pssBytes: 0, rssBytes: 0, processes: 0 };
  for (const p of processTree(root, procs)) {
    out.pssBytes += pssBytes(p.pid);
    out.rssBytes += rssBytes(p.pid);
    out.processes++;
  }
  return out;
}

/** Summed VmRSS of a process and its descendants, bytes. */
export function treeRssBytes(root: number): number {
  return treeMemory(root).rssBytes;
}
