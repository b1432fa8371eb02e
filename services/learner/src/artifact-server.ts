// Serves policy artifacts over HTTP (with range requests) so actors can fetch new weights; the
// KV pointer carries the URI and sha256. Artifacts are files in one directory, named by version;
// only the latest `keep` versions stay on disk (an actor that is still fetching the previous one
// finds it), so a long run does not fill the disk. Also serves the screenshots an update
// references, by sha256 (`GET /shots/<sha256>`, docs/trainer.md): those the learner keeps for
// its updates (shot-keeper.ts), else what the screenshot store still has; 404 when neither.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export interface StoredArtifact {
  version: number;
  uri: string;
  sha256: string;
  bytes: number;
  file: string;
}

/** Where `GET /shots/<sha256>` finds pictures: a kept file first, then the store. */
export interface ShotLookup {
  find(sha256: string): { file: string; mime: string } | undefined;
  get?(sha256: string): Promise<{ bytes: Uint8Array; mime: string } | null>;
}

export class ArtifactServer {
  private server: http.Server | null = null;
  private baseUrl = '';
  private shots: ShotLookup | null = null;

  constructor(
    private readonly dir: string,
    private readonly opts: { port: number; host: string; advertiseHost?: string; /** Versions kept on disk; default 5, 0 = all. */ keep?: number },
  ) {
    fs.mkdirSync(dir, { recursive: true });
    const keep = opts.keep ?? 5;
    if (!Number.isInteger(keep) || keep < 0) throw new Error(`artifact keep is ${keep}; expected an integer >= 0 (0 keeps every version)`);
  }

  async start(): Promise<string> {
    const server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host, () => resolve());
    });
    const addr = server.address();
    const port = addr !== null && typeof addr === 'object' ? addr.port : this.opts.port;
    const host = this.opts.advertiseHost ?? (this.opts.host === '0.0.0.0' ? '127.0.0.1' : this.opts.host);
    this.baseUrl = `http://${host}:${port}`;
    this.server = server;
    return this.baseUrl;
  }

  /** Serves `GET /shots/<sha256>` from `lookup`. */
  serveShots(lookup: ShotLookup): void {
    this.shots = lookup;
  }

  /** The base URL of the screenshots (`<base>/shots/`; a trainer appends a sha256). */
  get shotsUrl(): string {
    return `${this.baseUrl}/shots/`;
  }

  /** Writes an artifact atomically and returns where it is served. */
  put(version: number, bytes: Uint8Array, ext = 'onnx'): StoredArtifact {
    const name = `policy-v${version}.${ext}`;
    const file = path.join(this.dir, name);
    const tmp = `${file}.tmp-${process.pid}`;
    fs.writeFileSync(tmp, bytes);
    fs.renameSync(tmp, file);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    this.prune(version);
    return { version, uri: `${this.baseUrl}/artifacts/${name}`, sha256, bytes: bytes.length, file };
  }

  /** Removes artifacts of versions at or below `latest - keep` (any extension); returns their names. */
  prune(latest: number): string[] {
    const keep = this.opts.keep ?? 5;
    if (keep === 0) return [];
    const removed: string[] = [];
    for (const name of fs.readdirSync(this.dir)) {
      const m = /^policy-v(\d+)\./.exec(name);
      if (!m || Number(m[1]) > latest - keep || name.includes('.tmp-')) continue;
      fs.rmSync(path.join(this.dir, name), { force: true });
      removed.push(name);
    }
    return removed;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const shot = /^\/shots\/([0-9a-f]{64})$/.exec(req.url ?? '');
    if (shot && (req.method === 'GET' || req.method === 'HEAD')) {
      void this.serveShot(shot[1] as string, req, res);
      return;
    }
    const m = /^\/artifacts\/([A-Za-z0-9._-]+)$/.exec(req.url ?? '');
    if (!m || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404).end();
      return;
    }
    const file = path.join(this.dir, m[1] as string);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      res.writeHead(404).end();
      return;
    }
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    let start = 0;
    let end = stat.size - 1;
    if (range) {
      if (range[1] === '' && range[2] !== '') {
        start = Math.max(0, stat.size - Number(range[2]));
      } else {
        start = Number(range[1]);
        if (range[2] !== '') end = Math.min(end, Number(range[2]));
      }
      if (start > end || start >= stat.size) {
        res.writeHead(416, { 'content-range': `bytes */${stat.size}` }).end();
        return;
      }
    }
    const headers = {
      'content-type': 'application/octet-stream',
      'content-length': String(end - start + 1),
      'accept-ranges': 'bytes',
      ...(range ? { 'content-range': `bytes ${start}-${end}/${stat.size}` } : {}),
    };
    res.writeHead(range ? 206 : 200, headers);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    fs.createReadStream(file, { start, end }).pipe(res);
  }

  private async serveShot(sha: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const kept = this.shots?.find(sha);
    let bytes: Uint8Array | undefined;
    let mime = kept?.mime ?? '';
    try {
      if (kept) bytes = fs.readFileSync(kept.file);
      else {
        const img = await this.shots?.get?.(sha);
        if (img) {
          bytes = img.bytes;
          mime = img.mime;
        }
      }
    } catch {
      bytes = undefined;
    }
    if (!bytes) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`screenshot ${sha} is not kept\n`);
      return;
    }
    res.writeHead(200, { 'content-type': mime, 'content-length': String(bytes.length) });
    res.end(req.method === 'HEAD' ? undefined : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  async close(): Promise<void> {
    const s = this.server;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
}
