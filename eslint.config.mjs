// Lint: type-aware TypeScript rules, no floating promises, type-only imports, and the package
// boundaries of docs/design.md §2/§11: services never import each other, nobody deep-imports another
// package's internals, and there are no import cycles.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import fs from 'node:fs';
import path from 'node:path';
import cycles from './scripts/eslint-no-import-cycle.mjs';
import faces from './scripts/eslint-faces.mjs';

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

const owrl = { rules: { ...cycles.rules, ...faces.rules } };

// Names with one home module that every importer uses (owrl/single-home).
const loggingHome = { home: '@owrl/core', names: ['Logger', 'silentLogger', 'Meter', 'noopMeter'] };
const streamNames = ['TASKS', 'TRAJ', 'SCORED', 'DLQ', 'ADVISORIES', 'SHOTS'];
const streamHome = { home: '@owrl/bus', names: streamNames.map((n) => `STREAM_${n}`) };
const streamLiterals = { home: '@owrl/bus', values: streamNames.map((n) => `OWRL_${n}`) };

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
      'owrl/single-home': ['error', { names: [loggingHome, streamHome], literals: [streamLiterals] }],
    },
  },
  {
    // The homes themselves define and list their names; the bus's own tests check the stream
    // names' literal values.
    files: ['packages/core/src/**/*.ts', 'packages/core/test/**/*.ts'],
    rules: { 'owrl/single-home': ['error', { names: [streamHome], literals: [streamLiterals] }] },
  },
  {
    files: ['packages/bus/src/**/*.ts', 'packages/bus/test/**/*.ts'],
    rules: { 'owrl/single-home': ['error', { names: [loggingHome] }] },
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
    // A package's face is the names its entry points list (src/index.ts, the index of a declared
    // subpath such as @owrl/tasks/shop, src/testing.ts, and the index of any folder): one name per
    // line, values in `export { ... }`, types in `export type { ... }`, no `export *`.
    files: ['packages/*/src/**/index.ts', 'services/*/src/**/index.ts', 'packages/*/src/testing.ts'],
    rules: { 'owrl/index-face': 'error' },
  },
);
