// The logger the sites server accepts: the injected-logger shape used across owrl (structurally
// the @owrl/telemetry Logger), plus a no-op default.

export interface SitesLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentSitesLogger: SitesLogger = { debug() {}, info() {}, warn() {}, error() {} };
