// A stand-in for the model server a user brings (vLLM or SGLang), faithful to their HTTP
// protocols: POST /v1/chat/completions answered in the engine's shape (native tool calls,
// split-off reasoning, per-token logprobs, completion and prompt token ids where the request asks
// for them and the release has them, SGLang meta_info, `token_id:N` tokens with vLLM's
// return_tokens_as_token_ids), the engine's error bodies and context-length wordings, its way of
// picking the model or LoRA adapter that serves a request (SGLang runs the base model for a
// `model` that names an adapter without the "<base>:<adapter>" form), the model's generation
// config filling the sampling fields a request leaves out (engine-rules.ts), and the weight
// endpoints (vLLM /v1/load_lora_adapter and /v1/unload_lora_adapter, only with runtime LoRA
// updating on; SGLang /update_weights_from_disk, /load_lora_adapter and /unload_lora_adapter).
// Scripted per test (replies, slow replies, truncation, 5xx, resets, hangs); records every request
// (images decoded, the sampling it ran with, what served it) and every weight call. A
// deterministic stand-in tokenizer gives token ids and logprobs.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Socket } from 'node:net';
import { effectiveSampling, overflowRefusal, overflows, resolveModel, type EffectiveSampling, type EngineRefusal, type GenerationConfig, type VllmWording } from './engine-rules.js';

export type ChatEngine = 'vllm' | 'sglang';

export interface ScriptedReply {
  kind?: 'reply';
  /** Assistant text as the model wrote it (may hold <think> and <tool_call> blocks). */
  content?: string;
  /** Reasoning the server split off (vLLM `reasoning`, SGLang `reasoning_content`). */
  reasoning?: string;
  /** Native tool calls; `arguments` as JSON text or an object (sent as JSON text). */
  toolCalls?: Array<{ name: string; arguments: unknown }>;
  /** Default: "tool_calls" with native calls, else "stop". */
  finishReason?: string;
  /** Answer only after this long. */
  delayMs?: number;
}

export type ChatScript =
  | ScriptedReply
  | { kind: 'status'; status: number; message?: string; retryAfterS?: number }
  | { kind: 'context_overflow'; limit: number; input: number; maxTokens?: number }
  | { kind: 'hang' }
  | { kind: 'reset' }
  | { kind: 'not_json' };

export interface RecordedChatRequest {
  body: Record<string, unknown>;
  model: string;
  authorization: string | undefined;
  /** Decoded bytes of every image part, in message order. */
  images: Buffer[];
  /** Prompt tokens the stand-in tokenizer counted. */
  promptTokens: number;
  /** The sampling parameters the request ran with (its own, else the generation config's, else the engine's defaults). */
  sampling: EffectiveSampling;
  /** The adapter (or base model) that ran it; null when it was refused before running. */
  servedBy: string | null;
  /** The adapter the request mentions in any field, or the base model (engine-rules.ts). */
  named: string;
}

export interface SentCompletion {
  /** Index into `requests`. */
  request: number;
  text: string;
  tokenIds: number[];
  logprobs: number[];
  promptTokenIds: number[];
  finishReason: string;
  /** The adapter (or base model) that produced it. */
  servedBy: string;
}

export interface WeightCall {
  path: string;
  body: Record<string, unknown>;
  status: number;
}

export interface ChatServerOptions {
  engine?: ChatEngine;
  /** Served base model name (default "base-model"). */
  baseModel?: string;
  /** When set, every request must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Context length: requests whose prompt plus max_tokens exceed it are refused in the engine's wording. */
  contextLength?: number;
  /** Answer for requests when the script is empty (default: HTTP 500 "no scripted reply"). */
  fallback?: (req: RecordedChatRequest) => ChatScript;
  /** The model's generation_config.json sampling fields, applied to what a request leaves out (default none). */
  generationConfig?: GenerationConfig;
  /** LoRA serving and its loading API on (vLLM --enable-lora with VLLM_ALLOW_RUNTIME_LORA_UPDATING; SGLang --enable-lora). Default true. */
  lora?: boolean;
  /** SGLang releases that refuse a `model` whose base part is not the served model (404). Default false: the base model runs it. */
  sglangModelCheck?: boolean;
  /** The release answers `return_token_ids` (vLLM 0.10.2+, SGLang with chat token ids). Default true. */
  returnTokenIds?: boolean;
  /** SGLang: the release answers `return_meta_info` with the choice's meta_info. Default true. */
  returnMetaInfo?: boolean;
  /** vLLM's context-length wording (default `current`). */
  vllmWording?: VllmWording;
}

