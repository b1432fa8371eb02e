// A run file or setup `owrl train` refuses before training (a bad file, a failed preflight, a
// resume the run cannot take): exit 2, nothing trained. Problems located in a file are printed
// as they are, one `FILE:LINE:COL: key: message` per line (editors and CI annotators read that
// form at the start of a line); others get the usual `owrl: ` prefix.
import { UsageError } from '../usage.js';

export class TrainRefused extends UsageError {
  override readonly name: string = 'TrainRefused';
  /** The message is `FILE:LINE:COL: key: message` lines, printed without a prefix. */
  readonly located: boolean;

  constructor(message: string, options: { cause?: unknown; located?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.located = options.located ?? false;
  }
}

export function isTrainRefused(e: unknown): e is TrainRefused {
  return e instanceof TrainRefused;
}
