// The sites service: the bundled "live web in a box" — the shop, travel, wiki and mail sites with
// their verifiers, the task API, and fault injection switchable at run time.
export {
  startSitesServer,
} from './server.js';
export type {
  SitesServer,
  SitesServerOptions,
} from './server.js';
export {
  SitesError,
  SitesErrorCode,
  isSitesError,
} from './errors.js';
export {
  SessionStore,
} from './session-store.js';
export type {
  SessionState,
} from './session-store.js';
export type {
  SiteModule,
  SiteFactory,
  SiteContext,
  SiteVerifyResult,
} from './site.js';
export {
  FaultRegistry,
} from './faults/registry.js';
export type {
  FaultRuleView,
} from './faults/registry.js';
export {
  FAULT_KINDS,
  FAULT_PARAM,
  parseFaultRule,
  FaultRuleError,
  isFaultRuleError,
} from './faults/rules.js';
export type {
  FaultKind,
  FaultRule,
  FaultSpec,
  FaultMatch,
} from './faults/rules.js';
