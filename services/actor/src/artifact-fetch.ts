// Fetches a policy artifact by URI (http(s) or file://) and verifies its sha256 before use.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { OwrlError } from '@owrl/core';

export async function fetchArtifact(uri: string, sha256: string, timeoutMs = 60_000): Promise<Uint8Array> {
  let bytes: Uint8Array;
  const u = new URL(uri);
  if (u.protocol === 'file:') {
    bytes = new Uint8Array(await fs.readFile(fileURLToPath(u)));
  } else if (u.protocol === 'http:' || u.protocol === 'https:') {
    const res = await fetch(u, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new OwrlError('ARTIFACT_FETCH_FAILED', `GET ${uri} answered HTTP ${res.status}`);
    bytes = new Uint8Array(await res.arrayBuffer());
  } else {
    throw new OwrlError('ARTIFACT_BAD_URI', `artifact URI ${JSON.stringify(uri)} has unsupported scheme ${u.protocol} (http, https, file)`);
  }
  const got = createHash('sha256').update(bytes).digest('hex');
  if (got !== sha256.toLowerCase()) {
    throw new OwrlError('ARTIFACT_CHECKSUM_MISMATCH', `artifact ${uri}: sha256 ${got} does not match the pointer's ${sha256}`);
  }
  return bytes;
}
