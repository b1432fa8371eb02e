// @owrl/trainer-rpc: the trainer contract (docs/design.md §6, docs/trainer.md) over gRPC — a server that
// puts any PolicyTrainer behind owrl.v1.Trainer, the RemoteTrainer client the learner uses for a
// trainer in another process, the request/answer checks both sides share, and errors that keep
// their codes across the wire, and grpc-js handlers typed by a generated service descriptor
// (addTypedService), which the learner's own gRPC server uses too.
export {
  ERROR_CODE_KEY,
  TrainerError,
  TrainerErrorCode,
  fromServiceError,
  isTrainerError,
  toServiceError,
} from './errors.js';
export {
  validateTrainRequest,
  validateTrainResult,
  validateTrainTraces,
} from './train-validate.js';
export type {
  ValidateOptions,
} from './train-validate.js';
export {
  TrainerServer,
  TRAINER_SERVICE,
  DEFAULT_MAX_MESSAGE_BYTES,
} from './trainer-server.js';
export type {
  TrainerServerOptions,
} from './trainer-server.js';
export {
  RemoteTrainer,
  parseTrainerAddress,
} from './remote-trainer.js';
export type {
  RemoteTrainerOptions,
} from './remote-trainer.js';
export {
  addTypedService,
} from './typed-service.js';
export type {
  ServiceImplementation,
  HandlerOf,
} from './typed-service.js';
export {
  readStoredRequest,
  writeStoredRequest,
  writeStoredRequestAsync,
} from './stored-request.js';
