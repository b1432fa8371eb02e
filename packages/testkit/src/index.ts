// Shared test harness: real servers started per suite on free ports, and faithful stand-ins for
// what a user brings (an OpenAI-compatible model server with vLLM/SGLang shapes, a GPU trainer
// behind owrl.v1.Trainer).
export * from './free-port.js';
export * from './nats-server.js';
export * from './chat-server.js';
export * from './fake-trainer.js';
