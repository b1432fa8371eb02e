// The fault registry of a sites server: the active rules with their hit counters and seeded
// random draws, and the decision of what a request gets (accumulated latency, then at most one
// answering fault). Rules can be added and removed at any time, also while episodes run.
import { fnv1a, mulberry32, type Rng } from '@owrl/core';
import { parseFaultRule, type FaultMatch, type FaultRule, type FaultSpec } from './rules.js';

/** What the registry looks at in a request. */
export interface RequestFacts {
  /** Hostname of the Host header, lower case, without port ('' when absent). */
  host: string;
  pathname: string;
  /** Path and query, e.g. `/shop/search?q=mug`. */
  target: string;
  /** The request's `owrl_session` (query parameter, else cookie); '' when none. */
  session: string;
}

/** A rule as listed by `GET /__owrl/faults`. */
export interface FaultRuleView extends FaultRule {
  id: string;
  /** Requests that fit the rule's match (including the skipped first after_requests). */
  matched: number;
  /** Requests the rule fired on. */
  applied: number;
  /** True once the rule fired `count` times; it no longer matches. */
  expired: boolean;
}

export interface FaultDecision {
  /** Delay before the request is answered (sum of the latency rules that fired). */
  delayMs: number;
  /** The answering fault, or null when the site answers (after the delay). */
  fault: FaultSpec | null;
  /** Id of the rule that chose `fault` ('' when none). */
  ruleId: string;
}

interface RuleState {
  id: string;
  rule: FaultRule;
  regex: RegExp | null;
  rng: Rng;
  matched: number;
  applied: number;
  expired: boolean;
}

/** Paths of the control API; rules reach them only through an explicit `/__owrl/` path prefix. */
const CONTROL_PREFIX = '/__owrl/';

function fits(m: FaultMatch, regex: RegExp | null, f: RequestFacts): boolean {
  if (m.host !== undefined && m.host !== f.host) return false;
  if (m.session !== undefined && m.session !== f.session) return false;
  if (m.site !== undefined && f.pathname !== `/${m.site}` && !f.pathname.startsWith(`/${m.site}/`)) return false;
  const control = f.pathname.startsWith(CONTROL_PREFIX);
  if (regex !== null) return !control && regex.test(f.target);
  if (m.path !== undefined) return f.pathname.startsWith(m.path) && (!control || m.path.startsWith(CONTROL_PREFIX));
  return !control;
}

export class FaultRegistry {
  readonly #rules: RuleState[] = [];
  readonly #seed: number;
  readonly #siteNames: readonly string[];
  #nextId = 1;

  /**
   * @param seed server seed; rules without their own seed draw from `fnv1a(id, seed)`.
   * @param siteNames bundled sites a rule's `match.site` may name.
   */
  constructor(seed: number, siteNames: readonly string[]) {
    this.#seed = seed >>> 0;
    this.#siteNames = siteNames;
  }

  /**
   * Validates and adds a rule (JSON as posted); returns its id (`f1`, `f2`...).
   * @throws FaultRuleError naming the bad field.
   */
  add(input: unknown): string {
    const rule = parseFaultRule(input, this.#siteNames);
    const id = `f${this.#nextId++}`;
    const path = rule.match.path;
    this.#rules.push({
      id,
      rule,
      regex: path?.startsWith('~') ? new RegExp(path.slice(1)) : null,
      rng: mulberry32(rule.seed ?? fnv1a(id, this.#seed)),
      matched: 0,
      applied: 0,
      expired: false,
    });
    return id;
  }

  list(): FaultRuleView[] {
    return this.#rules.map((r) => this.#view(r));
  }

  get(id: string): FaultRuleView | undefined {
    const r = this.#rules.find((x) => x.id === id);
    return r === undefined ? undefined : this.#view(r);
  }

  /** Removes rule `id`; false when there is none. */
  remove(id: string): boolean {
    const i = this.#rules.findIndex((x) => x.id === id);
    if (i < 0) return false;
    this.#rules.splice(i, 1);
    return true;
  }

  /** Removes every rule; returns how many there were. */
  clear(): number {
    return this.#rules.splice(0).length;
  }

  get size(): number {
    return this.#rules.length;
  }

  /**
   * What `f` gets. Rules are evaluated in the order they were added: every rule that fits counts
   * the request; past its after_requests it fires with its probability (a `down` rule that fired
   * once stays down: it fires on every later match). Fired latency rules add their delay; the
   * first other rule that fires answers the request and ends the evaluation.
   */
  decide(f: RequestFacts): FaultDecision {
    let delayMs = 0;
    for (const r of this.#rules) {
      if (r.expired || !fits(r.rule.match, r.regex, f)) continue;
      r.matched++;
      if (r.matched <= r.rule.after_requests) continue;
      const sticky = r.rule.fault.kind === 'down' && r.applied > 0;
      if (!sticky && r.rule.probability < 1 && !(r.rng() < r.rule.probability)) continue;
      r.applied++;
      if (r.rule.count !== undefined && r.applied >= r.rule.count) r.expired = true;
      const fault = r.rule.fault;
      if (fault.kind === 'latency') {
        delayMs += fault.ms + (fault.jitter_ms > 0 ? Math.floor(r.rng() * (fault.jitter_ms + 1)) : 0);
        continue;
      }
      return { delayMs, fault, ruleId: r.id };
    }
    return { delayMs, fault: null, ruleId: '' };
  }

  #view(r: RuleState): FaultRuleView {
    return { id: r.id, ...r.rule, matched: r.matched, applied: r.applied, expired: r.expired };
  }
}
