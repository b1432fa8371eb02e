// A run file mapped onto the services' own settings: each key the schema ties to environment
// variables sets them (lists comma-joined, paths resolved against the file's folder, the
// curriculum as rounds:max_steps), each secret the file names is read from its variable, and the
// environment itself stays on top (a variable set and non-empty wins over the file).
import path from 'node:path';
import { z } from 'zod';
import type { Env } from '@owrl/core';
import { RunFileError, RunFileErrorCode, type RunFileProblem } from './errors.js';
import type { LoadedRunFile } from './load.js';
import { runFileSchema, SECTIONS, type FieldMeta, type SectionMeta, type ServiceName } from './schema.js';

/** One key of the schema that maps onto settings. */
export interface MappedKey {
  path: string[];
  meta: FieldMeta;
  /** Services that read it ('all' for top-level keys). */
  services: readonly string[] | 'all';
  /** A group of keys inside a section (tasks.curriculum, policy.warmup): documented, maps nothing itself. */
  group?: boolean;
}

function unwrap(s: z.ZodType): z.ZodType {
  let cur = s;
  while (cur instanceof z.ZodOptional) cur = cur.unwrap() as z.ZodType;
  return cur;
}

function metaOf<T>(s: z.ZodType): T | undefined {
  return (s.meta() as T | undefined) ?? (unwrap(s).meta() as T | undefined);
}

let keys: MappedKey[] | null = null;

/** Every leaf key of the schema with its documentation, in schema order. */
export function schemaKeys(): MappedKey[] {
  if (keys) return keys;
  const out: MappedKey[] = [];
  const walk = (s: z.ZodType, p: string[], services: MappedKey['services']): void => {
    const inner = unwrap(s);
    if (!(inner instanceof z.ZodObject)) return;
    for (const [k, v] of Object.entries(inner.shape as Record<string, z.ZodType>)) {
      const meta = metaOf<FieldMeta & Partial<SectionMeta>>(v);
      const child = unwrap(v);
      if (child instanceof z.ZodObject) {
        // A section, or a group of keys inside one (whose own documentation comes first).
        if (meta?.services) walk(v, [...p, k], meta.services);
        else {
          if (meta?.description) out.push({ path: [...p, k], meta, services, group: true });
          walk(v, [...p, k], services);
        }
        continue;
      }
      if (meta?.description) out.push({ path: [...p, k], meta, services });
    }
  };
  walk(runFileSchema, [], 'all');
  keys = out;
  return out;
}

function get(o: unknown, p: readonly string[]): unknown {
  let v = o;
  for (const k of p) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

const RESOLVED = new Set(['tasks.files', 'judge.model_dir', 'nats.creds_file', 'nats.nkey_seed_file']);

/** The settings value of one key ('' = sets nothing). */
function settingValue(name: string, value: unknown, loaded: LoadedRunFile): string {
  switch (name) {
    case 'recipe.curriculum':
      return (value as Array<{ rounds?: number; max_steps: number }>).map((s) => `${s.rounds ?? 1}:${s.max_steps}`).join(',');
    case 'trainer.kind':
      return value === 'inprocess' ? 'inprocess' : '';
    case 'judge.kind':
      return value === 'verifiers' ? '' : String(value);
  }
  if (RESOLVED.has(name)) {
    const list = Array.isArray(value) ? (value as string[]) : [String(value)];
    return list.map((f) => path.resolve(loaded.dir, f)).join(',');
  }
  if (Array.isArray(value)) return value.map(String).join(',');
  return String(value);
}

export interface RunFileSettings {
  /** The variables the file sets for the service (before the environment's own). */
  vars: Record<string, string>;
  /** Which key set each variable (`recipe.rounds`). */
  from: Record<string, string>;
}

/**
 * The settings `service` reads from the run file (every section when `service` is undefined), with
 * each secret read from the variable the file names in `env`.
 * @throws RunFileError RUN_FILE_MISSING_SECRET when a named variable is unset or empty.
 */
export function runFileSettings(loaded: LoadedRunFile, env: Env, service?: ServiceName): RunFileSettings {
  const vars: Record<string, string> = {};
  const from: Record<string, string> = {};
  const missing: RunFileProblem[] = [];
  for (const k of schemaKeys()) {
    if (service !== undefined && k.services !== 'all' && !k.services.includes(service)) continue;
    if (k.group || k.meta.cliOnly || (k.path[0] === 'policy' && k.path[1] === 'warmup')) continue;
    const value = get(loaded.run, k.path);
    if (value === undefined) continue;
    const name = k.path.join('.');
    if (k.meta.secretFor !== undefined) {
      const secret = env[String(value)];
      if (secret === undefined || secret === '') {
        missing.push({ where: loaded.where(k.path), key: name, message: `names ${String(value)}, which is not set in the environment (the secret for ${k.meta.secretFor} lives there, never in the file)` });
        continue;
      }
      vars[k.meta.secretFor] = secret;
      from[k.meta.secretFor] = name;
      continue;
    }
    const v = settingValue(name, value, loaded);
    if (v === '') continue;
    for (const e of k.meta.env ?? []) {
      vars[e] = v;
      from[e] = name;
    }
  }
  if (missing.length > 0) throw new RunFileError(RunFileErrorCode.MissingSecret, missing);
  return { vars, from };
}

/** `env` on top of the file's settings: a variable set (non-empty) in `env` wins. */
export function overlayEnv(fileVars: Record<string, string>, env: Env): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { ...fileVars };
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') out[k] = v;
  return out;
}

/** The variables of `env` that override keys of the file (`OWRL_ROUNDS` → `recipe.rounds`). */
export function envOverrides(settings: RunFileSettings, env: Env): Array<{ variable: string; key: string }> {
  return Object.entries(settings.from)
    .filter(([v]) => env[v] !== undefined && env[v] !== '' && !schemaSecretVar(v))
    .map(([variable, key]) => ({ variable, key }));
}

function schemaSecretVar(v: string): boolean {
  return schemaKeys().some((k) => k.meta.secretFor === v);
}

/** The sections, in the reference's order, with their documentation. */
export function sectionDocs(): Array<{ name: string; meta: SectionMeta }> {
  const shape = runFileSchema.shape as Record<string, z.ZodType>;
  return SECTIONS.map((name) => ({ name, meta: metaOf<SectionMeta>(shape[name] as z.ZodType) as SectionMeta }));
}
