// The sites service: the bundled "live web in a box" (the shop) with its verifier and task API.
export { startSitesServer, type SitesServer, type SitesServerOptions } from './server.js';
export { SitesError, SitesErrorCode } from './errors.js';
export { SessionStore, type SessionState } from './session-store.js';
