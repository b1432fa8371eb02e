// Reply parsing and tool-call validation: native and Qwen-style text tool calls, chains, thinking,
// malformed, truncated and mixed replies, unknown tools and bad arguments, coordinate conversion,
// and the history modes applied to a reply text. Expected values are written out by hand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compressReplyText, parseReply, validateToolCall, type ReplyMessage, type ValidateContext } from '@owrl/llm-policy';

const rel: ValidateContext = { coords: { kind: 'relative', scale: 1000 }, viewport: { width: 1280, height: 800 } };
const px: ValidateContext = { coords: { kind: 'pixels' }, viewport: { width: 1280, height: 800 } };
const reply = (over: Partial<ReplyMessage>): ReplyMessage => ({ content: '', reasoning: '', toolCalls: [], finishReason: 'stop', ...over });

void describe('parseReply', () => {
  void it('reads native tool calls (JSON text or object arguments) in order, converting points to pixels', () => {
    const r = parseReply(
      reply({
        content: 'I click the search box, then type.',
        toolCalls: [
          { name: 'click', arguments: '{"point_2d": [500, 250]}' },
          { name: 'write', arguments: { message: 'blue mug' } },
          { name: 'press_keys', arguments: '{"keys": ["Enter"]}' },
        ],
      }),
      rel,
    );
    assert.equal(r.error, undefined);
    assert.deepEqual(r.calls, [
      { name: 'click', args: { point_2d: [640, 200] } },
      { name: 'write', args: { message: 'blue mug' } },
      { name: 'press_keys', args: { keys: ['Enter'] } },
    ]);
    assert.equal(r.reasoning, 'I click the search box, then type.');
    // the reply text replays native calls as the blocks a Qwen template renders
    assert.equal(
      r.text,
      'I click the search box, then type.\n<tool_call>\n{"name":"click","arguments":{"point_2d":[500,250]}}\n</tool_call>\n<tool_call>\n{"name":"write","arguments":{"message":"blue mug"}}\n</tool_call>\n<tool_call>\n{"name":"press_keys","arguments":{"keys":["Enter"]}}\n</tool_call>',
    );
  });

  void it('reads several Qwen-style text tool calls with reasoning inside <think> and before them', () => {
    const content =
      '<think>\nThe mug link is on the left.\n</think>\n\nOpening it.\n<tool_call>\n{"name": "click", "arguments": {"element_id": 4}}\n</tool_call>\n<tool_call>\n{"name": "scroll", "arguments": {"direction": "down", "amount": "0.25"}}\n</tool_call>';
    const r = parseReply(reply({ content }), rel);
    assert.equal(r.error, undefined);
    assert.deepEqual(r.calls, [
      { name: 'click', args: { element_id: 4 } },
      { name: 'scroll', args: { direction: 'down', amount: 0.25 } },
    ]);
    assert.equal(r.reasoning, 'The mug link is on the left.\n\nOpening it.');
    assert.equal(r.text, content);
  });

  void it('takes reasoning a server split off, and a prefilled thinking block that only closes', () => {
    const r = parseReply(reply({ reasoning: 'Price is shown: 12.50.', toolCalls: [{ name: 'done', arguments: '{"response": "12.50"}' }] }), rel);
    assert.deepEqual(r.calls, [{ name: 'done', args: { response: '12.50' } }]);
    assert.equal(r.reasoning, 'Price is shown: 12.50.');
    assert.equal(r.text, '<think>\nPrice is shown: 12.50.\n</think>\n\n<tool_call>\n{"name":"done","arguments":{"response":"12.50"}}\n</tool_call>');
    const p = parseReply(reply({ content: 'the page is loaded</think>\n<tool_call>{"name": "go_back", "arguments": {}}</tool_call>' }), rel);
    assert.deepEqual(p.calls, [{ name: 'go_back', args: {} }]);
    assert.equal(p.reasoning, 'the page is loaded');
  });

  void it('keeps native calls first and skips text copies of them in a mixed reply', () => {
    const r = parseReply(
      reply({
        content: 'Done soon.\n<tool_call>\n{"name": "click", "arguments": {"element_id": 3}}\n</tool_call>\n<tool_call>{"name": "wait", "arguments": {"seconds": 1}}</tool_call>',
        toolCalls: [{ name: 'click', arguments: '{"element_id": 3}' }],
      }),
      rel,
    );
    assert.equal(r.error, undefined);
    assert.deepEqual(r.calls, [
      { name: 'click', args: { element_id: 3 } },
      { name: 'wait', args: { seconds: 1 } },
    ]);
  });

  void it('refuses malformed JSON, naming the call', () => {
    const r = parseReply(reply({ content: '<tool_call>\n{"name": "click", "arguments": {"point_2d": [1, 2]]}\n</tool_call>' }), rel);
    assert.deepEqual(r.calls, []);
    assert.match(r.error ?? '', /^tool call 1 is not valid JSON/);
  });

  void it('refuses a truncated reply that ends inside a tool call', () => {
    const r = parseReply(reply({ content: 'Let me click.\n<tool_call>\n{"name": "click", "arguments": {"point_2d": [12' }), rel);
    assert.equal(r.error, 'unterminated <tool_call> (the reply ends inside a tool call)');
    assert.equal(r.reasoning, 'Let me click.');
  });

  void it('refuses a reply without any tool call, and one that only thinks', () => {
    assert.match(parseReply(reply({ content: 'I think the answer is 12.50.' }), rel).error ?? '', /^no tool call in the reply/);
    assert.match(parseReply(reply({ content: '<think>still thinking about it' }), rel).error ?? '', /^no tool call/);
  });

  void it('refuses unknown tools and bad arguments with the call and parameter named', () => {
    assert.equal(
      parseReply(reply({ toolCalls: [{ name: 'type_text', arguments: '{}' }] }), rel).error,
      'unknown tool "type_text" (tools: click, write, press_keys, scroll, wait, done, goto_url, go_back, drag, hover, new_tab, switch_tab, close_tab)',
    );
    const chain = parseReply(
      reply({
        toolCalls: [
          { name: 'click', arguments: '{"element_id": 2}' },
          { name: 'click', arguments: '{"point_2d": [1200, 10]}' },
        ],
      }),
      rel,
    );
    assert.equal(chain.error, 'call 2 of 2: click: point_2d=[1200,10] is outside the 0-1000 grid');
    assert.deepEqual(chain.calls, []);
    assert.equal(parseReply(reply({ toolCalls: [{ name: 'click', arguments: '{"x": 3}' }] }), rel).error, 'click: unknown parameter "x" (parameters: point_2d, element_id, clicks, button)');
    assert.equal(parseReply(reply({ toolCalls: [{ name: 'click', arguments: '{}' }] }), rel).error, 'click: needs point_2d or element_id');
    assert.equal(parseReply(reply({ toolCalls: [{ name: 'write', arguments: '{"element_id": 2}' }] }), rel).error, 'write: missing required parameter message');
    assert.equal(parseReply(reply({ toolCalls: [{ name: 'scroll', arguments: '{"direction": "sideways"}' }] }), rel).error, 'scroll: direction="sideways" must be one of up, down, left, right');
    assert.equal(parseReply(reply({ toolCalls: [{ name: 'switch_tab', arguments: '{"tab_index": 1.5}' }] }), rel).error, 'switch_tab: tab_index=1.5 must be an integer');
    assert.equal(parseReply(reply({ toolCalls: [{ name: 'click', arguments: '{"point_2d": [1, 2' }] }), rel).error?.startsWith('click: arguments are not valid JSON'), true);
  });
});

