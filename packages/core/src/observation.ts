// What the environment shows a policy at each step, and the history of earlier steps. Produced by
// packages/browser-env, consumed by packages/policy; plain data so it can cross a worker boundary.

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An interactive element of the page (link, button, input, select, ...), addressable by `id`. */
export interface ElementInfo {
  /** Stable within one observation; tools accept it instead of a point. */
  id: number;
  /** ARIA role or a role derived from the tag: link, button, textbox, searchbox, combobox, checkbox, ... */
  role: string;
  tag: string;
  /** Accessible name: aria-label, label text, inner text, placeholder or title. */
  name: string;
  /** Current value of form controls, '' otherwise. */
  value: string;
  /** input type for inputs (text, search, number, ...), '' otherwise. */
  type: string;
  /** Resolved href for links, '' otherwise. */
  href: string;
  /** Viewport coordinates in CSS pixels. */
  box: Box;
  inViewport: boolean;
  /** Text of the nearest item-like container (card, list item, table row), trimmed to ~200 chars. */
  context: string;
  /** Frame path ('' for the main frame) or 'shadow' marker; informational. */
  frame: string;
}

/** A short visible text (leaf text block), used as an answer candidate. */
export interface TextItem {
  id: number;
  text: string;
  tag: string;
  /** Text of the nearest item-like container, as for elements. */
  context: string;
  box: Box;
  inViewport: boolean;
}

export interface TabInfo {
  index: number;
  url: string;
  title: string;
  active: boolean;
}

export interface Observation {
  url: string;
  title: string;
  tabs: TabInfo[];
  elements: ElementInfo[];
  texts: TextItem[];
  /** Page scroll offset and maximum, CSS pixels. */
  scrollY: number;
  scrollMaxY: number;
  viewport: { width: number; height: number };
  /** Rendered effect lines of the previous step's calls. */
  lastEffects: string[];
  /** Latest screenshots (JPEG), newest last; empty when the policy does not read screenshots. */
  screenshots: Uint8Array[];
}

/** Names of the 13 atomic tools of OpenWebRL. */
export const TOOL_NAMES = [
  'click',
  'write',
  'press_keys',
  'scroll',
  'wait',
  'done',
  'goto_url',
  'go_back',
  'drag',
  'hover',
  'new_tab',
  'switch_tab',
  'close_tab',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export function isToolName(s: string): s is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(s);
}

/**
 * One tool call. Targets are given as `point_2d: [x, y]` (viewport pixels) or `element_id`.
 * Parameters follow OpenWebRL: click(point_2d, clicks=1, button), write(message),
 * press_keys(keys[], is_hotkey=false, presses=1), scroll(direction, amount=0.5, point_2d?),
 * wait(seconds=3), done(response), goto_url(url), go_back(), drag(start_point_2d, end_point_2d,
 * steps=10), hover(point_2d), new_tab(), switch_tab(tab_index), close_tab().
 */
export interface ToolCallSpec {
  name: ToolName;
  args: Record<string, unknown>;
}

/** Earlier step as text memory for the policy. */
export interface HistoryEntry {
  step: number;
  reasoning: string;
  calls: ToolCallSpec[];
  effects: string[];
  url: string;
  /**
   * The policy's own output of that step as it produced it (a language model's reply text, tool
   * calls included), when the policy reported one: a language-model policy replays it as its
   * earlier assistant turn, so the coordinates and wording it sees are its own.
   */
  raw?: string;
}

export type HistoryMode = 'full' | 'hide_thinking' | 'action_only';
