// Fixtures of the llm-policy tests: three tiny JPEG screenshots (16x10, distinct bytes) and fixed
// observations and histories for the golden renderings.
import type { ElementInfo, HistoryEntry, Observation } from '@owrl/core';
import type { PolicyInput } from '@owrl/policy';

export const SHOTS_B64 = [
  "/9j/4AAQSkZJRgABAQAAAQABAAD/2wCEABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2MBERISGBUYLxoaL2NCOEJjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY//AABEIAAoAEAMBEQACEQEDEQH/xAGiAAABBQEBAQEBAQAAAAAAAAAAAQIDBAUGBwgJCgsQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+gEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoLEQACAQIEBAMEBwUEBAABAncAAQIDEQQFITEGEkFRB2FxEyIygQgUQpGhscEJIzNS8BVictEKFiQ04SXxFxgZGiYnKCkqNTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqCg4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2dri4+Tl5ufo6ery8/T19vf4+fr/2gAMAwEAAhEDEQA/AM1bWzkUBFiiOc7kCE/TljXC6lRPW7+//I5PYVYu7u/v/RIUWzxBmAiZAeMMhYj6BTRzqWmt/n/mV7BS01v8/wA20WvELtBqMSwsY1MQJCHAzk+lY4RKVNuWup6mAjGdJuSvr/kQQXM/H7+T/vs1pOEexvKlT/lX3H//2Q==",
  "/9j/4AAQSkZJRgABAQAAAQABAAD/2wCEABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2MBERISGBUYLxoaL2NCOEJjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY//AABEIAAoAEAMBEQACEQEDEQH/xAGiAAABBQEBAQEBAQAAAAAAAAAAAQIDBAUGBwgJCgsQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+gEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoLEQACAQIEBAMEBwUEBAABAncAAQIDEQQFITEGEkFRB2FxEyIygQgUQpGhscEJIzNS8BVictEKFiQ04SXxFxgZGiYnKCkqNTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqCg4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2dri4+Tl5ufo6ery8/T19vf4+fr/2gAMAwEAAhEDEQA/AIF06zkUBEiiOc7kVCfpyxrmdaonrd/f/kUsBVi7u7+/9Eh4094gzARMgPGGQsR9Appe2UtNb/P/ADLWAUrKzv8AP820Y2ryPDrE6ROyINuFU4A+UV24eKlRTa/q55+EpwlQi5JN6/mOt7mfj99J/wB9GlOEexcqNP8AlX3H/9k=",
  "/9j/4AAQSkZJRgABAQAAAQABAAD/2wCEABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2MBERISGBUYLxoaL2NCOEJjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY//AABEIAAoAEAMBEQACEQEDEQH/xAGiAAABBQEBAQEBAQAAAAAAAAAAAQIDBAUGBwgJCgsQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+gEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoLEQACAQIEBAMEBwUEBAABAncAAQIDEQQFITEGEkFRB2FxEyIygQgUQpGhscEJIzNS8BVictEKFiQ04SXxFxgZGiYnKCkqNTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqCg4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2dri4+Tl5ufo6ery8/T19vf4+fr/2gAMAwEAAhEDEQA/AIfI0p4x5floQc/u0XJ9vmbFPmrp6/r+iIdOnBN3cvK0v/kV+YKscQZhEGQHjHlliPoFNDblpfX5/wCYL6vKy5ZX9P1ckLq0jw6xOkTsiDbhVOAPlFGHSlRTf9ansYOnCVCLkk3r+ZJb3E/H76T/AL6NTOEexs6NL+Vfcf/Z"
];

export const SHOTS: Uint8Array[] = SHOTS_B64.map((b) => new Uint8Array(Buffer.from(b, 'base64')));

function el(id: number, role: string, name: string, x: number, y: number, extra: Partial<ElementInfo> = {}): ElementInfo {
  return { id, role, tag: role === 'link' ? 'a' : role === 'textbox' ? 'input' : 'button', name, value: '', type: '', href: '', box: { x, y, width: 100, height: 20 }, inViewport: true, context: '', frame: '', ...extra };
}

/** A shop search page as the environment would show it. */
export function shopObservation(over: Partial<Observation> = {}): Observation {
  return {
    url: 'http://127.0.0.1:8400/shop',
    title: 'Shop — home',
    tabs: [{ index: 0, url: 'http://127.0.0.1:8400/shop', title: 'Shop — home', active: true }],
    elements: [
      el(1, 'link', 'Home', 10, 10),
      el(2, 'searchbox', 'Search products', 400, 10, { type: 'search', tag: 'input' }),
      el(3, 'button', 'Search', 510, 10),
      el(4, 'link', 'Blue mug', 100, 300, { href: 'http://127.0.0.1:8400/shop/p/blue-mug' }),
      el(5, 'link', 'Footer terms', 10, 1900, { inViewport: false }),
    ],
    texts: [],
    scrollY: 0,
    scrollMaxY: 1200,
    viewport: { width: 1280, height: 800 },
    lastEffects: [],
    screenshots: [SHOTS[0] as Uint8Array],
    ...over,
  };
}

/** Two earlier steps of a language model (its raw replies) and what they did. */
export const HISTORY: HistoryEntry[] = [
  {
    step: 0,
    reasoning: 'The search box is at the top.',
    calls: [{ name: 'click', args: { point_2d: [358.4, 16] } }],
    effects: ['focused Search products'],
    url: 'http://127.0.0.1:8400/shop',
    raw: '<think>\nThe search box is at the top.\n</think>\n\nI will click it.\n<tool_call>\n{"name": "click", "arguments": {"point_2d": [280, 20]}}\n</tool_call>',
  },
  {
    step: 1,
    reasoning: 'Type the query and submit.',
    calls: [
      { name: 'write', args: { message: 'blue mug' } },
      { name: 'press_keys', args: { keys: ['Enter'] } },
    ],
    effects: ['value_set "blue mug" in Search products', 'navigated to /shop/search?q=blue+mug'],
    url: 'http://127.0.0.1:8400/shop',
    raw: '<think>\nType the query and submit.\n</think>\n\n<tool_call>\n{"name": "write", "arguments": {"message": "blue mug"}}\n</tool_call>\n<tool_call>\n{"name": "press_keys", "arguments": {"keys": ["Enter"]}}\n</tool_call>',
  },
];

export function input(over: Partial<PolicyInput> = {}): PolicyInput {
  return { instruction: 'Find the price of the blue mug.', observation: shopObservation(), history: [], step: 0, maxSteps: 15, ...over };
}
