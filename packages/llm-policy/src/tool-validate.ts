// Validation of a model's tool call against the tool schemas: known tool, known parameters,
// types, ranges and enums, a target where one is needed; lenient only where models are sloppy in
// harmless ways (numbers as strings, "true"/"false", a point written as "[x, y]", one key as a
// string). Points are converted from the model's coordinate system to viewport pixels, the unit
// the browser environment takes. Pure logic; every problem is one clear sentence.
import { isToolName, TOOL_NAMES, type ToolCallSpec } from '@owrl/core';
import { isLlmPolicyError, LlmPolicyError, LlmPolicyErrorCode } from './errors.js';
import { TARGETS, toolSchemas, type CoordinateSystem, type ParamSchema, type ToolSchema } from './tool-schemas.js';

export interface ValidateContext {
  coords: CoordinateSystem;
  /** Viewport (= screenshot) size in CSS pixels. */
  viewport: { width: number; height: number };
}

export type ValidateResult = { ok: true; call: ToolCallSpec } | { ok: false; error: string };

const schemaCache = new Map<string, Map<string, ToolSchema>>();

function schemasFor(coords: CoordinateSystem): Map<string, ToolSchema> {
  const key = coords.kind === 'relative' ? `r${coords.scale}` : 'p';
  let m = schemaCache.get(key);
  if (!m) {
    m = new Map(toolSchemas(coords).map((t) => [t.name, t]));
    schemaCache.set(key, m);
  }
  return m;
}

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function fail(msg: string): never {
  throw new LlmPolicyError(LlmPolicyErrorCode.InvalidToolCall, msg);
}

function asNumber(v: unknown, key: string, integer: boolean): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v.trim()) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) fail(`${key}=${show(v)} must be ${integer ? 'an integer' : 'a number'}`);
  if (integer && !Number.isInteger(n)) fail(`${key}=${show(v)} must be an integer`);
  return n;
}

function asPoint(v: unknown, key: string): number[] {
  let p = v;
  if (typeof p === 'string') {
    const m = /^\s*[[(]?\s*(-?\d+(?:\.\d+)?)\s*[,\s]\s*(-?\d+(?:\.\d+)?)\s*[\])]?\s*$/.exec(p);
    if (m) p = [Number(m[1]), Number(m[2])];
  }
  if (!Array.isArray(p) || p.length !== 2) fail(`${key}=${show(v)} must be [x, y]`);
  return p.map((x) => asNumber(x, key, false));
}

function checkParam(key: string, schema: ParamSchema, v: unknown): unknown {
  switch (schema.type) {
    case 'string': {
      const s = typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
      if (typeof s !== 'string') fail(`${key}=${show(v)} must be a string`);
      if (schema.enum && !schema.enum.includes(s.toLowerCase())) fail(`${key}=${show(v)} must be one of ${schema.enum.join(', ')}`);
      return schema.enum ? s.toLowerCase() : s;
    }
    case 'integer':
    case 'number': {
      const n = asNumber(v, key, schema.type === 'integer');
      if ((schema.minimum !== undefined && n < schema.minimum) || (schema.maximum !== undefined && n > schema.maximum)) {
        fail(`${key}=${show(v)} must be within [${schema.minimum ?? '-inf'}, ${schema.maximum ?? 'inf'}]`);
      }
      return n;
    }
    case 'boolean': {
      if (typeof v === 'boolean') return v;
      if (v === 'true' || v === 1) return true;
      if (v === 'false' || v === 0) return false;
      return fail(`${key}=${show(v)} must be true or false`);
    }
    case 'array': {
      if (schema.items.type === 'number') return asPoint(v, key);
      const list = typeof v === 'string' ? [v] : v;
      if (!Array.isArray(list) || list.length < (schema.minItems ?? 0) || !list.every((x) => typeof x === 'string' && x !== '')) {
        fail(`${key}=${show(v)} must be a non-empty list of strings`);
      }
      return list;
    }
  }
}

function toPixels(p: number[], key: string, ctx: ValidateContext): number[] {
  const [x = 0, y = 0] = p;
  const { width, height } = ctx.viewport;
  if (ctx.coords.kind === 'relative') {
    const s = ctx.coords.scale;
    if (x < 0 || y < 0 || x > s || y > s) fail(`${key}=${show(p)} is outside the 0-${s} grid`);
    return [round1((x / s) * width), round1((y / s) * height)];
  }
  if (x < 0 || y < 0 || x > width || y > height) fail(`${key}=${show(p)} is outside the ${width}x${height} screenshot`);
  return [x, y];
}

function round1(v: number): number {
  return Math.round(v * 10) / 10;
}

/**
 * Validates one call (`args` as the model wrote them: an object, or JSON text of one) and returns
 * it with normalised arguments, points in viewport pixels.
 */
export function validateToolCall(name: string, args: unknown, ctx: ValidateContext): ValidateResult {
  if (!isToolName(name)) return { ok: false, error: `unknown tool ${show(name)} (tools: ${TOOL_NAMES.join(', ')})` };
  const schema = schemasFor(ctx.coords).get(name);
  if (!schema) return { ok: false, error: `unknown tool ${show(name)}` };
  let raw: unknown = args ?? {};
  if (typeof raw === 'string') {
    if (raw.trim() === '') raw = {};
    else {
      try {
        raw = JSON.parse(raw) as unknown;
      } catch (e) {
        return { ok: false, error: `${name}: arguments are not valid JSON (${(e as Error).message})` };
      }
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, error: `${name}: arguments must be a JSON object, got ${show(raw)}` };
  const given = raw as Record<string, unknown>;
  try {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(given)) {
      const p = schema.parameters.properties[key];
      if (!p) fail(`unknown parameter ${show(key)} (parameters: ${Object.keys(schema.parameters.properties).join(', ') || 'none'})`);
      if (value === null || value === undefined) continue;
      let v = checkParam(key, p, value);
      if (p.type === 'array' && p.items.type === 'number') v = toPixels(v as number[], key, ctx);
      out[key] = v;
    }
    for (const req of schema.parameters.required) if (out[req] === undefined) fail(`missing required parameter ${req}`);
    for (const [point, element] of TARGETS[name] ?? []) {
      if (out[point] === undefined && out[element] === undefined) fail(`needs ${point} or ${element}`);
    }
    return { ok: true, call: { name, args: out } };
  } catch (e) {
    if (isLlmPolicyError(e, LlmPolicyErrorCode.InvalidToolCall)) return { ok: false, error: `${name}: ${e.message}` };
    throw e;
  }
}

/** A point in viewport pixels written in the model's coordinate system (for replaying calls). */
export function fromPixels(p: readonly number[], ctx: ValidateContext): number[] {
  const [x = 0, y = 0] = p;
  if (ctx.coords.kind === 'pixels') return [x, y];
  const s = ctx.coords.scale;
  return [Math.round((x / ctx.viewport.width) * s), Math.round((y / ctx.viewport.height) * s)];
}
