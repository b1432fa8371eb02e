// @owrl/pointer-trainer: the built-in pointer policy's trainer behind the trainer contract
// (PolicyTrainer of @owrl/rl, served over gRPC by @owrl/trainer-rpc), with versions stored on
// disk as ONNX artifacts, and the conversion of the learner's pointer groups to TrainGroups.
export * from './convert.js';
export * from './pointer-policy-trainer.js';
export * from './toy-problem.js';
