// "Did you mean …?" for a misspelt key or value: the closest valid name by edit distance, or the
// place where a key of that exact name lives when it was put in the wrong section.

/** Levenshtein distance (insertions, deletions, substitutions; each 1). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/**
 * ` (did you mean X?)` for the closest of `choices` within a third of the word's length (at least
 * 2 edits), else ` (it belongs under P)` when a dotted path of `elsewhere` ends in the word, else
 * the choices themselves; '' when there are none.
 */
export function nearest(word: string, choices: readonly string[], elsewhere: readonly string[]): string {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of choices) {
    const d = editDistance(lower, c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  if (best !== undefined && bestD <= Math.max(2, Math.floor(word.length / 3))) return ` (did you mean ${best}?)`;
  const home = elsewhere.find((p) => p.endsWith(`.${word}`));
  if (home !== undefined) return ` (it belongs at ${home})`;
  return choices.length > 0 ? `; valid here: ${choices.join(', ')}` : '';
}
