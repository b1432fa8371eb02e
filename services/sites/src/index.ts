// The sites service: the bundled "live web in a box" — the shop, travel, wiki and mail sites with
// their verifiers, the task API, and fault injection switchable at run time.
export { startSitesServer, type SitesServer, type SitesServerOptions } from './server.js';
export {
  SitesError,
  SitesErrorCode,
  isSitesError,
} from './errors.js';
export { SessionStore, type SessionState } from './session-store.js';
export type { SiteModule, SiteFactory, SiteContext, SiteVerifyResult } from './site.js';
export { FaultRegistry, type FaultRuleView } from './faults/registry.js';
export {
  FAULT_KINDS,
  FAULT_PARAM,
  parseFaultRule,
  FaultRuleError,
  isFaultRuleError,
  type FaultKind,
  type FaultRule,
  type FaultSpec,
  type FaultMatch,
} from './faults/rules.js';
