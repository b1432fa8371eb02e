// An update request stored on disk before the learner checkpoints it (written ahead): the
// contract's TrainChunks, length-prefixed (4-byte big-endian length, then the chunk), the header
// first, then one chunk per group; written to a temporary file, fsynced, then renamed, so a
// reader sees the whole request or none. A remote trainer's learner and the in-process trainer's
// update thread both keep their requests this way.
import fs from 'node:fs';
import { encodeGroupChunk, fromBinary, make, toBinary, TrainChunkSchema, type TrainGroup, type TrainHeader } from '@owrl/proto';

/**
 * The stored form of a request, as the buffers to write in order. A step trace still encoded (a
 * lazily decoded one) is written from its bytes, not decoded and encoded again.
 */
function storedParts(header: TrainHeader, groups: readonly TrainGroup[]): Uint8Array[] {
  const parts: Uint8Array[] = [];
  const add = (bytes: Uint8Array) => {
    const len = new Uint8Array(4);
    new DataView(len.buffer).setUint32(0, bytes.length);
    parts.push(len, bytes);
  };
  add(toBinary(TrainChunkSchema, make(TrainChunkSchema, { kind: { case: 'header', value: header } })));
  for (const g of groups) add(encodeGroupChunk(g));
  return parts;
}

/** Writes the request to `file` atomically and durably. */
export function writeStoredRequest(file: string, header: TrainHeader, groups: readonly TrainGroup[]): void {
  const parts = storedParts(header, groups);
  const fd = fs.openSync(`${file}.tmp`, 'w');
  try {
    for (const part of parts) for (let at = 0; at < part.length; ) at += fs.writeSync(fd, part, at);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(`${file}.tmp`, file);
}

/**
 * writeStoredRequest with the writes, the fsync and the rename in the thread pool: the caller's
 * thread only encodes (an update's worth of traces is copied, not re-encoded).
 */
export async function writeStoredRequestAsync(file: string, header: TrainHeader, groups: readonly TrainGroup[]): Promise<void> {
  const parts = storedParts(header, groups);
  const fh = await fs.promises.open(`${file}.tmp`, 'w');
  try {
    await fs.promises.writeFile(fh, parts);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.promises.rename(`${file}.tmp`, file);
}

/**
 * The request stored in `file`, or undefined when there is none.
 * @throws Error naming the file when it is truncated, undecodable or holds no header.
 */
export function readStoredRequest(file: string): { header: TrainHeader; groups: TrainGroup[] } | undefined {
  if (!fs.existsSync(file)) return undefined;
  const buf = fs.readFileSync(file);
  let header: TrainHeader | undefined;
  const groups: TrainGroup[] = [];
  for (let off = 0; off < buf.length; ) {
    if (off + 4 > buf.length) throw new Error(`${file}: truncated at byte ${off} (a length prefix is cut off)`);
    const n = buf.readUInt32BE(off);
    if (off + 4 + n > buf.length) throw new Error(`${file}: truncated at byte ${off} (a chunk of ${n} bytes is cut off)`);
    let c;
    try {
      c = fromBinary(TrainChunkSchema, new Uint8Array(buf.buffer, buf.byteOffset + off + 4, n));
    } catch (e) {
      throw new Error(`${file}: the chunk at byte ${off} is not a TrainChunk: ${(e as Error).message}`, { cause: e });
    }
    off += 4 + n;
    if (c.kind.case === 'header') header = c.kind.value;
    else if (c.kind.case === 'group') groups.push(c.kind.value);
  }
  if (!header) throw new Error(`${file} holds no update header`);
  return { header, groups };
}
