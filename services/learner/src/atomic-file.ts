// Atomic file replacement (temp file + rename): a reader, or a learner restarted after a crash,
// sees the old content or the new one, never a half-written file.
import fs from 'node:fs';

export function writeAtomic(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}
