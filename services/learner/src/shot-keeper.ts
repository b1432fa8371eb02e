// The screenshots an update references, kept by the learner until the update is committed, so a
// trainer can fetch them (GET <image_url><sha256>, served by the artifact server) however long it
// takes to get to them: the screenshot store (OWRL_SHOTS) drops its oldest pictures by age and
// bytes, and a busy fleet can fill it within an update. Before a request goes to the trainer the
// images of its token traces are copied from the store into the folder of that update
// (`<dir>/v<target>/<sha256>.<jpg|png>`); one already gone is counted as missing (its sample is
// refused by the trainer, not the update). The folder goes once the update is committed.
import fs from 'node:fs';
import path from 'node:path';
import type { TrainGroup } from '@owrl/proto';
import type { Logger } from '@owrl/core';
import { writeAtomic } from './atomic-file.js';

/** Where pictures are read from (ScreenshotStore of @owrl/bus). */
export interface ShotSource {
  get(sha256: string): Promise<{ bytes: Uint8Array; mime: string } | null>;
}

const SHA256 = /^[0-9a-f]{64}$/;
const EXT: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png' };
const MIME: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png' };
/** Pictures read from the store at once. */
const CONCURRENCY = 16;

/** The sha256 of every image the token traces of `groups` reference, once each. */
export function referencedImages(groups: readonly TrainGroup[]): string[] {
  const out = new Set<string>();
  for (const g of groups) for (const s of g.samples) for (const st of s.steps) if (st.trace?.kind.case === 'tokens') for (const i of st.trace.kind.value.images) out.add(i.sha256);
  return [...out];
}

export class ShotKeeper {
  constructor(
    private readonly dir: string,
    private readonly source: ShotSource,
    private readonly log: Logger,
  ) {
    fs.mkdirSync(dir, { recursive: true });
  }

  /**
   * Copies the pictures `shas` into the folder of update `target` (those already there are kept);
   * returns the ones the store no longer has or could not give.
   */
  async keep(target: number, shas: readonly string[]): Promise<{ kept: number; missing: string[] }> {
    const folder = path.join(this.dir, `v${target}`);
    fs.mkdirSync(folder, { recursive: true });
    const missing: string[] = [];
    let kept = 0;
    let next = 0;
    const work = async (): Promise<void> => {
      while (next < shas.length) {
        const sha = shas[next++] as string;
        if (!SHA256.test(sha)) {
          missing.push(sha);
          continue;
        }
        if (this.find(sha)) {
          kept++;
          continue;
        }
        try {
          const img = await this.source.get(sha);
          if (!img) {
            missing.push(sha);
            continue;
          }
          writeAtomic(path.join(folder, `${sha}.${EXT[img.mime] ?? 'jpg'}`), img.bytes);
          kept++;
        } catch (e) {
          this.log.warn({ err: e, sha256: sha }, 'a screenshot an update references could not be read from the store');
          missing.push(sha);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, shas.length) }, work));
    return { kept, missing };
  }

  /** The kept picture `sha` (in any update's folder), or undefined. */
  find(sha: string): { file: string; mime: string } | undefined {
    if (!SHA256.test(sha)) return undefined;
    for (const v of this.folders()) {
      for (const ext of ['jpg', 'png']) {
        const file = path.join(this.dir, v, `${sha}.${ext}`);
        if (fs.existsSync(file)) return { file, mime: MIME[ext] as string };
      }
    }
    return undefined;
  }

  /** Drops the pictures of the updates up to `target` (committed: the trainer has answered them). */
  release(target: number): void {
    for (const v of this.folders()) {
      if (Number(v.slice(1)) <= target) fs.rmSync(path.join(this.dir, v), { recursive: true, force: true });
    }
  }

  private folders(): string[] {
    if (!fs.existsSync(this.dir)) return [];
    return fs
      .readdirSync(this.dir)
      .filter((f) => /^v\d+$/.test(f))
      .sort((a, b) => Number(b.slice(1)) - Number(a.slice(1)));
  }
}
