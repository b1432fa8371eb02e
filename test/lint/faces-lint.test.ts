// The lint rules of package faces and single homes (scripts/eslint-faces.mjs) fail on bad samples,
// pass the agreed form, fix a crowded index into it, and the repository's config applies them to
// every package entry point.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';

// compiled to test/dist/lint/
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface Plugin {
  rules: Record<string, unknown>;
}
const faces = ((await import(pathToFileURL(path.join(root, 'scripts/eslint-faces.mjs')).href)) as { default: Plugin }).default;

function lint(code: string, rules: Linter.RulesRecord, filename = 'packages/x/src/index.ts'): Linter.LintMessage[] {
  const linter = new Linter({ configType: 'flat' });
  return linter.verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { owrl: faces as never }, rules }], filename);
}

const FACE: Linter.RulesRecord = { 'owrl/index-face': 'error' };

void test('index-face: several names on a line, inline types, export *, split or reordered exports fail', () => {
  const ids = (code: string) => lint(code, FACE).map((m) => m.messageId);
  assert.deepEqual(ids("export { a, b } from './x.js';\n"), ['onePerLine']);
  assert.deepEqual(ids("export { a } from './x.js';\n"), ['onePerLine'], 'one name, still on the line of `export {`');
  assert.deepEqual(ids("export {\n  a, b,\n} from './x.js';\n"), ['onePerLine']);
  assert.deepEqual(ids("export {\n  a,\n  type T,\n} from './x.js';\n"), ['inlineType']);
  assert.deepEqual(ids("export {\n  type T,\n} from './x.js';\n"), ['inlineType']);
  assert.deepEqual(ids("export * from './x.js';\n"), ['star']);
  assert.deepEqual(ids("export {\n  a,\n} from './x.js';\nexport {\n  b,\n} from './x.js';\n"), ['split']);
  assert.deepEqual(ids("export type {\n  T,\n} from './x.js';\nexport {\n  a,\n} from './x.js';\n"), ['typesFirst']);
});

void test('index-face: the agreed form passes, and --fix turns a crowded line into it', () => {
  const good = "export {\n  a,\n  b as c,\n} from './x.js';\nexport type {\n  T,\n} from './x.js';\nexport * as ns from './y.js';\nexport const local = 1;\n";
  assert.deepEqual(lint(good, FACE), []);
  const linter = new Linter({ configType: 'flat' });
  const fixed = linter.verifyAndFix("export { a, type T, b as c } from './x.js';\n", [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { owrl: faces as never }, rules: FACE }], 'packages/x/src/index.ts');
  assert.equal(fixed.output, "export {\n  a,\n  b as c,\n} from './x.js';\nexport type {\n  T,\n} from './x.js';\n");
  assert.deepEqual(fixed.messages, []);
});

void test('single-home: Logger and Meter only from @owrl/core, stream names only from @owrl/bus', () => {
  const rules: Linter.RulesRecord = {
    'owrl/single-home': [
      'error',
      {
        names: [
          { home: '@owrl/core', names: ['Logger', 'Meter'] },
          { home: '@owrl/bus', names: ['STREAM_TASKS'] },
        ],
        // a stream name the rule must report as a literal (the sample's own literal is the option)
        // eslint-disable-next-line owrl/single-home
        literals: [{ home: '@owrl/bus', values: ['OWRL_TASKS'] }],
      },
    ],
  };
  const ids = (code: string) => lint(code, rules, 'services/x/src/a.ts').map((m) => m.messageId);
  assert.deepEqual(ids("import type { Logger } from '@owrl/telemetry';\n"), ['name']);
  assert.deepEqual(ids("import { type Meter } from './meter.js';\n"), ['name']);
  assert.deepEqual(ids("import { STREAM_TASKS } from '@owrl/testkit';\n"), ['name']);
  assert.deepEqual(ids("export { type Logger } from '@owrl/core';\n"), ['reexport'], 'a second face of the name');
  assert.deepEqual(ids("const s = 'OWRL_TASKS';\nconst t = `OWRL_TASKS`;\n"), ['literal', 'literal']);
  assert.deepEqual(ids("import { type Logger, type Meter } from '@owrl/core';\nimport { STREAM_TASKS } from '@owrl/bus';\nconst f = 'OWRL_TASKS_FILE';\n"), []);
});

void test('the repository config applies the face rule to every package entry point', async () => {
  const eslint = new ESLint({ cwd: root });
  const entries: string[] = [];
  for (const group of ['packages', 'services']) {
    for (const name of fs.readdirSync(path.join(root, group))) {
      const dir = path.join(root, group, name);
      const pjFile = path.join(dir, 'package.json');
      if (!fs.existsSync(pjFile)) continue;
      const pj = JSON.parse(fs.readFileSync(pjFile, 'utf8')) as { exports?: Record<string, { default?: string } | string> };
      for (const target of Object.values(pj.exports ?? {})) {
        const js = typeof target === 'string' ? target : target.default;
        const m = js === undefined ? null : /^\.\/dist\/(src\/.+)\.js$/.exec(js);
        if (m) entries.push(path.join(dir, `${m[1]}.ts`));
      }
    }
  }
  assert.ok(entries.some((e) => e.endsWith(path.join('tasks', 'src', 'shop', 'index.ts'))), 'the suite entries are among them');
  for (const file of entries) {
    assert.ok(fs.existsSync(file), `${path.relative(root, file)}: a declared entry has its source`);
    const config = (await eslint.calculateConfigForFile(file)) as { rules?: Record<string, unknown> };
    const setting = config.rules?.['owrl/index-face'];
    assert.ok(Array.isArray(setting) ? setting[0] === 2 || setting[0] === 'error' : setting === 2 || setting === 'error', `${path.relative(root, file)}: owrl/index-face is ${JSON.stringify(setting)}`);
  }
});
