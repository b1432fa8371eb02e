// A run file or setup `owrl train` refuses before training (a bad file, a failed preflight, a
// resume the run cannot take): exit 2, nothing trained.
import { UsageError } from '../usage.js';

export class TrainRefused extends UsageError {}
