// Test helpers: temp folders, sample judge inputs, a recording logger, and the hand computation
// of the tiny models' P(yes) in float64 TypeScript (independent of onnxruntime).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Template } from '@huggingface/jinja';
import jpeg from 'jpeg-js';
import { Tokenizer } from '@huggingface/tokenizers';
import type { Logger } from '@owrl/core';
import { buildMessages, DEFAULT_QUESTION, DEFAULT_SYSTEM_PROMPT, type JudgeInput, type Shortening } from '@owrl/judge-model';
import { probeGraphBytes, type TinyHead } from '@owrl/judge-model/testing';

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `owrl-jm-${prefix}-`));
}

/** A judge input with `steps` steps; `seed` varies the words so rows differ. */
export function sampleInput(steps: number, seed = 0, answer = '12.50'): JudgeInput {
  const items = ['red mug', 'blue lamp', 'green chair', 'black pen', 'white desk'];
  const item = items[seed % items.length] ?? 'mug';
  return {
    instruction: `find the price of the ${item}`,
    startUrl: 'http://127.0.0.1:8400/shop',
    steps: Array.from({ length: steps }, (_, i) => ({
      reasoning: `step ${i + 1}: I look for the ${item} and click it`,
      url: `/shop/p/${seed * 10 + i}`,
      actions: [
        { name: 'click', argsJson: `{"ref":${i + 3}}`, ok: true, errorCode: '', effects: [`navigated to /shop/p/${seed * 10 + i}`] },
        ...(i % 2 === 1 ? [{ name: 'scroll', argsJson: '{"dy":400}', ok: false, errorCode: 'scroll_blocked', effects: [] }] : []),
      ],
    })),
    finalAnswer: answer,
  };
}

export interface LogRecord {
  level: 'debug' | 'info' | 'warn' | 'error';
  obj: object;
  msg: string;
}

export function recordingLogger(): Logger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  const at = (level: LogRecord['level']) => (obj: object, msg?: string) => void records.push({ level, obj, msg: msg ?? '' });
  const logger = { records, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => logger };
  return logger;
}

/** Token ids of the prompt, built directly with the tokenizer and template libraries. */
export function promptIds(dir: string, input: JudgeInput, cut: Shortening = { dropSteps: 0 }, image = false): number[] {
  const tokJson = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')) as object;
  const tokCfg = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8')) as { chat_template: string };
  const text = new Template(tokCfg.chat_template).render({
    messages: buildMessages(input, { system: DEFAULT_SYSTEM_PROMPT, question: DEFAULT_QUESTION, image }, cut),
    add_generation_prompt: true,
  });
  return new Tokenizer(tokJson, tokCfg).encode(text, { add_special_tokens: false }).ids;
}

/** P(yes) of the shared head from the token vectors x[t] (already token + position). */
export function headP(head: TinyHead, xs: Float64Array[], yesId: number, noId: number): number {
  const h = new Float64Array(head.hidden);
  for (const x of xs) for (let j = 0; j < head.hidden; j++) h[j] = (h[j] ?? 0) + (x[j] ?? 0) / xs.length;
  const a = new Float64Array(head.hidden);
  for (let k = 0; k < head.hidden; k++) {
    let s = head.b1[k] ?? 0;
    for (let j = 0; j < head.hidden; j++) s += (h[j] ?? 0) * (head.w1[j * head.hidden + k] ?? 0);
    a[k] = Math.max(0, s);
  }
  let yes = 0;
  let no = 0;
  for (let k = 0; k < head.hidden; k++) {
    yes += (a[k] ?? 0) * (head.w2[k * head.vocab + yesId] ?? 0);
    no += (a[k] ?? 0) * (head.w2[k * head.vocab + noId] ?? 0);
  }
  return Math.exp(yes) / (Math.exp(yes) + Math.exp(no));
}

/** Row `i` of a [rows, hidden] matrix as float64. */
export function row(m: Float32Array, i: number, hidden: number): Float64Array {
  return Float64Array.from(m.subarray(i * hidden, (i + 1) * hidden));
}

export function add(...vs: Float64Array[]): Float64Array {
  const out = new Float64Array(vs[0]?.length ?? 0);
  for (const v of vs) for (let i = 0; i < out.length; i++) out[i] = (out[i] ?? 0) + (v[i] ?? 0);
  return out;
}

/** A one-node graph to probe a device with (probeDevice). */
export function probeGraph(): Uint8Array {
  return probeGraphBytes();
}

/** A JPEG with a colour gradient, so that patch order and resizing matter. */
export function gradientJpeg(width: number, height: number): Uint8Array {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = Math.round((255 * x) / width);
      data[i + 1] = Math.round((255 * y) / height);
      data[i + 2] = (x * 7 + y * 13) % 256;
      data[i + 3] = 255;
    }
  }
  return new Uint8Array(jpeg.encode({ width, height, data }, 92).data);
}
