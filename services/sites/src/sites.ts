// The bundled sites this server hosts, in portal order. Add a site's factory here to serve it
// (its suite goes into SUITES of @owrl/tasks).
import type { SiteFactory } from './site.js';
import { createTravelSite } from './travel/travel-site.js';
import { createMailSite } from './mail/mail-site.js';
import { createWikiSite } from './wiki/wiki-site.js';

export const SITE_FACTORIES: readonly SiteFactory[] = [
  createTravelSite,
  createMailSite,
  createWikiSite,
];
