// A stand-in for an OpenAI-compatible chat completions server (vLLM, SGLang, a hosted API), judge
// edition: a real HTTP server on a free loopback port whose replies a test scripts per request —
// log-probabilities in the OpenAI / vLLM shape, plain answers, malformed bodies, error statuses,
// hung requests and dropped connections. It records every request (path, headers, JSON body).
// (Small on purpose; it can be folded into a shared testkit chat-completions double later.)
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export type Reply =
  | { status?: number; json: unknown; headers?: Record<string, string> }
  | { status?: number; text: string; headers?: Record<string, string> }
  /** Never answers (until the client gives up or the server closes). */
  | { hang: true }
  /** Closes the connection without an answer. */
  | { drop: true };

export interface StandIn {
  url: string;
  requests: RecordedRequest[];
  /** Requests received and not yet answered. */
  readonly pending: number;
  /** Replaces the script (request index from 0, recorded request) → reply. */
  script(f: (i: number, req: RecordedRequest) => Reply | Promise<Reply>): void;
  close(): Promise<void>;
}

/** A completion whose first position has these (token, logprob) candidates, the first one sampled. */
export function logprobsReply(candidates: Array<[string, number]>, promptTokens = 321): unknown {
  const [first] = candidates;
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'judge',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: first?.[0] ?? '' },
        logprobs: {
          content: [
            {
              token: first?.[0] ?? '',
              logprob: first?.[1] ?? -9999,
              bytes: null,
              top_logprobs: candidates.map(([token, logprob]) => ({ token, logprob, bytes: [...Buffer.from(token)] })),
            },
          ],
        },
        finish_reason: 'length',
      },
    ],
    usage: { prompt_tokens: promptTokens, completion_tokens: 1, total_tokens: promptTokens + 1 },
  };
}

/** A completion with a plain answer and no log-probabilities. */
export function answerReply(content: string | null): unknown {
  return { id: 'chatcmpl-2', object: 'chat.completion', model: 'judge', choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' }] };
}

export async function startStandIn(): Promise<StandIn> {
  let f: (i: number, req: RecordedRequest) => Reply | Promise<Reply> = () => ({ json: answerReply('yes') });
  const requests: RecordedRequest[] = [];
  let pending = 0;
  const hung = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const rec: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>) };
      const i = requests.length;
      requests.push(rec);
      pending++;
      res.on('close', () => {
        pending--;
        hung.delete(res);
      });
      void Promise.resolve(f(i, rec)).then((reply) => {
        if ('hang' in reply) {
          hung.add(res);
          return;
        }
        if ('drop' in reply) {
          req.socket.destroy();
          return;
        }
        const payload = 'json' in reply ? JSON.stringify(reply.json) : reply.text;
        res.writeHead(reply.status ?? 200, { 'content-type': 'json' in reply ? 'application/json' : 'text/plain', ...reply.headers });
        res.end(payload);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get pending() {
      return pending;
    },
    script(g) {
      f = g;
    },
    close() {
      for (const res of hung) res.socket?.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
