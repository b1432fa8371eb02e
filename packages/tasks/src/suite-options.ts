// Option handling shared by every suite's task generator: the base URL tasks point at, and the
// families selected by `difficulties` / `families`, with errors naming the option.
import type { Task } from '@owrl/proto';
import { TaskError, TaskErrorCode } from './errors.js';
import { DEFAULT_CATALOG_SEED } from './shop/shop-catalog.js';

/** Data seed of every bundled site when none is configured (sites server and generators alike). */
export const DEFAULT_DATA_SEED = DEFAULT_CATALOG_SEED;

/** Path of a bundled site's site-state verifier, relative to the sites origin. */
export function siteVerifyPath(site: string): string {
  return `/__owrl/verify/${site}`;
}

/** Options every suite generator takes. Same options (and data seed) → same tasks, in order. */
export interface SuiteGenerateOptions {
  /** Chooses which tasks are drawn and in what order. Integer. */
  seed: number;
  /** Number of tasks (integer >= 0), at most the distinct tasks of the selected families. */
  n: number;
  /** Origin of the sites server the tasks point at, e.g. `http://127.0.0.1:8400` (a trailing slash is ignored). */
  baseUrl: string;
  /** Keep only families of these difficulties (empty or absent: all). */
  difficulties?: readonly number[] | undefined;
  /** Keep only these families, combined with `difficulties` (empty or absent: all). */
  families?: readonly string[] | undefined;
  /** Seed of the site's data (catalog, flights, articles, mailboxes); must match the server's. Default 1. */
  dataSeed?: number | undefined;
}

/** What a suite tells about one of its families (for listings, docs and curricula). */
export interface SuiteFamilyInfo {
  name: string;
  /** Policy steps of the intended shortest solution. */
  difficulty: number;
  /** What the verifier checks. */
  check: 'answer' | 'site_state' | 'page_expression';
}

export interface SuiteDef {
  /** Suite name (`Task.suite`), e.g. `shop`. */
  name: string;
  /** Bundled site serving it (`Task.site`); its pages live under `/<site>/`. */
  site: string;
  families: readonly SuiteFamilyInfo[];
  /** @throws TaskError TASK_BAD_ARGUMENT for unusable options (unknown family, bad n...). */
  generate(opts: SuiteGenerateOptions): Task[];
}

/**
 * `baseUrl` without trailing slashes.
 * @throws TaskError TASK_BAD_ARGUMENT (field baseUrl) when it is not an http(s) URL.
 */
export function normalizeBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw new TaskError(TaskErrorCode.BadArgument, `baseUrl ${JSON.stringify(baseUrl)} is not a URL`, { cause, field: 'baseUrl' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TaskError(TaskErrorCode.BadArgument, `baseUrl ${JSON.stringify(baseUrl)} must be http(s)`, { field: 'baseUrl' });
  }
  return url.toString().replace(/\/+$/, '');
}

/**
 * The families of `all` (in its order) whose difficulty is in `difficulties` and whose name is in
 * `families` (an empty or absent list selects all).
 * @throws TaskError TASK_BAD_ARGUMENT for a difficulty that is not a positive integer, an unknown
 *   family name (listing the suite's families), or a selection that leaves nothing.
 */
export function selectFamilies<F extends { name: string; difficulty: number }>(
  suite: string,
  all: readonly F[],
  opts: { difficulties?: readonly number[] | undefined; families?: readonly string[] | undefined },
): F[] {
  const diffs = opts.difficulties ?? [];
  for (const d of diffs) {
    if (!Number.isInteger(d) || d < 1) {
      throw new TaskError(TaskErrorCode.BadArgument, `difficulty ${String(d)} must be a positive integer`, { field: 'difficulties' });
    }
  }
  const names = opts.families ?? [];
  for (const f of names) {
    if (!all.some((x) => x.name === f)) {
      const known = all.map((x) => x.name).join(', ');
      throw new TaskError(TaskErrorCode.BadArgument, `family ${JSON.stringify(f)} is not a ${suite} family (${known})`, { field: 'families' });
    }
  }
  const out = all.filter((f) => (diffs.length === 0 || diffs.includes(f.difficulty)) && (names.length === 0 || names.includes(f.name)));
  if (out.length === 0) {
    const have = [...new Set(all.map((f) => f.difficulty))].join(',');
    throw new TaskError(
      TaskErrorCode.BadArgument,
      `no ${suite} family has difficulty in [${diffs.join(',')}]${names.length > 0 ? ` among [${names.join(',')}]` : ''} (difficulties: ${have})`,
      { field: 'difficulties' },
    );
  }
  return out;
}
