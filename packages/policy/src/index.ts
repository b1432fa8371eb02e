// Built-in pointer policy of owrl: candidate actions with hashed sparse features, a linear
// softmax model (TypeScript, exact gradients), its ONNX export, and the onnxruntime-node policy
// the actors run.
export * from './errors.js';
export * from './text.js';
export * from './features.js';
export * from './candidates.js';
export * from './sparse.js';
export * from './pointer-model.js';
export * from './onnx-export.js';
export * from './policy.js';
export * from './onnx-policy.js';
