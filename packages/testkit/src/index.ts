// Shared test harness: real servers started per suite on free ports, whole systems of owrl
// service processes for cross-process and fault tests, and faithful stand-ins for what a user
// brings (an OpenAI-compatible model server with vLLM/SGLang shapes, a GPU trainer behind
// owrl.v1.Trainer).
export * from './nats-server.js';
export * from './wait.js';
export * from './service-process.js';
export * from './learner-probe.js';
export * from './system.js';
export * from './proc-tree.js';
export * from './chat-server.js';
export * from './fake-trainer.js';
export * from './metrics-lint.js';
export * from './shop-oracle.js';
