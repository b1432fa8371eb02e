// The screenshot store (DESIGN §9): per-step screenshots kept apart from the trajectory messages
// that mention them, content-addressed by the sha256 of their bytes. Each picture is one message
// on `owrl.shots.<sha256>` of the OWRL_SHOTS stream (one message per subject, so a picture stored
// twice is kept once; retention by age and bytes, oldest first). Trajectories carry an ImageRef;
// readers (learner, console) fetch the bytes by key and get them verified against it.
import { createHash } from 'node:crypto';
import { JetStreamApiError } from '@nats-io/jetstream';
import { create, ImageRefSchema, type ImageRef } from '@owrl/proto';
import type { BusContext } from './context.js';
import { BusError, BusErrorCode } from './errors.js';
import { publishBytes } from './publish.js';
import { STREAM_SHOTS, SUBJECT_SHOTS } from './topology.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;
const NO_MESSAGE = 10037;

export interface StoredImage {
  bytes: Uint8Array;
  mime: string;
}

/** Lowercase hex sha256 of `b`. */
export function sha256Hex(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

/** Width, height and type of a PNG (IHDR) or JPEG (start-of-frame); 0×0 when unreadable (pure). */
export function imageInfo(b: Uint8Array): { width: number; height: number; mime: string } {
  if (b.length > 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    return { width: dv.getUint32(16), height: dv.getUint32(20), mime: 'image/png' };
  }
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return { width: 0, height: 0, mime: 'application/octet-stream' };
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
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: ((b[i + 7] ?? 0) << 8) | (b[i + 8] ?? 0), height: ((b[i + 5] ?? 0) << 8) | (b[i + 6] ?? 0), mime: 'image/jpeg' };
    }
    if (marker === 0xda || len < 2) break;
    i += 2 + len;
  }
  return { width: 0, height: 0, mime: 'image/jpeg' };
}

/** `owrl.shots.<sha256>`. @throws BusError BUS_INVALID_ARGUMENT when `sha256` is not 64 lowercase hex digits. */
export function shotSubject(sha256: string): string {
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
    throw new BusError(BusErrorCode.InvalidArgument, `screenshot key ${JSON.stringify(sha256)} is not a sha256 (64 lowercase hex digits)`);
  }
  return `${SUBJECT_SHOTS}.${sha256}`;
}

/** Content-addressed screenshots on OWRL_SHOTS (created by ensureTopology). */
export class ScreenshotStore {
  constructor(private readonly ctx: BusContext) {}

  /**
   * Stores a JPEG or PNG and returns its reference. Storing the same bytes again keeps one copy
   * (and renews its age).
   * @throws BusError BUS_INVALID_ARGUMENT (empty or not an image), BUS_PAYLOAD_TOO_LARGE, and the publish errors.
   */
  async put(bytes: Uint8Array): Promise<ImageRef> {
    const info = imageInfo(bytes);
    if (bytes.length === 0 || info.mime === 'application/octet-stream') {
      throw new BusError(BusErrorCode.InvalidArgument, `screenshot of ${bytes.length} bytes is not a JPEG or PNG`);
    }
    const sha256 = sha256Hex(bytes);
    await publishBytes(this.ctx, shotSubject(sha256), bytes, { msgId: `shot-${sha256}`, headers: { 'Content-Type': info.mime } });
    return create(ImageRefSchema, { sha256, mime: info.mime, width: info.width, height: info.height, bytes: BigInt(bytes.length) });
  }

  /**
   * The picture stored under `sha256`, or null when it was never stored or has expired.
   * @throws BusError BUS_INVALID_ARGUMENT (bad key), BUS_API_FAILED, BUS_UNDECODABLE when the bytes do not hash to the key.
   */
  async get(sha256: string): Promise<StoredImage | null> {
    const subject = shotSubject(sha256);
    let m;
    try {
      m = await this.ctx.jsm.streams.getMessage(STREAM_SHOTS, { last_by_subj: subject });
    } catch (e) {
      if (e instanceof JetStreamApiError && e.code === NO_MESSAGE) return null;
      throw new BusError(BusErrorCode.ApiFailed, `reading screenshot ${sha256}: ${(e as Error).message}`, { cause: e });
    }
    if (m === null) return null;
    const bytes = m.data;
    if (sha256Hex(bytes) !== sha256) {
      throw new BusError(BusErrorCode.Undecodable, `screenshot ${sha256}: stored bytes do not hash to their key`);
    }
    return { bytes, mime: m.header?.get('Content-Type') || imageInfo(bytes).mime };
  }
}
