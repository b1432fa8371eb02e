// Shared test harness: real servers started per suite on free ports.
export * from './free-port.js';
export * from './nats-server.js';
