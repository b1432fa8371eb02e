// Tiny HTML templating: a tagged template that escapes every interpolated value unless it is
// already an Html fragment, so echoed user input (search queries) can never inject markup.

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESC[c] ?? c);
}

function part(v: unknown): string {
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(part).join('');
  if (v === undefined || v === null || v === false) return '';
  return escapeHtml(String(v));
}

/** `html\`<p>${text}</p>\`` → Html with `text` escaped; arrays are concatenated. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += part(v) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/** Marks trusted markup (constants only) as Html. */
export function raw(s: string): Html {
  return new Html(s);
}
