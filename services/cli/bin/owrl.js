#!/usr/bin/env node
// owrl command line: see `owrl help`.
import('../dist/src/main.js').catch((e) => {
  if (e && e.code === 'ERR_MODULE_NOT_FOUND') {
    process.stderr.write('owrl: the project is not built; run `npm run build` first\n');
  } else {
    process.stderr.write(`owrl: ${e && e.stack ? e.stack : e}\n`);
  }
  process.exit(1);
});
