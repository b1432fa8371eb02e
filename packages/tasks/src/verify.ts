// The cart spec of the bundled shop's tasks: what its `/__owrl/verify` endpoint checks
// (SiteStateCheck spec_json). Answer matching (AnswerMatch) belongs to @owrl/judge-core.
import { TaskError, TaskErrorCode } from './errors.js';

export interface VerifyResult {
  ok: boolean;
  detail: string;
}

/** Expected cart of a SiteStateCheck: product id → quantity; `exact` forbids any other line. */
export interface CartSpec {
  cart: Record<string, number>;
  exact: boolean;
}

/** Serialises a cart spec as the task's `spec_json`. */
export function cartSpecJson(spec: CartSpec): string {
  return JSON.stringify({ cart: spec.cart, exact: spec.exact });
}

/**
 * Parses `spec_json` of the shop's site-state check.
 * @throws TaskError TASK_BAD_SPEC naming what is wrong (not JSON, no `cart` object, a quantity
 *   that is not a positive integer, `exact` not a boolean).
 */
export function parseCartSpec(json: string): CartSpec {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (cause) {
    throw new TaskError(TaskErrorCode.BadSpec, `spec ${JSON.stringify(json)} is not JSON`, { cause, field: 'spec_json' });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new TaskError(TaskErrorCode.BadSpec, 'spec must be a JSON object like {"cart":{"<id>":1},"exact":true}', { field: 'spec_json' });
  }
  const obj = raw as Record<string, unknown>;
  const cartRaw = obj['cart'];
  if (typeof cartRaw !== 'object' || cartRaw === null || Array.isArray(cartRaw)) {
    throw new TaskError(TaskErrorCode.BadSpec, 'spec.cart must be an object of product id → quantity', { field: 'spec_json' });
  }
  const cart: Record<string, number> = {};
  for (const [id, qty] of Object.entries(cartRaw as Record<string, unknown>)) {
    if (typeof qty !== 'number' || !Number.isInteger(qty) || qty < 1) {
      throw new TaskError(TaskErrorCode.BadSpec, `spec.cart[${JSON.stringify(id)}] = ${JSON.stringify(qty)} must be a positive integer`, {
        field: 'spec_json',
      });
    }
    cart[id] = qty;
  }
  const exact = obj['exact'] ?? false;
  if (typeof exact !== 'boolean') {
    throw new TaskError(TaskErrorCode.BadSpec, `spec.exact = ${JSON.stringify(exact)} must be a boolean`, { field: 'spec_json' });
  }
  return { cart, exact };
}

/**
 * Checks a session's cart against a spec: every listed product has exactly the listed quantity;
 * with `exact`, no other product is in the cart either.
 */
export function checkCart(cart: ReadonlyMap<string, number>, spec: CartSpec): VerifyResult {
  const problems: string[] = [];
  for (const [id, want] of Object.entries(spec.cart)) {
    const have = cart.get(id) ?? 0;
    if (have !== want) problems.push(`${id}: want ${want}, have ${have}`);
  }
  if (spec.exact) {
    for (const [id, have] of cart) {
      if (have > 0 && !(id in spec.cart)) problems.push(`${id}: want 0, have ${have}`);
    }
  }
  if (problems.length > 0) return { ok: false, detail: `cart differs: ${problems.join('; ')}` };
  const lines = [...cart].filter(([, q]) => q > 0).map(([id, q]) => `${id}×${q}`);
  return { ok: true, detail: `cart matches${lines.length > 0 ? `: ${lines.join(', ')}` : ' (empty)'}` };
}
