// The fault control API: `POST /__owrl/faults` (a JSON rule → `{id}`), `GET /__owrl/faults`
// (rules with hit counts), `GET|DELETE /__owrl/faults/<id>` and `DELETE /__owrl/faults` (all).
// Answers are JSON; a bad rule gets 400 `{ok: false, field, detail}`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@owrl/core';
import { sendJson } from '../http-util.js';
import type { FaultRegistry } from './registry.js';
import { FaultRuleError } from './rules.js';

export const FAULT_API_PATH = '/__owrl/faults';
const MAX_RULE_BYTES = 64 * 1024;

/** Whether `pathname` belongs to the fault API (which is never faulted itself). */
export function isFaultApiPath(pathname: string): boolean {
  return pathname === FAULT_API_PATH || pathname.startsWith(`${FAULT_API_PATH}/`);
}

/** The request body as JSON, or a FaultRuleError (field `body`). */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_RULE_BYTES) throw new FaultRuleError('body', `exceeds ${MAX_RULE_BYTES} bytes`);
    chunks.push(b);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new FaultRuleError('body', 'is empty: send one JSON rule {"match": {...}, "fault": {"kind": ...}}');
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new FaultRuleError('body', `is not JSON (${(e as Error).message})`);
  }
}

function notAllowed(res: ServerResponse, method: string | undefined, path: string, allow: string): void {
  res.setHeader('Allow', allow);
  sendJson(res, 405, { ok: false, detail: `${method ?? '?'} is not allowed on ${path} (allowed: ${allow})` });
}

/** Serves one request to the fault API (`pathname` is under FAULT_API_PATH). */
export async function handleFaultApi(req: IncomingMessage, res: ServerResponse, pathname: string, registry: FaultRegistry, log: Logger): Promise<void> {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  if (pathname === FAULT_API_PATH || pathname === `${FAULT_API_PATH}/`) {
    switch (method) {
      case 'GET':
        sendJson(res, 200, { ok: true, rules: registry.list() });
        return;
      case 'POST': {
        let id: string;
        try {
          id = registry.add(await readJson(req));
        } catch (e) {
          if (!(e instanceof FaultRuleError)) throw e;
          sendJson(res, 400, { ok: false, field: e.field, detail: e.message });
          return;
        }
        log.info({ fault: registry.get(id) }, 'fault rule added');
        sendJson(res, 201, { ok: true, id });
        return;
      }
      case 'DELETE': {
        const removed = registry.clear();
        log.info({ removed }, 'fault rules cleared');
        sendJson(res, 200, { ok: true, removed });
        return;
      }
      default:
        notAllowed(res, req.method, pathname, 'GET, POST, DELETE');
        return;
    }
  }
  const id = pathname.slice(FAULT_API_PATH.length + 1);
  const rule = registry.get(id);
  if (method !== 'GET' && method !== 'DELETE') {
    notAllowed(res, req.method, pathname, 'GET, DELETE');
    return;
  }
  if (rule === undefined) {
    sendJson(res, 404, { ok: false, detail: `no fault rule ${JSON.stringify(id)} (rules: ${registry.list().map((r) => r.id).join(', ') || 'none'})` });
    return;
  }
  if (method === 'GET') {
    sendJson(res, 200, { ok: true, rule });
    return;
  }
  registry.remove(id);
  log.info({ id }, 'fault rule removed');
  sendJson(res, 200, { ok: true, id });
}
