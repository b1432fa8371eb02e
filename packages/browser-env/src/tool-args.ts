// Validation of tool-call arguments (docs/design.md §5 tools, OpenWebRL parameter names) into typed calls,
// and key-name normalisation for press_keys. Pure logic; bad arguments raise ToolCallError
// `bad_args` with a message naming the parameter and value, which the agent sees as an effect.
import { isToolName, type ToolCallSpec } from '@owrl/core';
import { ToolCallError } from './errors.js';

export type Target = { kind: 'point'; x: number; y: number } | { kind: 'element'; id: number };
export type Direction = 'up' | 'down' | 'left' | 'right';
export type MouseButton = 'left' | 'right' | 'middle';

export type ParsedCall =
  | { tool: 'click'; target: Target; clicks: number; button: MouseButton }
  | { tool: 'write'; message: string; target: Target | null }
  | { tool: 'press_keys'; keys: string[]; hotkey: boolean; presses: number }
  | { tool: 'scroll'; direction: Direction; amount: number; target: Target | null }
  | { tool: 'wait'; seconds: number }
  | { tool: 'done'; response: string }
  | { tool: 'goto_url'; url: string }
  | { tool: 'go_back' }
  | { tool: 'drag'; start: Target; end: Target; steps: number }
  | { tool: 'hover'; target: Target }
  | { tool: 'new_tab' }
  | { tool: 'switch_tab'; index: number }
  | { tool: 'close_tab' };

function badArgs(param: string, value: unknown, want: string): never {
  const shown = JSON.stringify(value) ?? String(value);
  throw new ToolCallError('bad_args', `${param}=${shown.slice(0, 80)} must be ${want}`, { param });
}

function num(args: Record<string, unknown>, key: string, def: number, min: number, max: number, integer = false): number {
  const raw = args[key];
  if (raw === undefined || raw === null || raw === '') return def;
  const n = typeof raw === 'string' ? Number(raw.trim()) : raw;
  if (typeof n !== 'number' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    badArgs(key, raw, `${integer ? 'an integer' : 'a number'} in [${min}, ${max}]`);
  }
  return n;
}

function parsePoint(raw: unknown, key: string): Target {
  let v: unknown = raw;
  if (typeof v === 'string') {
    const m = /^\s*[[(]?\s*(-?\d+(?:\.\d+)?)\s*[,\s]\s*(-?\d+(?:\.\d+)?)\s*[\])]?\s*$/.exec(v);
    v = m ? [Number(m[1]), Number(m[2])] : v;
  }
  if (!Array.isArray(v) || v.length !== 2 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) badArgs(key, raw, '[x, y] viewport pixels');
  return { kind: 'point', x: v[0] as number, y: v[1] as number };
}

function parseElementId(raw: unknown, key: string): Target {
  const n = typeof raw === 'string' ? Number(raw.trim()) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) badArgs(key, raw, 'an element id from the observation');
  return { kind: 'element', id: n };
}

/** Target from `element_id` (preferred) or `point_2d` (or their prefixed variants for drag). */
function target(args: Record<string, unknown>, prefix: string, required: true): Target;
function target(args: Record<string, unknown>, prefix: string, required: false): Target | null;
function target(args: Record<string, unknown>, prefix: string, required: boolean): Target | null {
  const idKey = `${prefix}element_id`;
  const ptKey = `${prefix}point_2d`;
  if (args[idKey] !== undefined && args[idKey] !== null) return parseElementId(args[idKey], idKey);
  if (args[ptKey] !== undefined && args[ptKey] !== null) return parsePoint(args[ptKey], ptKey);
  if (required) badArgs(ptKey, undefined, `given (or ${idKey})`);
  return null;
}

function str(args: Record<string, unknown>, key: string, required: boolean): string {
  const v = args[key];
  if (v === undefined || v === null) {
    if (required) badArgs(key, v, 'a string');
    return '';
  }
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v !== 'string') badArgs(key, v, 'a string');
  return v;
}

function bool(args: Record<string, unknown>, key: string, def: boolean): boolean {
  const v = args[key];
  if (v === undefined || v === null) return def;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 1) return true;
  if (v === 'false' || v === 0) return false;
  return badArgs(key, v, 'true or false');
}

