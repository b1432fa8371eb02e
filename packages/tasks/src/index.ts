// Tasks of owrl: the bundled shop's catalog and seeded task generator, JSONL task files with
// validation, episode sessions on the bundled sites, and pure verifier logic. No I/O beyond files.
export * from './errors.js';
export * from './shop-catalog.js';
export * from './shop-tasks.js';
export * from './shop-listing.js';
export * from './shop-checkout.js';
export * from './shop-scenarios.js';
export * from './task-validate.js';
export * from './task-file.js';
export * from './json-records.js';
export * from './benchmark-import.js';
export * from './session.js';
export * from './verify.js';
export * from './suites.js';
export * from './travel/index.js';
export * from './mail/index.js';
export * from './wiki/index.js';
export * from './suite-options.js';