void describe('validateToolCall', () => {
  void it('accepts the sloppy forms models write and normalises them', () => {
    assert.deepEqual(validateToolCall('click', { point_2d: '[100, 500]', clicks: '2', button: 'LEFT' }, rel), { ok: true, call: { name: 'click', args: { point_2d: [128, 400], clicks: 2, button: 'left' } } });
    assert.deepEqual(validateToolCall('press_keys', { keys: 'Enter', is_hotkey: 'false' }, rel), { ok: true, call: { name: 'press_keys', args: { keys: ['Enter'], is_hotkey: false } } });
    assert.deepEqual(validateToolCall('drag', '{"start_point_2d": [10, 20], "end_element_id": 7}', px), { ok: true, call: { name: 'drag', args: { start_point_2d: [10, 20], end_element_id: 7 } } });
    assert.deepEqual(validateToolCall('done', { response: null }, rel), { ok: true, call: { name: 'done', args: {} } });
  });

  void it('checks pixel points against the screenshot size', () => {
    assert.deepEqual(validateToolCall('hover', { point_2d: [1280, 800] }, px), { ok: true, call: { name: 'hover', args: { point_2d: [1280, 800] } } });
    assert.deepEqual(validateToolCall('hover', { point_2d: [1281, 5] }, px), { ok: false, error: 'hover: point_2d=[1281,5] is outside the 1280x800 screenshot' });
    assert.deepEqual(validateToolCall('drag', { start_point_2d: [1, 2] }, px), { ok: false, error: 'drag: needs end_point_2d or end_element_id' });
  });
});

void describe('compressReplyText', () => {
  const text = '<think>\nlooking\n</think>\n\nClicking the link.\n<tool_call>\n{"name": "click", "arguments": {"element_id": 4}}\n</tool_call>';
  void it('keeps the reply in full, drops thinking, or keeps only the calls', () => {
    assert.equal(compressReplyText(text, 'full'), text);
    assert.equal(compressReplyText(text, 'hide_thinking'), 'Clicking the link.\n<tool_call>\n{"name": "click", "arguments": {"element_id": 4}}\n</tool_call>');
    assert.equal(compressReplyText(text, 'action_only'), '<tool_call>\n{"name": "click", "arguments": {"element_id": 4}}\n</tool_call>');
    assert.equal(compressReplyText('half a thought</think>\n<tool_call>{"name": "go_back"}</tool_call>', 'hide_thinking'), '<tool_call>{"name": "go_back"}</tool_call>');
  });
});
