// The plug-in shape of a bundled site. Each site is a small web application under `/<name>/` with
// its own server-side state per session, and a site-state verifier the judge calls at
// `/__owrl/verify/<name>?session=<id>&spec=<spec_json>`. Sites are listed in `sites.ts`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@owrl/core';
import type { SessionState } from './session-store.js';

/** What a verifier answers (`{ok, detail}`, always JSON, whatever the status). */
export interface SiteVerifyResult {
  ok: boolean;
  detail: string;
}

export interface SiteContext {
  /** Data seed of this server: every site derives its data (catalog, flights...) from it. */
  seed: number;
  logger: Logger;
}

export interface SiteModule {
  /** Path prefix and suite site name, `[a-z][a-z0-9-]*` (e.g. `shop` → `/shop/`). */
  readonly name: string;
  /** Display name on the portal page. */
  readonly title: string;
  /** One line about the site for the portal page. */
  readonly blurb: string;
  /**
   * Handles a request under `/<name>` (the path always starts with it). Returns false when the
   * method is not served at that path (the server answers 405). Throw SitesError for bad input.
   */
  handle(req: IncomingMessage, res: ServerResponse, url: URL, session: SessionState): Promise<boolean>;
  /**
   * Checks a session's state against a task's `spec_json`. `session` is undefined for a session
   * the server has never seen (its state is the empty state; reading must not create it).
   * @throws SitesError BAD_REQUEST for a spec that does not parse, naming what is wrong.
   */
  verify(session: SessionState | undefined, specJson: string): SiteVerifyResult;
  /** Figures for /__owrl/health (sizes of the site's data). */
  health?(): Record<string, number | string>;
}

export type SiteFactory = (ctx: SiteContext) => SiteModule;

/**
 * The state a site keeps in one session, created with `init` on first use. Each site has its own
 * slot, so sites never see each other's state either.
 */
export function siteData<T>(session: SessionState, site: string, init: () => T): T {
  let v = session.sites.get(site) as T | undefined;
  if (v === undefined) {
    v = init();
    session.sites.set(site, v);
  }
  return v;
}

/** The site's state of a session without creating it. */
export function peekSiteData<T>(session: SessionState | undefined, site: string): T | undefined {
  return session?.sites.get(site) as T | undefined;
}
