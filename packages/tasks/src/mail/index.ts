// The bundled web mail's task layer: seeded mailbox, per-session mailbox rules, site-state
// verifier and task generator (suite `mail`).
export * from './mail-data.js';
export * from './mail-state.js';
export * from './mail-verify.js';
export * from './mail-tasks.js';
