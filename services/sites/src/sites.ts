// The bundled sites this server hosts, in portal order. Add a site's factory here to serve it
// (its suite goes into SUITES of @owrl/tasks).
import type { SiteFactory } from './site.js';

export const SITE_FACTORIES: readonly SiteFactory[] = [];
