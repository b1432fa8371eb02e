// Forward passes shaped for the device: rows ordered by length and cut into passes so that no
// pass pads more than `tokenBudget` positions (rows × longest row) or holds more than `maxRows`
// rows. Ordering by length keeps rows of similar length together, so little of each pass is
// padding; the budget bounds a pass's activation memory (attention grows with rows × length²)
// and keeps one long prompt from dragging a wide pass of short ones up to its length.
import { JudgeModelError, JudgeModelErrorCode } from './errors.js';

export interface BatchShape {
  /** Most rows in one forward pass. */
  maxRows: number;
  /** Most padded positions (rows × longest row) in one forward pass; a longer row runs alone. */
  tokenBudget: number;
}

export interface PlannedPass {
  /** Indices into the planned rows, shortest first. */
  rows: number[];
  /** Padded positions of the pass: rows × longest. */
  paddedTokens: number;
  /** Real tokens of the pass. */
  realTokens: number;
}

export function checkShape(s: BatchShape): void {
  for (const [k, v] of Object.entries(s)) {
    if (!Number.isInteger(v) || v <= 0) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `batch ${k} must be a positive integer, got ${v}`);
  }
}

/**
 * Splits rows of the given lengths into forward passes. Every row is in exactly one pass. Rows are
 * taken shortest first and a pass is closed when the next row would break the row or token limit,
 * so each pass is padded only up to its own longest row.
 */
export function planPasses(lengths: readonly number[], shape: BatchShape): PlannedPass[] {
  checkShape(shape);
  const order = lengths.map((_, i) => i).sort((a, b) => (lengths[a] ?? 0) - (lengths[b] ?? 0) || a - b);
  const passes: PlannedPass[] = [];
  let current: number[] = [];
  let real = 0;
  const close = () => {
    if (current.length === 0) return;
    const longest = lengths[current[current.length - 1] ?? 0] ?? 0;
    passes.push({ rows: current, paddedTokens: longest * current.length, realTokens: real });
    current = [];
    real = 0;
  };
  for (const i of order) {
    const len = lengths[i] ?? 0;
    // Sorted ascending, so this row would be the pass's longest.
    if (current.length > 0 && (current.length + 1 > shape.maxRows || (current.length + 1) * len > shape.tokenBudget)) close();
    current.push(i);
    real += len;
  }
  close();
  return passes;
}

/** Padding's share of the padded positions (0 when nothing was padded). */
export function paddingWaste(realTokens: number, paddedTokens: number): number {
  return paddedTokens > 0 ? (paddedTokens - realTokens) / paddedTokens : 0;
}
