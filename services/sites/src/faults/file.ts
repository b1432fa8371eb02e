// Startup fault rules: a JSON file (`OWRL_SITES_FAULTS=path`) holding an array of rules, or
// `{"rules": [...]}`, loaded before the server takes requests. Errors name the file and the rule.
import { readFile } from 'node:fs/promises';
import { SitesError, SitesErrorCode } from '../errors.js';
import type { FaultRegistry } from './registry.js';
import { FaultRuleError } from './rules.js';

/**
 * Reads the rules of a fault file (not yet validated: the registry does that).
 * @throws SitesError SITES_BAD_OPTION when the file cannot be read or is not a JSON array of rules.
 */
export async function readFaultFile(path: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new SitesError(SitesErrorCode.BadOption, `fault file ${path} cannot be read: ${(e as Error).message}`, { cause: e });
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new SitesError(SitesErrorCode.BadOption, `fault file ${path} is not JSON: ${(e as Error).message}`, { cause: e });
  }
  const rules = Array.isArray(v) ? v : typeof v === 'object' && v !== null && Array.isArray((v as { rules?: unknown }).rules) ? (v as { rules: unknown[] }).rules : null;
  if (rules === null) throw new SitesError(SitesErrorCode.BadOption, `fault file ${path} must hold a JSON array of rules or {"rules": [...]}`);
  return rules;
}

/**
 * Adds `rules` in order; returns their ids.
 * @throws SitesError SITES_BAD_OPTION naming `<source>[i].<field>` for the first bad rule (no
 *   rule of the list is added then).
 */
export function addRules(registry: FaultRegistry, rules: readonly unknown[], source: string): string[] {
  const ids: string[] = [];
  try {
    rules.forEach((r, i) => {
      try {
        ids.push(registry.add(r));
      } catch (e) {
        if (e instanceof FaultRuleError) throw new SitesError(SitesErrorCode.BadOption, `${source}[${i}].${e.message}`, { cause: e });
        throw e;
      }
    });
  } catch (e) {
    for (const id of ids) registry.remove(id);
    throw e;
  }
  return ids;
}
