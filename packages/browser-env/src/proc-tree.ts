// Linux /proc helpers: find the Chromium browser process by its marker switch, list a process
// tree (children found through the ppid field of /proc/<pid>/stat), sum its memory (PSS from
// smaps_rollup, RSS as fallback and for comparison), and kill it. Returns empty results off Linux
// instead of throwing.
import fs from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  state: string;
  comm: string;
}

/** Parses /proc/<pid>/stat; the comm field may contain spaces and parentheses. */
export function parseStat(text: string): ProcInfo | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const rest = text.slice(close + 2).split(' ');
  const ppid = Number(rest[1]);
  const pgrp = Number(rest[2]);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid)) return null;
  return { pid, ppid, pgrp, state: rest[0] ?? '?', comm: text.slice(open + 1, close) };
}

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
    try {
      const p = parseStat(fs.readFileSync(`/proc/${n}/stat`, 'utf8'));
      if (p) out.push(p);
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** The root and all its descendants (root first), from one /proc scan. */
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

export function readCmdline(pid: number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((s) => s !== '');
  } catch {
    return [];
  }
}

/** Pid of the process whose command line holds `marker`, preferring a child of `parent`. */
export function findByMarker(marker: string, parent: number = process.pid): number | null {
  const procs = listProcesses();
  let fallback: number | null = null;
  for (const p of procs) {
    if (!readCmdline(p.pid).includes(marker)) continue;
    if (p.ppid === parent) return p.pid;
    // the browser process is the one whose parent does not carry the marker
    if (!readCmdline(p.ppid).includes(marker)) fallback = p.pid;
  }
  return fallback;
}

/** Bytes of a `Name:   123 kB` line of a /proc text (status, smaps_rollup); null when absent. */
export function parseKbField(text: string, name: string): number | null {
  const m = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
  return m?.[1] ? Number(m[1]) * 1024 : null;
}

function readProc(pid: number, file: string): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;
  }
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

/** SIGKILLs the given pids (and the process group led by `groupLeader`), ignoring those already gone. */
export function killAll(pids: readonly number[], groupLeader?: number): void {
  if (groupLeader !== undefined) {
    try {
      process.kill(-groupLeader, 'SIGKILL');
    } catch {
      /* no such group */
    }
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

/** True while `pid` exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  try {
    return parseStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))?.state !== 'Z';
  } catch {
    return false;
  }
}

/** Waits until none of `pids` runs any more (a SIGKILL lands when the kernel gets to it), at most `ms`. */
export async function waitGone(pids: readonly number[], ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (pids.some(isRunning) && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
}
