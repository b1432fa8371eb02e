// The three programmatic checks a bundled task can carry (docs/design.md §7 `verifier`), behind one
// interface so tests and deployments can swap any of them. The default set uses global fetch.
import type { AnswerMatch, PageEval, PageExpression, SiteStateCheck } from '@owrl/proto';
import { matchAnswer } from './answer-match.js';
import { ExcludedReason } from './outcome.js';
import { checkSiteState, type FetchLike } from './site-state.js';
import type { CheckResult } from './check-result.js';

export interface SiteStateContext {
  sessionId: string;
  /** Base for a relative endpoint (the task's start URL). */
  baseUrl?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface Verifiers {
  answer(match: AnswerMatch, answer: string): CheckResult;
  siteState(check: SiteStateCheck, ctx: SiteStateContext): Promise<CheckResult>;
  /** Judges the actor's evaluation of the task's expression in the final page. */
  pageExpression(expr: PageExpression, pageEval: PageEval | undefined): CheckResult;
}

/**
 * Page-expression verdict from the actor's evaluation: not evaluated → `unavailable`
 * (`judge:page_eval_missing`); evaluated with an error (the expression threw in the final page,
 * e.g. the element it reads is absent) → fail; otherwise truthy → pass.
 */
export function checkPageExpression(expr: PageExpression, pageEval: PageEval | undefined): CheckResult {
  if (pageEval === undefined || !pageEval.evaluated) {
    return {
      status: 'unavailable',
      reason: ExcludedReason.PageEvalMissing,
      detail: `final page expression ${JSON.stringify(expr.expression.slice(0, 200))} was not evaluated${pageEval?.error ? `: ${pageEval.error}` : ''}`,
    };
  }
  if (pageEval.error !== '') return { status: 'fail', detail: `page expression threw: ${pageEval.error.slice(0, 300)}` };
  return pageEval.truthy
    ? { status: 'pass', detail: `page expression truthy (${pageEval.valueJson.slice(0, 200)})` }
    : { status: 'fail', detail: `page expression falsy (${pageEval.valueJson.slice(0, 200)})` };
}

/** The default checks; `fetch` defaults to the global one; `verifyHosts` (OWRL_VERIFY_HOSTS) bounds where site-state checks are fetched from. */
export function createVerifiers(opts: { fetch?: FetchLike; verifyHosts?: readonly string[] } = {}): Verifiers {
  return {
    answer: matchAnswer,
    siteState: (check, ctx) =>
      checkSiteState(check, {
        sessionId: ctx.sessionId,
        timeoutMs: ctx.timeoutMs,
        ...(ctx.baseUrl !== undefined ? { baseUrl: ctx.baseUrl } : {}),
        ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
        ...(opts.fetch !== undefined ? { fetch: opts.fetch } : {}),
        ...(opts.verifyHosts !== undefined ? { allowHosts: opts.verifyHosts } : {}),
      }),
    pageExpression: checkPageExpression,
  };
}