export interface ChatServerDouble {
  /** API base, e.g. http://127.0.0.1:1234/v1. */
  url: string;
  origin: string;
  engine: ChatEngine;
  /** The served base model's name. */
  baseModel: string;
  requests: RecordedChatRequest[];
  sent: SentCompletion[];
  weightCalls: WeightCall[];
  /** vLLM: adapter name → path; SGLang: the same for /load_lora_adapter. */
  adapters: Map<string, string>;
  /** SGLang: model_path of the last successful /update_weights_from_disk. */
  weightsPath: string | undefined;
  /** Time spent composing answers (ms), scripted delays excluded. */
  computeMs: number;
  script(...items: ChatScript[]): void;
  /** Scripted replies not yet used. */
  pending(): number;
  close(): Promise<void>;
}

/** Id of the image placeholder token the stand-in tokenizer uses (Qwen's <|image_pad|>). */
export const STANDIN_IMAGE_TOKEN = 151655;
/** Placeholder tokens per image in the stand-in prompt count. */
export const STANDIN_IMAGE_TOKENS = 16;

/** The stand-in tokenizer: chunks of up to 4 characters (whitespace kept with the next word), ids from a hash. */
export function standinTokenize(text: string): { ids: number[]; pieces: string[] } {
  const pieces = text.match(/\s*[^\s]{1,4}|\s+/g) ?? [];
  return { pieces, ids: pieces.map((p) => 10 + (createHash('sha1').update(p).digest().readUInt32BE(0) % 150_000)) };
}

/** The stand-in log-probability of a token at a position (deterministic, in (-1.2, 0)). */
export function standinLogprob(id: number, i: number): number {
  return -(((id * 31 + i * 7) % 997) / 1000 + 0.005);
}

function promptTokenIds(body: Record<string, unknown>): number[] {
  const ids: number[] = [];
  const messages = Array.isArray(body['messages']) ? (body['messages'] as unknown[]) : [];
  for (const m of messages) {
    if (typeof m !== 'object' || m === null) continue;
    const msg = m as Record<string, unknown>;
    ids.push(...standinTokenize(`<|im_start|>${String(msg['role'])}\n`).ids);
    const content = msg['content'];
    if (typeof content === 'string') ids.push(...standinTokenize(content).ids);
    else if (Array.isArray(content)) {
      for (const p of content as Array<Record<string, unknown>>) {
        if (p['type'] === 'text') ids.push(...standinTokenize(String(p['text'])).ids);
        else if (p['type'] === 'image_url') ids.push(...new Array<number>(STANDIN_IMAGE_TOKENS).fill(STANDIN_IMAGE_TOKEN));
      }
    }
  }
  if (Array.isArray(body['tools'])) ids.push(...standinTokenize(JSON.stringify(body['tools'])).ids);
  return ids;
}

function decodeImages(body: Record<string, unknown>): Buffer[] {
  const out: Buffer[] = [];
  for (const m of Array.isArray(body['messages']) ? (body['messages'] as Array<Record<string, unknown>>) : []) {
    if (!Array.isArray(m['content'])) continue;
    for (const p of m['content'] as Array<Record<string, unknown>>) {
      const url = (p['image_url'] as { url?: unknown } | undefined)?.url;
      if (p['type'] === 'image_url' && typeof url === 'string') {
        const comma = url.indexOf(',');
        out.push(url.startsWith('data:') && comma > 0 ? Buffer.from(url.slice(comma + 1), 'base64') : Buffer.from(url));
      }
    }
  }
  return out;
}

