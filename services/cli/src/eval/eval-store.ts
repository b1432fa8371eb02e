// The output folder of one eval: manifest.json (what is evaluated: task file, policy, samples,
// step budget; and how many invocations ran) and results.jsonl (one line per scored rollout,
// appended and synced as it comes in), which is what lets an interrupted eval resume.
import fs from 'node:fs';
import path from 'node:path';
import { parseResults, type EvalRecord } from './eval-results.js';

/** What makes two invocations the same eval; a resume must match it field by field. */
export interface EvalIdentity {
  tasks_sha256: string;
  tasks_file: string;
  /** sha256 of the pointer artifact, or `openai:<model>@<base URL>`. */
  policy: string;
  samples: number;
  max_steps: number;
  temperature: number;
}

export interface EvalManifest extends EvalIdentity {
  eval_id: string;
  created_at: string;
  invocations: number;
}

const MATCHED: Array<keyof EvalIdentity> = ['tasks_sha256', 'policy', 'samples', 'max_steps', 'temperature'];

export class EvalStore {
  readonly manifestFile: string;
  readonly resultsFile: string;
  private fd: number | null = null;

  private constructor(
    readonly dir: string,
    readonly manifest: EvalManifest,
    readonly previous: EvalRecord[],
  ) {
    this.manifestFile = path.join(dir, 'manifest.json');
    this.resultsFile = path.join(dir, 'results.jsonl');
  }

  /**
   * Opens (or creates) the eval folder for `id`, counting this invocation. A folder holding a
   * different eval is refused with the fields that differ; a torn last line of results.jsonl (a
   * kill mid-write) is cut off.
   */
  static open(dir: string, evalId: string, id: EvalIdentity): EvalStore {
    fs.mkdirSync(dir, { recursive: true });
    const mf = path.join(dir, 'manifest.json');
    let manifest: EvalManifest;
    if (fs.existsSync(mf)) {
      let old: EvalManifest;
      try {
        old = JSON.parse(fs.readFileSync(mf, 'utf8')) as EvalManifest;
      } catch (e) {
        throw new Error(`${mf} is not a readable eval manifest: ${(e as Error).message}`, { cause: e });
      }
      const diff = MATCHED.filter((k) => old[k] !== id[k]).map((k) => `${k}: ${JSON.stringify(old[k])} there, ${JSON.stringify(id[k])} now`);
      if (diff.length > 0) throw new Error(`${dir} holds a different eval (${diff.join('; ')}); give another --out to start a new one`);
      manifest = { ...old, tasks_file: id.tasks_file, invocations: (old.invocations ?? 0) + 1 };
    } else {
      manifest = { ...id, eval_id: evalId, created_at: new Date().toISOString(), invocations: 1 };
    }
    fs.writeFileSync(mf, JSON.stringify(manifest, null, 2) + '\n');
    const rf = path.join(dir, 'results.jsonl');
    let previous: EvalRecord[] = [];
    if (fs.existsSync(rf)) {
      let text = fs.readFileSync(rf, 'utf8');
      if (text !== '' && !text.endsWith('\n')) {
        text = text.slice(0, text.lastIndexOf('\n') + 1);
        fs.truncateSync(rf, Buffer.byteLength(text));
      }
      previous = parseResults(text, rf);
    }
    return new EvalStore(dir, manifest, previous);
  }

  /** Appends one record and syncs it to disk before returning (it is acked only after this). */
  append(r: EvalRecord): void {
    this.fd ??= fs.openSync(this.resultsFile, 'a');
    fs.writeSync(this.fd, JSON.stringify(r) + '\n');
    fs.fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
