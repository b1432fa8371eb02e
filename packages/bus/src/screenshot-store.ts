// The screenshot store (docs/design.md §4): per-step screenshots kept apart from the trajectory messages
// that mention them, content-addressed by the sha256 of their bytes. Each picture is one message
// on `owrl.shots.<sha256>` of the OWRL_SHOTS stream (one message per subject, so a picture stored
// twice is kept once; retention by age and bytes, oldest first). Trajectories carry an ImageRef;
// readers (learner, console) fetch the bytes by key and get them verified against it.
import { JetStreamApiError } from '@nats-io/jetstream';
import { imageSize, sha256Hex } from '@owrl/core';
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

export { sha256Hex };

/** Width, height and type of a PNG or JPEG; application/octet-stream when unreadable (pure). */
export function imageInfo(b: Uint8Array): { width: number; height: number; mime: string } {
  return imageSize(b, 'application/octet-stream');
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
