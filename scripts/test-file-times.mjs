// A node:test reporter for scripts/run-tests.mjs: one JSON line per test file that ended, with its
// wall time (node reports each file's subprocess as a test named after the file).
export default async function* fileTimes(source) {
  for await (const event of source) {
    const d = event.data;
    if (event.type === 'test:complete' && d?.file && d.name === d.file) {
      yield `${JSON.stringify({ file: d.file, ms: d.details?.duration_ms ?? 0 })}\n`;
    }
  }
}
