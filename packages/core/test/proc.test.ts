import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { isProcessAlive, parseKbField, parseProcStat, procDescendants, pssBytes, readCmdline, readProcStat, treeMemory } from '../src/index.js';

void describe('/proc readers', () => {
  void it('parses /proc stat lines with odd command names', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime prio nice threads itreal starttime …
    const line = '1234 (chrom e) (x)) S 1000 1234 1234 0 -1 4194560 100 0 0 0 17 5 3 2 20 0 1 0 98765 1000000 200';
    assert.deepEqual(parseProcStat(line), { pid: 1234, ppid: 1000, pgid: 1234, state: 'S', comm: 'chrom e) (x)', cpuTicks: 22, reapedTicks: 5, start: 98765 });
    assert.equal(parseProcStat('garbage'), null);
  });

  void it('parses kB fields of smaps_rollup and status', () => {
    const rollup = '55b58ea5a000-7ffd42a73000 ---p 00000000 00:00 0    [rollup]\nRss:                1636 kB\nPss:                 237 kB\nPss_Dirty:           112 kB\nPss_Anon:            112 kB\n';
    assert.equal(parseKbField(rollup, 'Pss'), 237 * 1024, 'Pss, not Pss_Dirty or Pss_Anon');
    assert.equal(parseKbField(rollup, 'Rss'), 1636 * 1024);
    assert.equal(parseKbField('Name:\tnode\nVmRSS:\t   51200 kB\n', 'VmRSS'), 50 * 1024 * 1024);
    assert.equal(parseKbField(rollup, 'Swap'), null);
    assert.equal(parseKbField('Pss: lots', 'Pss'), null);
  });

  void it('measures the memory of a live process tree (PSS no larger than RSS)', () => {
    const m = treeMemory(process.pid);
    assert.ok(m.processes >= 1);
    assert.ok(m.rssBytes > 10 * 1024 * 1024, `rss ${m.rssBytes}`);
    assert.ok(m.pssBytes > 0 && m.pssBytes <= m.rssBytes, `pss ${m.pssBytes} rss ${m.rssBytes}`);
    assert.ok(pssBytes(process.pid) > 0);
    assert.equal(pssBytes(2 ** 22 + 1), 0, 'no such process');
    assert.deepEqual(treeMemory(2 ** 22 + 1), { pssBytes: 0, rssBytes: 0, processes: 0 });
  });

  void it('reads this process, its command line and a child among its descendants; a gone pid reads as gone', async () => {
    const self = readProcStat(process.pid);
    assert.ok(self !== null && self.pid === process.pid && self.ppid === process.ppid && self.cpuTicks >= 0 && self.start > 0, JSON.stringify(self));
    const script = 'setTimeout(() => {}, 30_000)';
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    try {
      const pid = child.pid!;
      await new Promise((r) => child.once('spawn', r));
      assert.ok(isProcessAlive(pid));
      assert.deepEqual(readCmdline(pid), [process.execPath, '-e', script]);
      assert.ok(procDescendants(process.pid).some((p) => p.pid === pid && p.ppid === process.pid), 'the child is a descendant');
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    assert.equal(isProcessAlive(child.pid!), false, 'reaped: gone');
    assert.equal(readProcStat(2 ** 22 + 1), null);
    assert.deepEqual(readCmdline(2 ** 22 + 1), []);
  });
});
