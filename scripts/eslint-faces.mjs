// ESLint rules of owrl's package faces and the single homes of shared names.
//
// owrl/index-face (for index files and other package entries): a face lists its names, one per
// line, values and types apart —
//
//   export {
//     a,
//     b,
//   } from './x.js';
//   export type {
//     T,
//   } from './x.js';
//
// It reports `export *`, several names on one line (or a name on the line of `export {`), inline
// `type` specifiers (mixed into a value export or not), and a module's value or type names split
// over several exports or its types listed before its values. `eslint --fix` rewrites a declaration
// into that form (not when comments sit inside its braces).
//
// owrl/single-home: some names have one module that everyone imports them from (`Logger` and
// `Meter` from @owrl/core, the stream names from @owrl/bus). It reports importing or re-exporting
// such a name from any other module, and string literals equal to one of the given values outside
// their home (where the name, not the literal, should be used).

/** The text of a specifier without an inline `type`: `a`, `a as b`. */
function specifierText(sourceCode, spec) {
  const text = sourceCode.getText(spec);
  return spec.exportKind === 'type' && /^type\s/.test(text) ? text.replace(/^type\s+/, '') : text;
}

function faceBlock(keyword, names, tail) {
  return `${keyword} {\n${names.map((n) => `  ${n},\n`).join('')}}${tail};`;
}

const indexFace = {
  meta: {
    type: 'layout',
    fixable: 'code',
    docs: { description: 'A package face lists one name per line, values and types in separate exports.' },
    schema: [],
    messages: {
      star: 'List the exported names explicitly, not `export *`: the index is the package\'s public API.',
      onePerLine: 'One exported name per line (`export {\\n  a,\\n  b,\\n} from ...`).',
      inlineType: 'Types go in an `export type { ... }` of their own, not as inline `type` specifiers.',
      split: "The {{kind}} names of '{{source}}' are split over several exports: list them in one.",
      typesFirst: "The types of '{{source}}' come after its values (`export { ... }` then `export type { ... }`).",
    },
  },
  create(context) {
    const sourceCode = context.sourceCode;
    /** source -> { value?: line, type?: line } of the first export of each kind seen. */
    const seen = new Map();

    function fixed(node) {
      const inside = sourceCode.getCommentsInside(node);
      if (inside.length > 0) return null;
      const tail = node.source ? ` from ${sourceCode.getText(node.source)}` : '';
      const values = node.exportKind === 'type' ? [] : node.specifiers.filter((s) => s.exportKind !== 'type').map((s) => specifierText(sourceCode, s));
      const types = node.exportKind === 'type' ? node.specifiers.map((s) => specifierText(sourceCode, s)) : node.specifiers.filter((s) => s.exportKind === 'type').map((s) => specifierText(sourceCode, s));
      const blocks = [];
      if (values.length > 0) blocks.push(faceBlock('export', values, tail));
      if (types.length > 0) blocks.push(faceBlock('export type', types, tail));
      return (fixer) => fixer.replaceText(node, blocks.join('\n'));
    }

    return {
      ExportAllDeclaration(node) {
        if (node.exported === null) context.report({ node, messageId: 'star' });
      },
      ExportNamedDeclaration(node) {
        if (node.declaration !== null || node.specifiers.length === 0) return;
        const fix = fixed(node);
        const inline = node.exportKind !== 'type' && node.specifiers.some((s) => s.exportKind === 'type');
        if (inline) context.report({ node, messageId: 'inlineType', ...(fix ? { fix } : {}) });
        const lines = new Set([node.loc.start.line]);
        let crowded = false;
        for (const s of node.specifiers) {
          if (lines.has(s.loc.start.line)) crowded = true;
          lines.add(s.loc.start.line);
        }
        if (node.specifiers.at(-1).loc.end.line === node.loc.end.line) crowded = true;
        if (crowded && !inline) context.report({ node, messageId: 'onePerLine', ...(fix ? { fix } : {}) });

        const source = node.source ? node.source.value : '(local)';
        const entry = seen.get(source) ?? {};
        seen.set(source, entry);
        const kinds = inline ? ['value', 'type'] : [node.exportKind === 'type' ? 'type' : 'value'];
        for (const kind of kinds) {
          if (entry[kind] !== undefined) context.report({ node, messageId: 'split', data: { kind, source } });
          else entry[kind] = node.loc.start.line;
        }
        if (kinds.includes('value') && !inline && entry.type !== undefined && entry.type < node.loc.start.line) {
          context.report({ node, messageId: 'typesFirst', data: { source } });
        }
      },
    };
  },
};

const singleHome = {
  meta: {
    type: 'problem',
    docs: { description: 'Shared names come from their one home module.' },
    schema: [
      {
        type: 'object',
        properties: {
          names: {
            type: 'array',
            items: {
              type: 'object',
              properties: { home: { type: 'string' }, names: { type: 'array', items: { type: 'string' } } },
              required: ['home', 'names'],
              additionalProperties: false,
            },
          },
          literals: {
            type: 'array',
            items: {
              type: 'object',
              properties: { home: { type: 'string' }, values: { type: 'array', items: { type: 'string' } } },
              required: ['home', 'values'],
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      name: "'{{name}}' comes from {{home}} only (its one home), not from '{{source}}'.",
      reexport: "'{{name}}' has one home, {{home}}: do not re-export it.",
      literal: "'{{value}}' is a name of {{home}}: use its constant, not the literal.",
    },
  },
  create(context) {
    const options = context.options[0] ?? {};
    const homeOf = new Map();
    for (const h of options.names ?? []) for (const n of h.names) homeOf.set(n, h.home);
    const literalHome = new Map();
    for (const h of options.literals ?? []) for (const v of h.values) literalHome.set(v, h.home);

    return {
      ImportDeclaration(node) {
        const source = node.source.value;
        for (const s of node.specifiers) {
          if (s.type !== 'ImportSpecifier') continue;
          const name = s.imported.type === 'Identifier' ? s.imported.name : s.imported.value;
          const home = homeOf.get(name);
          if (home !== undefined && source !== home) context.report({ node: s, messageId: 'name', data: { name, home, source } });
        }
      },
      ExportNamedDeclaration(node) {
        if (node.source === null) return;
        for (const s of node.specifiers) {
          const name = s.local.type === 'Identifier' ? s.local.name : s.local.value;
          const home = homeOf.get(name);
          if (home !== undefined) context.report({ node: s, messageId: 'reexport', data: { name, home } });
        }
      },
      Literal(node) {
        if (typeof node.value !== 'string') return;
        const parent = node.parent;
        if (parent && (parent.type === 'ImportDeclaration' || parent.type === 'ExportNamedDeclaration' || parent.type === 'ExportAllDeclaration')) return;
        const home = literalHome.get(node.value);
        if (home !== undefined) context.report({ node, messageId: 'literal', data: { value: node.value, home } });
      },
      TemplateLiteral(node) {
        if (node.expressions.length !== 0) return;
        const value = node.quasis[0]?.value.cooked;
        const home = value === undefined ? undefined : literalHome.get(value);
        if (home !== undefined) context.report({ node, messageId: 'literal', data: { value, home } });
      },
    };
  },
};

export default { rules: { 'index-face': indexFace, 'single-home': singleHome } };
