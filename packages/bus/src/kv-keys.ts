// Reversible encoding of arbitrary strings (hosts with ports, IPv6 literals, actor ids) into valid
// KV keys that stay readable: letters, digits, '-' and inner single dots are kept; every other
// UTF-8 byte becomes `_xx` (lower-case hex), '_' included. `example.com:8080` → `example.com_3a8080`.
import { BusError, BusErrorCode } from './errors.js';

const KEEP = /[A-Za-z0-9-]/;
const MAX_ENCODED = 1024;

function hex(b: number): string {
  return `_${b.toString(16).padStart(2, '0')}`;
}

/** @throws BusError BUS_INVALID_ARGUMENT for an empty string or one too long to be a key. */
export function encodeKvKey(field: string, raw: string): string {
  if (typeof raw !== 'string' || raw.length === 0) {
    throw new BusError(BusErrorCode.InvalidArgument, `${field} ${JSON.stringify(raw)} must be a non-empty string`);
  }
  let out = '';
  const chars = [...raw];
  chars.forEach((ch, i) => {
    if (KEEP.test(ch)) out += ch;
    else if (ch === '.' && i > 0 && i < chars.length - 1 && chars[i - 1] !== '.' && chars[i + 1] !== '.') out += ch;
    else for (const b of new TextEncoder().encode(ch)) out += hex(b);
  });
  if (out.length > MAX_ENCODED) {
    throw new BusError(BusErrorCode.InvalidArgument, `${field} ${JSON.stringify(raw.slice(0, 64))}… is too long for a KV key (${out.length} > ${MAX_ENCODED} encoded)`);
  }
  return out;
}

/** Inverse of {@link encodeKvKey}. @throws BusError BUS_INVALID_ARGUMENT on a malformed escape. */
export function decodeKvKey(key: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < key.length; ) {
    const ch = key[i] as string;
    if (ch === '_') {
      const h = key.slice(i + 1, i + 3);
      if (!/^[0-9a-f]{2}$/.test(h)) throw new BusError(BusErrorCode.InvalidArgument, `KV key ${JSON.stringify(key)} has a malformed escape at ${i}`);
      bytes.push(parseInt(h, 16));
      i += 3;
    } else {
      bytes.push(ch.charCodeAt(0));
      i += 1;
    }
  }
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
}
