// Lint: type-aware TypeScript rules, no floating promises, type-only imports, and the package
// boundaries of docs/design.md §2/§11: services never import each other, nobody deep-imports another
// package's internals, and there are no import cycles.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import fs from 'node:fs';
import path from 'node:path';
import owrl from './scripts/eslint-no-import-cycle.mjs';

const services = ['actor', 'judge', 'learner', 'sites', 'cli', 'console', 'trainer'];

// The subpath entries the workspace packages declare in package.json "exports" (`@owrl/x/testing`,
// the suites of `@owrl/tasks`): the only deep imports allowed.
const rootPackage = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'package.json'), 'utf8'));
const declaredSubpaths = rootPackage.workspaces.flatMap((ws) => {
  const file = path.join(import.meta.dirname, ws, 'package.json');
  if (!fs.existsSync(file)) return [];
  const pj = JSON.parse(fs.readFileSync(file, 'utf8'));
  return Object.keys(pj.exports ?? {})
    .filter((sub) => sub !== '.')
    .map((sub) => `${pj.name}/${sub.slice(2)}`);
});

const boundaries = [
  {
    group: ['@owrl/*/*', ...declaredSubpaths.map((s) => `!${s}`), '@owrl/*/*/*'],
    message: 'Import a package by its name or an entry its package.json "exports" declares (test helpers: @owrl/<name>/testing; suites: @owrl/tasks/<suite>), not its internals.',
  },
  { group: ['**/packages/*/src/**', '**/packages/*/dist/**', '../../packages/**'], message: 'Import other packages by name (@owrl/x), not by path.' },
  { group: services.map((s) => `@owrl/${s}`), message: 'Services never import each other: share packages/* and the wire contracts.' },
  { group: ['**/services/**', '../../services/**'], message: 'Services never import each other or get imported by path.' },
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'packages/proto/src/gen/**', '**/*.mjs', '**/*.js', '**/*.cjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX, owrl },
    // The TypeScript resolver follows `./x.js` specifiers to `./x.ts` and workspace packages to
    // their sources, so import-x/no-cycle sees the real graph.
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ alwaysTryTypes: true, project: 'tsconfig.json', noWarnOnMultipleProjects: true })],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // import-x/no-cycle skips type-only imports; owrl/no-import-cycle counts them too.
      'import-x/no-cycle': ['error', { maxDepth: 10 }],
      'owrl/no-import-cycle': 'error',
      'no-restricted-imports': ['error', { patterns: boundaries }],
    },
  },
  {
    // Production code never depends on the test kit or a package's testing entry point.
    files: ['packages/*/src/**/*.ts', 'services/*/src/**/*.ts'],
    ignores: ['packages/testkit/src/**', 'packages/*/src/testing.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...boundaries,
            { group: ['@owrl/testkit', '@owrl/*/testing'], message: 'Production code (src/) does not depend on the test kit or testing entry points; they are for tests only.' },
          ],
        },
      ],
    },
  },
  {
    // A package's face is the names its index lists, not whole modules.
    files: ['packages/*/src/index.ts', 'services/*/src/index.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration[exported=null]', message: 'List the exported names explicitly (export { a, type B } from ...), not `export *`: the index is the package\'s public API.' },
      ],
    },
  },
);
