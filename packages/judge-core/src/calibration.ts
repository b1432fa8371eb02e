// Judge calibration: a confusion matrix of a judge's predictions against reference labels (the
// task verifier in shadow mode, human labels in `owrl judge eval`), with the derived agreement,
// precision, recall and F1. "Positive" = success. Pure and mergeable.

export interface Confusion {
  /** Judge said success, reference success. */
  tp: number;
  /** Judge said success, reference failure: the costly error (a false reward enters the gradient). */
  fp: number;
  /** Judge said failure, reference success. */
  fn: number;
  tn: number;
}

export interface CalibrationFigures extends Confusion {
  n: number;
  /** (tp + tn) / n; 0 when n = 0. */
  agreement: number;
  /** tp / (tp + fp); 0 when the judge never said success. */
  precision: number;
  /** tp / (tp + fn); 0 when the reference has no success. */
  recall: number;
  /** Harmonic mean of precision and recall; 0 when both are 0. */
  f1: number;
}

export function emptyConfusion(): Confusion {
  return { tp: 0, fp: 0, fn: 0, tn: 0 };
}

/** Adds one (prediction, reference) pair to `c` in place and returns it. */
export function addPair(c: Confusion, predicted: boolean, reference: boolean): Confusion {
  if (predicted && reference) c.tp++;
  else if (predicted) c.fp++;
  else if (reference) c.fn++;
  else c.tn++;
  return c;
}

/** Figures of a confusion matrix (ratios are 0, not NaN, when undefined). */
export function calibrationFigures(c: Confusion): CalibrationFigures {
  const n = c.tp + c.fp + c.fn + c.tn;
  const ratio = (a: number, b: number): number => (b > 0 ? a / b : 0);
  const precision = ratio(c.tp, c.tp + c.fp);
  const recall = ratio(c.tp, c.tp + c.fn);
  return {
    ...c,
    n,
    agreement: ratio(c.tp + c.tn, n),
    precision,
    recall,
    f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0,
  };
}

/** A plain-text confusion table (rows: reference, columns: judge). */
export function confusionTable(c: Confusion, labels: { positive: string; negative: string } = { positive: 'success', negative: 'failure' }): string {
  const w = Math.max(labels.positive.length, labels.negative.length, 9) + 2;
  const cell = (s: string | number): string => String(s).padStart(w);
  return [
    `${''.padEnd(w + 10)}${cell(`judge ${labels.positive}`.slice(0, w))}${cell(`judge ${labels.negative}`.slice(0, w))}`,
    `${`ref ${labels.positive}`.padEnd(w + 10)}${cell(c.tp)}${cell(c.fn)}`,
    `${`ref ${labels.negative}`.padEnd(w + 10)}${cell(c.fp)}${cell(c.tn)}`,
  ].join('\n');
}
