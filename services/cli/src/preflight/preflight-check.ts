// The preflight of a run: checks made before round 0 that the pieces a run file names are there
// and fit together, each reported on one line, a failure with what is wrong and how to fix it.
import type { Env } from '@owrl/core';
import type { LoadedRunFile } from '@owrl/run-file';

/** The checks, in the order they run; `--skip-preflight=a,b` names them. */
export const PREFLIGHT_CHECKS = ['nats', 'tasks', 'policy', 'trainer', 'judge'] as const;
export type PreflightCheckName = (typeof PREFLIGHT_CHECKS)[number];

/** One line of the preflight. */
export interface CheckLine {
  /** e.g. `policy.token_ids`. */
  name: string;
  ok: boolean;
  detail: string;
  /** How to fix a failure. */
  fix?: string;
}

/** What the checks are given. */
export interface PreflightContext {
  loaded: LoadedRunFile;
  /**
   * The settings as the services will read them: the run file's under the environment, plus what
   * `owrl train` sets itself (the NATS URL of a server it started, the bundled sites' URL).
   */
  settings: Env;
  /** host:port entries the actors' fence lets through besides public hosts. */
  allowHosts: string[];
  signal: AbortSignal;
}

export type PreflightRun = (ctx: PreflightContext) => Promise<CheckLine[]>;

/** `ok    name: detail` / `FAIL  name: detail; fix: …`. */
export function formatCheckLine(l: CheckLine): string {
  return `preflight ${l.ok ? 'ok  ' : 'FAIL'} ${l.name}: ${l.detail}${!l.ok && l.fix ? `; fix: ${l.fix}` : ''}`;
}

/** The message of a thrown value. */
export function why(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
