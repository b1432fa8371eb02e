// Rewriting of the page a site sends: buffers what the site writes to a response and, when it is a
// successful HTML document whose headers are still unsent, passes it through a transform before
// it goes out. Everything else (redirects, JSON, errors) goes out unchanged.
import type { ServerResponse } from 'node:http';

type Callback = (err?: Error | null) => void;

function toBuffer(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
}

function isHtml(res: ServerResponse): boolean {
  const type = res.getHeader('content-type');
  return typeof type === 'string' && /^text\/html\b/i.test(type) && res.statusCode >= 200 && res.statusCode < 300;
}

/** Makes `res` send `transform(body)` instead of the HTML document the site writes. */
export function rewriteHtml(res: ServerResponse, transform: (doc: string) => string): void {
  const chunks: Buffer[] = [];
  const end = res.end.bind(res) as (chunk: Buffer, cb?: () => void) => ServerResponse;
  res.write = ((chunk: unknown, encoding?: unknown, cb?: unknown): boolean => {
    chunks.push(toBuffer(chunk, encoding));
    const done = (typeof encoding === 'function' ? encoding : cb) as Callback | undefined;
    if (done) process.nextTick(done);
    return true;
  }) as ServerResponse['write'];
  res.end = ((chunk?: unknown, encoding?: unknown, cb?: unknown): ServerResponse => {
    let done: (() => void) | undefined;
    if (typeof chunk === 'function') done = chunk as () => void;
    else {
      if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, encoding));
      done = (typeof encoding === 'function' ? encoding : cb) as (() => void) | undefined;
    }
    let body = Buffer.concat(chunks);
    if (isHtml(res) && !res.headersSent) {
      body = Buffer.from(transform(body.toString('utf8')), 'utf8');
      res.removeHeader('content-length');
      res.removeHeader('etag');
    }
    return end(body, done);
  }) as ServerResponse['end'];
}
