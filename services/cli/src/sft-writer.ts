// Shared parts of `owrl sft export`: the filters, the summary, and the writer of records (a file or
// stdout) with images as files next to it.
import fs from 'node:fs';
import path from 'node:path';
import type { ImageMode, SftRecord, SftRenderOptions } from '@owrl/demos';
import { DEFAULT_RENDER_OPTIONS, imageSize } from '@owrl/llm-policy';
import type { Task } from '@owrl/proto';
import { UsageError } from './usage.js';

export interface SftFilters {
  suites: string[];
  families: string[];
  difficulties: number[];
  verdictSource: 'verifier' | 'model' | 'any';
}

export function keepTask(t: Pick<Task, 'suite' | 'family' | 'difficulty'>, f: SftFilters): boolean {
  return (
    (f.suites.length === 0 || f.suites.includes(t.suite)) &&
    (f.families.length === 0 || f.families.includes(t.family)) &&
    (f.difficulties.length === 0 || f.difficulties.includes(t.difficulty))
  );
}

export interface ExportSummary {
  tasks: number;
  trajectories: number;
  records: number;
  failed: string[];
}

/** Writes records to a file (or stdout) and images next to it. */
export class SftWriter {
  readonly fd: number | undefined;
  private readonly imageDir: string;
  private readonly images: ImageMode;
  written = 0;

  constructor(out: string, images: ImageMode) {
    if (images === 'files' && out === '') throw new UsageError('--images files needs --out FILE (images go to FILE.images/)');
    this.fd = out === '' ? undefined : fs.openSync(out, 'w');
    this.images = images;
    this.imageDir = out === '' ? '' : `${out}.images`;
  }

  saveImage = (bytes: Uint8Array, sha: string): string => {
    fs.mkdirSync(this.imageDir, { recursive: true });
    const ext = imageSize(bytes).mime === 'image/png' ? 'png' : 'jpg';
    const file = path.join(this.imageDir, `${sha}.${ext}`);
    if (!fs.existsSync(file)) fs.writeFileSync(file, bytes);
    return `${path.basename(this.imageDir)}/${sha}.${ext}`;
  };

  renderOptions(screenshots: number): SftRenderOptions {
    return {
      render: { ...DEFAULT_RENDER_OPTIONS, model: 'policy', screenshots: this.images === 'none' ? 0 : screenshots },
      images: this.images,
      saveImage: this.saveImage,
    };
  }

  write(recs: readonly SftRecord[]): void {
    for (const r of recs) {
      const line = JSON.stringify(r) + '\n';
      if (this.fd !== undefined) fs.writeSync(this.fd, line);
      else process.stdout.write(line);
      this.written++;
    }
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
  }
}

