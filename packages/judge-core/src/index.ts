// Reward pipeline of owrl (DESIGN §7): format → rule → verdict source (task verifier now, a judge
// model later), scored-message assembly and redelivery dedupe. No NATS here.
export * from './errors.js';
export * from './outcome.js';
export * from './check-result.js';
export * from './answer-match.js';
export * from './site-state.js';
export * from './verifiers.js';
export * from './verdict-source.js';
export * from './pipeline.js';
export * from './scored.js';
export * from './dedupe.js';
export * from './calibration.js';
