// Shared test harness: real servers started per suite on free ports, and whole systems of owrl
// service processes for cross-process and fault tests.
export * from './free-port.js';
export * from './nats-server.js';
export * from './wait.js';
export * from './service-process.js';
export * from './learner-probe.js';
export * from './system.js';
export * from './proc-tree.js';