/** The text a model produced for a reply (what its tokens spell): thinking, content, native calls. */
function completionText(r: ScriptedReply): string {
  const calls = (r.toolCalls ?? []).map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: typeof c.arguments === 'string' ? JSON.parse(c.arguments) : c.arguments })}\n</tool_call>`);
  return [r.reasoning ? `<think>\n${r.reasoning}\n</think>\n\n` : '', r.content ?? '', calls.length > 0 && r.content ? '\n' : '', calls.join('\n')].join('');
}

export async function startChatServer(opts: ChatServerOptions = {}): Promise<ChatServerDouble> {
  const engine = opts.engine ?? 'vllm';
  const baseModel = opts.baseModel ?? 'base-model';
  const queue: ChatScript[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let seq = 0;

  const errorBody = (status: number, message: string, type: string, param: string | null = null) =>
    engine === 'vllm' ? { error: { message, type, param, code: status } } : { object: 'error', message, type, param, code: status };
  const refuse = (res: http.ServerResponse, r: EngineRefusal) => send(res, r.status, errorBody(r.status, r.message, r.type, r.param ?? null));
  const lora = opts.lora ?? true;
  const wording = opts.vllmWording ?? 'current';

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers });
    res.end(text);
  };

  const double: ChatServerDouble = {
    url: '',
    origin: '',
    engine,
    baseModel,
    requests: [],
    sent: [],
    weightCalls: [],
    adapters: new Map(),
    weightsPath: undefined,
    computeMs: 0,
    script: (...items) => void queue.push(...items),
    pending: () => queue.length,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const chat = (body: Record<string, unknown>, req: http.IncomingMessage, res: http.ServerResponse, socket: Socket) => {
    const t0 = performance.now();
    const model = typeof body['model'] === 'string' ? body['model'] : '';
    const promptIds = promptTokenIds(body);
    const served = resolveModel(engine, body, { baseModel, adapters: double.adapters, lora, sglangModelCheck: opts.sglangModelCheck ?? false });
    const rec: RecordedChatRequest = {
      body,
      model,
      authorization: req.headers['authorization'],
      images: decodeImages(body),
      promptTokens: promptIds.length,
      sampling: effectiveSampling(body, opts.generationConfig ?? {}),
      servedBy: 'servedBy' in served ? served.servedBy : null,
      named: 'named' in served ? served.named : model,
    };
    const index = double.requests.push(rec) - 1;
    if (opts.apiKey !== undefined && rec.authorization !== `Bearer ${opts.apiKey}`) {
      rec.servedBy = null;
      return send(res, 401, engine === 'vllm' ? { error: { message: 'Unauthorized', type: 'Unauthorized', param: null, code: 401 } } : { error: 'Unauthorized' });
    }
    if (!('servedBy' in served)) return refuse(res, served);
    const maxTokens = typeof body['max_tokens'] === 'number' ? body['max_tokens'] : undefined;
    // a request past the context is refused before it is scheduled: the script is not consumed
    if (opts.contextLength !== undefined && overflows(engine, opts.contextLength, promptIds.length, maxTokens)) {
      rec.servedBy = null;
      return refuse(res, overflowRefusal(engine, wording, opts.contextLength, promptIds.length, maxTokens));
    }
    const item = queue.shift() ?? (opts.fallback ? opts.fallback(rec) : { kind: 'status' as const, status: 500, message: 'no scripted reply' });
    if (item.kind !== undefined && item.kind !== 'reply') rec.servedBy = null;
    switch (item.kind) {
      case 'status':
        return send(res, item.status, errorBody(item.status, item.message ?? `scripted ${item.status}`, item.status >= 500 ? 'InternalServerError' : 'BadRequestError'), item.retryAfterS !== undefined ? { 'retry-after': String(item.retryAfterS) } : {});
      case 'context_overflow':
        return refuse(res, overflowRefusal(engine, wording, item.limit, item.input, item.maxTokens ?? maxTokens));
      case 'hang':
        return; // never answers; the client gives up or the server closes
      case 'reset':
        socket.destroy();
        return;
      case 'not_json':
        return send(res, 200, 'upstream proxy error page');
      default:
        break;
    }
    const r = item;
    const text = completionText(r);
    const { ids, pieces } = standinTokenize(text);
    const logprobs = ids.map((id, i) => standinLogprob(id, i));
    const finish = r.finishReason ?? ((r.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
    const wantIds = body['return_token_ids'] === true && (opts.returnTokenIds ?? true);
    const asIds = body['return_tokens_as_token_ids'] === true;
    const logprobsContent =
      body['logprobs'] === true
        ? {
            content: ids.map((id, i) => ({
              token: asIds ? `token_id:${id}` : (pieces[i] ?? ''),
              logprob: logprobs[i],
              bytes: [...Buffer.from(pieces[i] ?? '')],
              top_logprobs: [],
            })),
          }
        : null;
    const toolCalls = (r.toolCalls ?? []).map((c, i) => ({
      id: `call_${seq}_${i}`,
      ...(engine === 'sglang' ? { index: i } : {}),
      type: 'function',
      function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
    }));
    const message: Record<string, unknown> = { role: 'assistant', content: r.content !== undefined && r.content !== '' ? r.content : null };
    if (engine === 'vllm') {
      message['reasoning'] = r.reasoning ?? null;
      if (toolCalls.length > 0) message['tool_calls'] = toolCalls;
    } else {
      message['reasoning_content'] = r.reasoning ?? null;
      message['tool_calls'] = toolCalls.length > 0 ? toolCalls : null;
    }
    const choice: Record<string, unknown> = { index: 0, message, logprobs: logprobsContent, finish_reason: finish };
    if (engine === 'vllm') choice['stop_reason'] = null;
    else choice['matched_stop'] = null;
    if (wantIds) choice['token_ids'] = ids;
    if (engine === 'sglang' && (body['return_prompt_token_ids'] === true || wantIds)) choice['prompt_token_ids'] = promptIds;
    if (engine === 'sglang' && body['return_meta_info'] === true && (opts.returnMetaInfo ?? true)) {
      // SGLang's meta_info: (logprob, token_id, text) per completion token when log-probs were asked for
      choice['meta_info'] = {
        id: `chatcmpl-${seq + 1}`,
        finish_reason: { type: finish === 'tool_calls' ? 'stop' : finish },
        prompt_tokens: promptIds.length,
        completion_tokens: ids.length,
        cached_tokens: 0,
        ...(body['logprobs'] === true ? { output_token_logprobs: ids.map((id, i) => [logprobs[i], id, pieces[i] ?? null]) } : {}),
      };
    }
    const response: Record<string, unknown> = {
      id: `chatcmpl-${++seq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [choice],
      usage: { prompt_tokens: promptIds.length, completion_tokens: ids.length, total_tokens: promptIds.length + ids.length },
    };
    if (engine === 'vllm') {
      response['prompt_logprobs'] = null;
      if (wantIds) response['prompt_token_ids'] = promptIds;
    }
    double.sent.push({ request: index, text, tokenIds: ids, logprobs, promptTokenIds: promptIds, finishReason: finish, servedBy: rec.servedBy ?? baseModel });
    double.computeMs += performance.now() - t0;
    if (r.delayMs) {
      const t = setTimeout(() => {
        timers.delete(t);
        if (!res.destroyed) send(res, 200, response);
      }, r.delayMs);
      timers.add(t);
    } else send(res, 200, response);
  };

  const weights = (p: string, body: Record<string, unknown>, res: http.ServerResponse) => {
    const call: WeightCall = { path: p, body, status: 200 };
    double.weightCalls.push(call);
    const answer = (status: number, b: unknown) => {
      call.status = status;
      send(res, status, b);
    };
    const name = typeof body['lora_name'] === 'string' ? body['lora_name'] : '';
    const dir = typeof body['lora_path'] === 'string' ? body['lora_path'] : '';
    // vLLM mounts its adapter routes only with VLLM_ALLOW_RUNTIME_LORA_UPDATING; SGLang answers without --enable-lora
    if (!lora && engine === 'vllm' && (p === '/v1/load_lora_adapter' || p === '/v1/unload_lora_adapter')) return answer(404, { detail: 'Not Found' });
    if (!lora && engine === 'sglang' && (p === '/load_lora_adapter' || p === '/unload_lora_adapter')) {
      return answer(400, { success: false, error_message: 'LoRA is not enabled. Please set `--enable-lora` to enable LoRA.', loaded_adapters: null });
    }
    if (p === '/v1/load_lora_adapter' && engine === 'vllm') {
      if (name === '' || dir === '') return answer(400, errorBody(400, "Both 'lora_name' and 'lora_path' must be provided.", 'InvalidUserInput'));
      if (double.adapters.has(name) && body['load_inplace'] !== true) {
        return answer(400, errorBody(400, `The lora adapter '${name}' has already been loaded. If you want to load the adapter in place, set 'load_inplace' to True.`, 'InvalidUserInput'));
      }
      if (!fs.existsSync(path.join(dir, 'adapter_config.json'))) return answer(404, errorBody(404, `Loading lora ${name} failed: No adapter found for ${dir}`, 'NotFoundError'));
      double.adapters.set(name, dir);
      return answer(200, `Success: LoRA adapter '${name}' added successfully.`);
    }
    if (p === '/v1/unload_lora_adapter' && engine === 'vllm') {
      if (name === '') return answer(400, errorBody(400, "'lora_name' needs to be provided to unload a LoRA adapter.", 'InvalidUserInput'));
      if (!double.adapters.delete(name)) return answer(404, errorBody(404, `The lora adapter '${name}' cannot be found.`, 'NotFoundError'));
      return answer(200, `Success: LoRA adapter '${name}' removed successfully.`);
    }
    if (p === '/update_weights_from_disk' && engine === 'sglang') {
      const mp = typeof body['model_path'] === 'string' ? body['model_path'] : '';
      if (mp === '' || !fs.existsSync(mp)) return answer(400, { success: false, message: `Failed to get weights iterator: ${mp} (repository not found).`, num_paused_requests: 0 });
      double.weightsPath = mp;
      return answer(200, { success: true, message: 'Succeeded to update model weights.', num_paused_requests: 0 });
    }
    if (p === '/load_lora_adapter' && engine === 'sglang') {
      if (name === '' || dir === '' || !fs.existsSync(dir)) return answer(400, { success: false, error_message: `cannot load LoRA adapter ${JSON.stringify(name)} from ${JSON.stringify(dir)}`, loaded_adapters: {} });
      double.adapters.set(name, dir);
      return answer(200, { success: true, error_message: '', loaded_adapters: Object.fromEntries(double.adapters) });
    }
    if (p === '/unload_lora_adapter' && engine === 'sglang') {
      if (!double.adapters.has(name)) return answer(400, { success: false, error_message: `LoRA with name ${name} does not exist. Loaded LoRAs: dict_keys(${JSON.stringify([...double.adapters.keys()])})`, loaded_adapters: null });
      double.adapters.delete(name);
      return answer(200, { success: true, error_message: '', loaded_adapters: Object.fromEntries(double.adapters) });
    }
    return answer(404, errorBody(404, `Not Found: ${p}`, 'NotFoundError'));
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const p = (req.url ?? '').split('?')[0] ?? '';
      if (req.method === 'GET' && p === '/v1/models') {
        const data = [{ id: baseModel, object: 'model', root: baseModel, parent: null }, ...[...double.adapters].map(([id, root]) => ({ id, object: 'model', root, parent: baseModel }))];
        return send(res, 200, { object: 'list', data });
      }
      if (req.method === 'GET' && p === '/health') return send(res, 200, '');
      if (req.method !== 'POST') return send(res, 405, errorBody(405, 'Method Not Allowed', 'MethodNotAllowed'));
      let body: Record<string, unknown>;
      try {
        const v = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
        body = v as Record<string, unknown>;
      } catch (e) {
        return send(res, 400, errorBody(400, `invalid JSON body: ${(e as Error).message}`, 'BadRequestError'));
      }
      if (p === '/v1/chat/completions') return chat(body, req, res, req.socket);
      return weights(p, body, res);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  double.origin = `http://127.0.0.1:${port}`;
  double.url = `${double.origin}/v1`;
  return double;
}
