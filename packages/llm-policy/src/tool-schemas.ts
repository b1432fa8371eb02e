// The 13 atomic browser tools of OpenWebRL (docs/design.md §5) as JSON-schema function definitions, the
// form an OpenAI-compatible server takes in `tools` and renders into the model's prompt. Names and
// parameters follow OpenWebRL; every point may instead be an element id from the observation.
// Pure data; the coordinate system changes only the wording of the point parameters.
import { TOOL_NAMES, type ToolName } from '@owrl/core';

/** How the model writes points: on a 0..scale grid over the screenshot (Qwen3-VL: 1000), or in screenshot pixels. */
export type CoordinateSystem = { kind: 'relative'; scale: number } | { kind: 'pixels' };

/** The JSON-schema subset the tools use (and the validator understands). */
export type ParamSchema =
  | { type: 'string'; description: string; enum?: string[] }
  | { type: 'integer' | 'number'; description: string; minimum?: number; maximum?: number; default?: number }
  | { type: 'boolean'; description: string; default?: boolean }
  | { type: 'array'; description: string; items: { type: 'number' | 'string' }; minItems?: number; maxItems?: number };

export interface ToolSchema {
  name: ToolName;
  description: string;
  parameters: {
    type: 'object';
    properties: Record<string, ParamSchema>;
    required: string[];
    additionalProperties: false;
  };
}

/** An entry of the request's `tools` list. */
export interface ChatToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: ToolSchema['parameters'] };
}

function pointDoc(coords: CoordinateSystem, what: string): ParamSchema {
  const unit =
    coords.kind === 'relative' ? `on a 0-${coords.scale} grid over the screenshot, (0, 0) = top-left corner` : 'in screenshot pixels, (0, 0) = top-left corner';
  return { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2, description: `[x, y] of ${what}, ${unit}` };
}

function elementDoc(what: string): ParamSchema {
  return { type: 'integer', minimum: 1, description: `id of ${what} in the element list; instead of the point` };
}

/** Tool names in the order the prompt lists them. */
export const TOOL_ORDER: readonly ToolName[] = TOOL_NAMES;

/** The schemas of the 13 tools for a coordinate system. */
export function toolSchemas(coords: CoordinateSystem): ToolSchema[] {
  const obj = (properties: Record<string, ParamSchema>, required: string[] = []): ToolSchema['parameters'] => ({
    type: 'object',
    properties,
    required,
    additionalProperties: false,
  });
  const all: Record<ToolName, Omit<ToolSchema, 'name'>> = {
    click: {
      description: 'Click a point or element of the page.',
      parameters: obj({
        point_2d: pointDoc(coords, 'the point to click'),
        element_id: elementDoc('the element to click'),
        clicks: { type: 'integer', minimum: 1, maximum: 3, default: 1, description: 'number of clicks (2 = double click)' },
        button: { type: 'string', enum: ['left', 'right', 'middle'], description: 'mouse button, default left' },
      }),
    },
    write: {
      description: 'Type text into the focused field, replacing what it holds. Give a point or element to focus a field first.',
      parameters: obj(
        {
          message: { type: 'string', description: 'the text to type' },
          point_2d: pointDoc(coords, 'the field to type into'),
          element_id: elementDoc('the field to type into'),
        },
        ['message'],
      ),
    },
    press_keys: {
      description: 'Press keys one after another, or together as a shortcut.',
      parameters: obj(
        {
          keys: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'key names, e.g. ["Enter"] or ["ctrl", "a"]' },
          is_hotkey: { type: 'boolean', default: false, description: 'press the keys together (a shortcut) instead of in turn' },
          presses: { type: 'integer', minimum: 1, maximum: 50, default: 1, description: 'how many times to press' },
        },
        ['keys'],
      ),
    },
    scroll: {
      description: 'Scroll the page, or the scrollable area under a point or element.',
      parameters: obj({
        direction: { type: 'string', enum: ['up', 'down', 'left', 'right'], description: 'default down' },
        amount: { type: 'number', minimum: 0, maximum: 10, default: 0.5, description: 'fraction of the viewport to scroll, default 0.5' },
        point_2d: pointDoc(coords, 'the area to scroll'),
        element_id: elementDoc('the area to scroll'),
      }),
    },
    wait: {
      description: 'Wait for the page to change.',
      parameters: obj({ seconds: { type: 'number', minimum: 0, maximum: 60, default: 3, description: 'seconds to wait, default 3' } }),
    },
    done: {
      description: 'Finish the task and give the final answer.',
      parameters: obj({ response: { type: 'string', description: 'the answer the task asks for, or a short account of what was done' } }),
    },
    goto_url: {
      description: 'Open a URL in the current tab.',
      parameters: obj({ url: { type: 'string', description: 'the address to open' } }, ['url']),
    },
    go_back: { description: 'Go back to the previous page of the current tab.', parameters: obj({}) },
    drag: {
      description: 'Drag from one point or element to another.',
      parameters: obj({
        start_point_2d: pointDoc(coords, 'where the drag starts'),
        end_point_2d: pointDoc(coords, 'where the drag ends'),
        start_element_id: elementDoc('the element to drag'),
        end_element_id: elementDoc('the element to drop on'),
        steps: { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'intermediate mouse moves, default 10' },
      }),
    },
    hover: {
      description: 'Move the mouse over a point or element.',
      parameters: obj({ point_2d: pointDoc(coords, 'the point to hover'), element_id: elementDoc('the element to hover') }),
    },
    new_tab: { description: 'Open a new empty tab and switch to it.', parameters: obj({}) },
    switch_tab: {
      description: 'Switch to an open tab.',
      parameters: obj({ tab_index: { type: 'integer', minimum: 0, description: '0-based index of the tab in the tab list' } }, ['tab_index']),
    },
    close_tab: { description: 'Close the current tab.', parameters: obj({}) },
  };
  return TOOL_ORDER.map((name) => ({ name, ...all[name] }));
}

/** The `tools` list of a chat request. */
export function toolDefinitions(coords: CoordinateSystem): ChatToolDefinition[] {
  return toolSchemas(coords).map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

/** Tools whose call needs a target: one of a point or an element id (for drag: of each end). */
export const TARGETS: Partial<Record<ToolName, Array<[point: string, element: string]>>> = {
  click: [['point_2d', 'element_id']],
  hover: [['point_2d', 'element_id']],
  drag: [
    ['start_point_2d', 'start_element_id'],
    ['end_point_2d', 'end_element_id'],
  ],
};
