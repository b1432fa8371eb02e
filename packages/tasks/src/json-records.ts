// The records of a JSON data file with the line each one starts on: JSON Lines (one value per
// non-blank line) or one JSON array (pretty-printed or not), told apart by the first character.
// A record that does not parse is reported at its own line and the others are still read. Pure.

export type JsonRecord = { line: number; value: unknown } | { line: number; error: string };

export interface JsonRecords {
  /** 'array' when the text is one JSON array, else 'jsonl'. */
  layout: 'jsonl' | 'array';
  records: JsonRecord[];
  /** A problem that stops reading (an array that never ends, text after the array), with its line. */
  fatal?: { line: number; message: string };
}

/** 1-based line of each offset, by binary search over the line starts. */
function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

function parse(slice: string, line: number): JsonRecord {
  try {
    return { line, value: JSON.parse(slice) as unknown };
  } catch (e) {
    return { line, error: `not valid JSON (${(e as Error).message})` };
  }
}

const WS = /\s/;

/**
 * Splits `text` into records. JSON Lines: each non-blank line is one record. A JSON array: each
 * element is one record, found by scanning brackets and strings, so one bad element does not hide
 * the others.
 */
export function splitJsonRecords(input: string): JsonRecords {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const first = text.search(/\S/);
  if (first < 0 || text[first] !== '[') {
    const records: JsonRecord[] = [];
    text.split('\n').forEach((raw, i) => {
      const line = raw.replace(/\r$/, '');
      if (line.trim() !== '') records.push(parse(line, i + 1));
    });
    return { layout: 'jsonl', records };
  }
  const lineOf = lineIndex(text);
  const records: JsonRecord[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1; // start of the current element, -1 between elements
  let stringStart = -1;
  const close = (end: number, last: boolean): void => {
    if (start < 0) {
      // "[]" is an empty array; "[a,]" or "[,a]" has an empty element.
      if (!(last && records.length === 0)) records.push({ line: lineOf(end), error: 'empty element (a stray comma?)' });
      return;
    }
    records.push(parse(text.slice(start, end), lineOf(start)));
    start = -1;
  };
  for (let i = first + 1; i < text.length; i++) {
    const c = text[i] ?? '';
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (depth === 0 && (c === ',' || c === ']')) {
      close(i, c === ']');
      if (c === ']') {
        const rest = text.slice(i + 1).search(/\S/);
        if (rest >= 0) return { layout: 'array', records, fatal: { line: lineOf(i + 1 + rest), message: 'text after the end of the JSON array' } };
        return { layout: 'array', records };
      }
      continue;
    }
    if (start < 0 && !WS.test(c)) start = i;
    if (c === '"') {
      inString = true;
      stringStart = i;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth = Math.max(0, depth - 1);
  }
  const where = inString ? { line: lineOf(stringStart), message: 'a string that never ends' } : { line: lineOf(first), message: 'the JSON array never ends (no closing "]")' };
  return { layout: 'array', records, fatal: where };
}
