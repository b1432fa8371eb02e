// The fault hook of the sites server, consulted for every request before a site handles it:
// serves the fault API, then applies what the registry decides for the request (latency first,
// then at most one answering fault) and a fault asked for with `owrl_fault=<kind>[:<arg>]`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@owrl/core';
import { SESSION_COOKIE, SESSION_PARAM } from '@owrl/tasks';
import { parseCookies, redirect, sendHtml, sendJson } from '../http-util.js';
import { handleFaultApi, isFaultApiPath } from './api.js';
import { rewriteHtml } from './capture.js';
import { botWallPage, captchaPage, domMutationPage, slowRenderPage, statusPage } from './pages.js';
import type { FaultRegistry, RequestFacts } from './registry.js';
import { FAULT_PARAM, FaultRuleError, parseFaultParam, type FaultSpec } from './rules.js';

/** Returns true when it answered the request (or deliberately never will); false lets the site handle it. */
export type FaultHook = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;

/** Query parameter a redirect loop alternates between two values of. */
const LOOP_PARAM = 'owrl_loop';

/** Hostname of the Host header, lower case, without the port. */
export function hostnameOf(hostHeader: string | undefined): string {
  const h = (hostHeader ?? '').trim().toLowerCase();
  if (h.startsWith('[')) {
    const close = h.indexOf(']');
    return close < 0 ? h : h.slice(0, close + 1);
  }
  const colon = h.indexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

function factsOf(req: IncomingMessage, url: URL): RequestFacts {
  const session = url.searchParams.get(SESSION_PARAM) ?? parseCookies(req.headers.cookie).get(SESSION_COOKIE) ?? '';
  return { host: hostnameOf(req.headers.host), pathname: url.pathname, target: url.pathname + url.search, session };
}

/** Waits `ms`; false when the client went away first. */
function delay(ms: number, res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(true);
    }, ms);
    res.once('close', onClose);
  });
}

function loopTarget(url: URL, mode: 'pair' | 'self'): string {
  if (mode === 'self') return url.pathname + url.search;
  const next = new URL(url.href);
  next.searchParams.set(LOOP_PARAM, url.searchParams.get(LOOP_PARAM) === 'a' ? 'b' : 'a');
  return next.pathname + next.search;
}

/** Applies an answering fault; returns false when the site should still render the page. */
function apply(fault: Exclude<FaultSpec, { kind: 'latency' }>, req: IncomingMessage, res: ServerResponse, url: URL, f: RequestFacts): boolean {
  const host = f.host || 'this site';
  switch (fault.kind) {
    case 'status':
      if (fault.retry_after !== undefined) res.setHeader('Retry-After', String(fault.retry_after));
      sendHtml(res, fault.code, statusPage(fault.code));
      return true;
    case 'reset':
    case 'down':
      req.socket.resetAndDestroy();
      return true;
    case 'hang':
      // Never answered: the socket stays open until the client gives up or the server closes.
      return true;
    case 'redirect_loop':
      redirect(res, 302, loopTarget(url, fault.mode));
      return true;
    case 'bot_wall':
      res.setHeader('cf-mitigated', 'challenge');
      sendHtml(res, fault.status, botWallPage(host, f.target));
      return true;
    case 'captcha':
      sendHtml(res, 200, captchaPage(fault.provider, host, f.target));
      return true;
    case 'dom_mutation':
      rewriteHtml(res, (doc) => domMutationPage(doc, fault.after_ms));
      return false;
    case 'slow_render':
      rewriteHtml(res, (doc) => slowRenderPage(doc, fault.ms));
      return false;
  }
}

export function createFaultHook(registry: FaultRegistry, log: Logger): FaultHook {
  return async (req, res, url) => {
    if (isFaultApiPath(url.pathname)) {
      await handleFaultApi(req, res, url.pathname, registry, log);
      return true;
    }
    const param = url.searchParams.get(FAULT_PARAM);
    let asked: FaultSpec | null = null;
    if (param !== null) {
      try {
        asked = parseFaultParam(param);
      } catch (e) {
        if (!(e instanceof FaultRuleError)) throw e;
        sendJson(res, 400, { ok: false, field: e.field, detail: e.message });
        return true;
      }
    }
    if (registry.size === 0 && asked === null) return false;
    const facts = factsOf(req, url);
    const d = registry.decide(facts);
    let fault = d.fault ?? asked;
    let waitMs = d.delayMs;
    if (fault?.kind === 'latency') {
      waitMs += fault.ms;
      fault = null;
    }
    if (fault !== null || waitMs > 0) log.debug({ url: facts.target, host: facts.host, rule: d.ruleId || FAULT_PARAM, fault: fault?.kind ?? 'latency', waitMs }, 'fault injected');
    if (waitMs > 0 && !(await delay(waitMs, res))) return true;
    return fault === null ? false : apply(fault, req, res, url, facts);
  };
}
