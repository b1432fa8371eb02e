// Small node:http helpers: cookies, URL paths, bounded form bodies, and typed responses.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SESSION_PARAM } from '@owrl/tasks';
import { SitesError, SitesErrorCode } from './errors.js';
import type { Html } from './html.js';

const MAX_BODY_BYTES = 16 * 1024;

export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (header === undefined) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    try {
      out.set(name, decodeURIComponent(value));
    } catch {
      // A cookie we did not write; ignore it.
    }
  }
  return out;
}

/** `decodeURIComponent`, or `s` unchanged where it is not valid percent-encoding. */
export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Path and query of the request without the session parameter (where pages link back and forms return to). */
export function hereOf(url: URL): string {
  const q = new URLSearchParams(url.search);
  q.delete(SESSION_PARAM);
  const s = q.toString();
  return s === '' ? url.pathname : `${url.pathname}?${s}`;
}

/** Reads an application/x-www-form-urlencoded body (at most 16 KiB). */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY_BYTES) throw new SitesError(SitesErrorCode.BadRequest, `request body exceeds ${MAX_BODY_BYTES} bytes`, { status: 413 });
    chunks.push(b);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function baseHeaders(res: ServerResponse, status: number, type: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  // Pages depend on session state: never cache them (and keep Chromium's back/forward cache out).
  res.setHeader('Cache-Control', 'no-store');
}

export function sendHtml(res: ServerResponse, status: number, page: Html): void {
  baseHeaders(res, status, 'text/html; charset=utf-8');
  res.end(page.value);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  baseHeaders(res, status, 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}

export function sendText(res: ServerResponse, status: number, text: string, type = 'text/plain; charset=utf-8'): void {
  baseHeaders(res, status, type);
  res.end(text);
}

export function redirect(res: ServerResponse, status: 301 | 302 | 303, location: string): void {
  res.statusCode = status;
  res.setHeader('Location', location);
  res.setHeader('Cache-Control', 'no-store');
  res.end();
}
