// An update request stored on disk before the learner checkpoints it (written ahead): the
// contract's TrainChunks, length-prefixed (4-byte big-endian length, then the chunk), the header
// first, then one chunk per group; written to a temporary file, fsynced, then renamed, so a
// reader sees the whole request or none. A remote trainer's learner and the in-process trainer's
// update thread both keep their requests this way.
import fs from 'node:fs';
import { fromBinary, make, toBinary, TrainChunkSchema, type TrainGroup, type TrainHeader } from '@owrl/proto';

/** Writes the request to `file` atomically and durably. */
export function writeStoredRequest(file: string, header: TrainHeader, groups: readonly TrainGroup[]): void {
  const parts: Buffer[] = [];
  const add = (bytes: Uint8Array) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(bytes.length);
    parts.push(len, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  };
  add(toBinary(TrainChunkSchema, make(TrainChunkSchema, { kind: { case: 'header', value: header } })));
  for (const g of groups) add(toBinary(TrainChunkSchema, make(TrainChunkSchema, { kind: { case: 'group', value: g } })));
  const fd = fs.openSync(`${file}.tmp`, 'w');
  try {
    fs.writeSync(fd, Buffer.concat(parts));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(`${file}.tmp`, file);
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
