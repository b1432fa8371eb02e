// ESLint rule owrl/no-import-cycle: no module may reach itself through its imports, type-only
// imports included. import-x/no-cycle skips `import type` edges, so a cycle made only of type
// imports (mail-tasks.ts -> suites.ts -> mail-tasks.ts once was one) passes it; such a cycle still
// ties two modules together and breaks the moment one of its edges gains a value. This rule builds
// the graph of the whole workspace from the TypeScript sources: relative specifiers (`./x.js` ->
// `./x.ts`, a folder -> its index.ts) and workspace packages by name (`@owrl/x` -> its
// src/index.ts, a declared subpath such as `@owrl/x/testing` -> its source, src/testing.ts).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const rootDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/**
 * Workspace entry point -> absolute path of its source: `@owrl/x` -> src/index.ts, and each
 * subpath of its package.json "exports" (`@owrl/x/testing` -> src/testing.ts, `@owrl/tasks/shop`
 * -> src/shop/index.ts), read from the export's `./dist/src/….js` target.
 */
let entries;
function workspaceEntries() {
  if (entries !== undefined) return entries;
  entries = new Map();
  const root = JSON.parse(fs.readFileSync(path.join(rootDir, 'package.json'), 'utf8'));
  for (const ws of root.workspaces ?? []) {
    let pj;
    try {
      pj = JSON.parse(fs.readFileSync(path.join(rootDir, ws, 'package.json'), 'utf8'));
    } catch {
      continue; // a workspace without package.json has no name to import it by
    }
    if (typeof pj.name !== 'string') continue;
    const index = path.join(rootDir, ws, 'src', 'index.ts');
    if (fs.existsSync(index)) entries.set(pj.name, index);
    for (const [sub, target] of Object.entries(pj.exports ?? {})) {
      const js = typeof target === 'string' ? target : target?.default;
      const m = typeof js === 'string' ? /^\.\/dist\/(src\/.+)\.js$/.exec(js) : null;
      if (sub === '.' || m === null) continue;
      const source = path.join(rootDir, ws, `${m[1]}.ts`);
      if (fs.existsSync(source)) entries.set(`${pj.name}/${sub.slice(2)}`, source);
    }
  }
  return entries;
}

function resolveSpecifier(from, spec) {
  if (spec.startsWith('.')) {
    const base = path.resolve(path.dirname(from), spec);
    for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')]) {
      if (candidate.endsWith('.ts') && fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
    }
    return undefined;
  }
  return workspaceEntries().get(spec);
}

/** file -> resolved imports (type-only ones included), read from disk once per lint run. */
const edges = new Map();
function importsOf(file) {
  let out = edges.get(file);
  if (out !== undefined) return out;
  out = [];
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    // unreadable: no edges
  }
  for (const imp of ts.preProcessFile(text, true, true).importedFiles) {
    const target = resolveSpecifier(file, imp.fileName);
    if (target !== undefined) out.push(target);
  }
  edges.set(file, out);
  return out;
}

/** A path of files from `start` back to `goal`, or undefined when there is none. */
function pathBack(start, goal) {
  const prev = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of importsOf(node)) {
      if (next === goal) {
        const route = [node];
        for (let p = prev.get(node); p !== undefined; p = prev.get(p)) route.unshift(p);
        return route;
      }
      if (!prev.has(next)) {
        prev.set(next, node);
        queue.push(next);
      }
    }
  }
  return undefined;
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles, type-only imports included.' },
    schema: [],
    messages: { cycle: 'Import cycle (type-only imports count): {{route}}' },
  },
  create(context) {
    const file = context.physicalFilename;
    if (!file.endsWith('.ts')) return {};
    function check(node, spec) {
      const target = resolveSpecifier(file, spec);
      if (target === undefined || target === file) return;
      const route = pathBack(target, file);
      if (route === undefined) return;
      const shown = [file, ...route, file].map((f) => path.relative(rootDir, f)).join(' -> ');
      context.report({ node, messageId: 'cycle', data: { route: shown } });
    }
    return {
      ImportDeclaration(node) {
        check(node, node.source.value);
      },
      ExportNamedDeclaration(node) {
        if (node.source) check(node, node.source.value);
      },
      ExportAllDeclaration(node) {
        check(node, node.source.value);
      },
    };
  },
};

export default { rules: { 'no-import-cycle': rule } };
