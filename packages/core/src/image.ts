// Facts of screenshot bytes shared by the screenshot store, the prompt renderer and SFT export:
// the content address (sha256) and the size and type read from the PNG or JPEG header.
import { createHash } from 'node:crypto';

/** Width, height and type from a JPEG's start-of-frame marker or a PNG's IHDR; 0×0 (and `unreadableMime`) when unreadable (pure). */
export function imageSize(b: Uint8Array, unreadableMime = 'image/jpeg'): { width: number; height: number; mime: string } {
  if (b.length > 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    return { width: dv.getUint32(16), height: dv.getUint32(20), mime: 'image/png' };
  }
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return { width: 0, height: 0, mime: unreadableMime };
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) {
      i++;
      continue;
    }
    const marker = b[i + 1] ?? 0;
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0xff) {
      i += marker === 0xff ? 1 : 2;
      continue;
    }
    const len = ((b[i + 2] ?? 0) << 8) | (b[i + 3] ?? 0);
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC)
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = ((b[i + 5] ?? 0) << 8) | (b[i + 6] ?? 0);
      const width = ((b[i + 7] ?? 0) << 8) | (b[i + 8] ?? 0);
      return { width, height, mime: 'image/jpeg' };
    }
    if (marker === 0xda || len < 2) break; // start of scan: no frame header before it
    i += 2 + len;
  }
  return { width: 0, height: 0, mime: unreadableMime };
}

/** Lowercase hex sha256 of `b`. */
export function sha256Hex(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}