const KEY_NAMES: Record<string, string> = {
  enter: 'Enter',
  return: 'Enter',
  tab: 'Tab',
  esc: 'Escape',
  escape: 'Escape',
  backspace: 'Backspace',
  delete: 'Delete',
  del: 'Delete',
  space: 'Space',
  ' ': 'Space',
  up: 'ArrowUp',
  down: 'ArrowDown',
  left: 'ArrowLeft',
  right: 'ArrowRight',
  arrowup: 'ArrowUp',
  arrowdown: 'ArrowDown',
  arrowleft: 'ArrowLeft',
  arrowright: 'ArrowRight',
  pageup: 'PageUp',
  pgup: 'PageUp',
  pagedown: 'PageDown',
  pgdn: 'PageDown',
  home: 'Home',
  end: 'End',
  insert: 'Insert',
  ctrl: 'Control',
  control: 'Control',
  alt: 'Alt',
  option: 'Alt',
  shift: 'Shift',
  meta: 'Meta',
  cmd: 'Meta',
  command: 'Meta',
  win: 'Meta',
  super: 'Meta',
  capslock: 'CapsLock',
};

/** Playwright key name of a model's key name (`ctrl` → Control, `enter` → Enter, `a` → a). */
export function normalizeKey(k: string): string {
  const t = k.trim();
  const mapped = KEY_NAMES[t.toLowerCase()];
  if (mapped) return mapped;
  if (/^f([1-9]|1[0-2])$/i.test(t)) return t.toUpperCase();
  if (t.length === 1) return t;
  if (/^[A-Z][A-Za-z]+$/.test(t)) return t; // already a DOM key name (ArrowDown, Enter, ...)
  throw new ToolCallError('bad_args', `keys contains unknown key ${JSON.stringify(k)}`, { param: 'keys' });
}

/** Validates one call; @throws ToolCallError('bad_args' | 'unknown_tool'). */
export function parseCall(call: ToolCallSpec): ParsedCall {
  const name = String(call.name);
  if (!isToolName(name)) throw new ToolCallError('unknown_tool', `unknown tool ${JSON.stringify(name)}`);
  const a = call.args && typeof call.args === 'object' ? call.args : {};
  switch (name) {
    case 'click': {
      const button = str(a, 'button', false) || 'left';
      if (button !== 'left' && button !== 'right' && button !== 'middle') badArgs('button', button, 'left, right or middle');
      return { tool: 'click', target: target(a, '', true), clicks: num(a, 'clicks', 1, 1, 3, true), button };
    }
    case 'write':
      return { tool: 'write', message: str(a, 'message', true), target: target(a, '', false) };
    case 'press_keys': {
      let keys = a['keys'];
      if (typeof keys === 'string') keys = [keys];
      if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string' && k !== '')) badArgs('keys', keys, 'a non-empty list of key names');
      let list = keys as string[];
      let hotkey = bool(a, 'is_hotkey', false);
      // "ctrl+a" given as one key is a combination
      if (list.length === 1 && /.\+./.test(list[0] ?? '')) {
        list = (list[0] ?? '').split('+');
        hotkey = true;
      }
      return { tool: 'press_keys', keys: list.map(normalizeKey), hotkey, presses: num(a, 'presses', 1, 1, 50, true) };
    }
    case 'scroll': {
      const direction = (str(a, 'direction', false) || 'down').toLowerCase();
      if (!['up', 'down', 'left', 'right'].includes(direction)) badArgs('direction', direction, 'up, down, left or right');
      return { tool: 'scroll', direction: direction as Direction, amount: num(a, 'amount', 0.5, 0, 10_000), target: target(a, '', false) };
    }
    case 'wait':
      return { tool: 'wait', seconds: num(a, 'seconds', 3, 0, 60) };
    case 'done':
      return { tool: 'done', response: str(a, 'response', false) };
    case 'goto_url': {
      let url = str(a, 'url', true).trim();
      if (url !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(url)) url = `https://${url}`;
      return { tool: 'goto_url', url };
    }
    case 'go_back':
      return { tool: 'go_back' };
    case 'drag':
      return { tool: 'drag', start: target(a, 'start_', true), end: target(a, 'end_', true), steps: num(a, 'steps', 10, 1, 100, true) };
    case 'hover':
      return { tool: 'hover', target: target(a, '', true) };
    case 'new_tab':
      return { tool: 'new_tab' };
    case 'switch_tab':
      if (a['tab_index'] === undefined || a['tab_index'] === null) badArgs('tab_index', a['tab_index'], 'an integer tab index');
      return { tool: 'switch_tab', index: num(a, 'tab_index', Number.NaN, 0, 100, true) };
    case 'close_tab':
      return { tool: 'close_tab' };
  }
}

/** Pixels to scroll for `amount`: a fraction of the viewport side when <= 10, pixels above. */
export function scrollPixels(amount: number, viewportSide: number): number {
  return Math.round(amount <= 10 ? amount * viewportSide : amount);
}
