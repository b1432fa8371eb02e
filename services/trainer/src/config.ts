// Configuration of the trainer process (the built-in pointer trainer behind owrl.v1.Trainer) from
// environment variables, each checked with an error naming the variable:
//   OWRL_TRAINER_DIR           folder the policy versions are stored in (required)
//   OWRL_TRAINER_PORT          gRPC port (default 50070; 0 = any free port, logged)
//   OWRL_TRAINER_HOST          address to listen on (default 0.0.0.0)
//   OWRL_TRAINER_TOKEN         shared token callers send as `authorization: Bearer <token>` (default none; never logged)
//   OWRL_TRAINER_ARTIFACT_URL  base URL the artifacts are reachable at, `<base>/v<N>/policy.onnx`
//                              (default: file:// URLs inside OWRL_TRAINER_DIR)
//   OWRL_TRAINER_KEEP_VERSIONS versions kept restorable (default 5, at least 2)
//   OWRL_TRAINER_DIM           feature dimension of the initial model (default the policy's, 2^18)
//   OWRL_TEMPERATURE           temperature of the initial model (default 1, as the learner's)
//   OWRL_LR                    Adam learning rate of the initial optimizer (default 0 = 0.05)
//   OWRL_TRAINER_MAX_MESSAGE_BYTES  largest TrainGroup chunk accepted (default 64 MiB)
// OWRL_LOG_LEVEL and OWRL_METRICS_PORT are read by the startup path (@owrl/service).
import { ConfigError, envInt, envNumber, envSecret, envString, type Env, type Secret } from '@owrl/core';
import { DEFAULT_DIM } from '@owrl/policy';
import { DEFAULT_MAX_MESSAGE_BYTES } from '@owrl/trainer-rpc';

export const DEFAULT_TRAINER_PORT = 50070;

export interface TrainerConfig {
  dir: string;
  port: number;
  host: string;
  /** Empty = calls need no token. */
  token: Secret;
  /** '' = file:// URLs of the stored files. */
  artifactUrl: string;
  keepVersions: number;
  dim: number;
  temperature: number;
  /** 0 = Adam's default. */
  learningRate: number;
  maxMessageBytes: number;
}

/** @throws ConfigError naming the variable. */
export function readConfig(env: Env): TrainerConfig {
  const dir = envString('OWRL_TRAINER_DIR', '', env);
  if (dir === '') throw new ConfigError('OWRL_TRAINER_DIR', 'OWRL_TRAINER_DIR is not set: name the folder the trainer stores policy versions in');
  const port = envInt('OWRL_TRAINER_PORT', DEFAULT_TRAINER_PORT, env, 0);
  if (port > 65535) throw new ConfigError('OWRL_TRAINER_PORT', `OWRL_TRAINER_PORT=${port} is not a port (0-65535)`);
  const artifactUrl = envString('OWRL_TRAINER_ARTIFACT_URL', '', env).replace(/\/+$/, '');
  if (artifactUrl !== '') {
    let u: URL | undefined;
    try {
      u = new URL(artifactUrl);
    } catch {
      u = undefined;
    }
    if (!u || !['http:', 'https:', 'file:', 's3:'].includes(u.protocol)) {
      throw new ConfigError('OWRL_TRAINER_ARTIFACT_URL', `OWRL_TRAINER_ARTIFACT_URL=${JSON.stringify(artifactUrl)} must be an http(s)://, file:// or s3:// URL`);
    }
  }
  const keepVersions = envInt('OWRL_TRAINER_KEEP_VERSIONS', 5, env, 0);
  if (keepVersions < 2) throw new ConfigError('OWRL_TRAINER_KEEP_VERSIONS', `OWRL_TRAINER_KEEP_VERSIONS=${keepVersions} must be at least 2`);
  const maxMessageBytes = envInt('OWRL_TRAINER_MAX_MESSAGE_BYTES', DEFAULT_MAX_MESSAGE_BYTES, env, 0);
  if (maxMessageBytes < 1024) throw new ConfigError('OWRL_TRAINER_MAX_MESSAGE_BYTES', `OWRL_TRAINER_MAX_MESSAGE_BYTES=${maxMessageBytes} must be at least 1024`);
  return {
    dir,
    port,
    host: envString('OWRL_TRAINER_HOST', '0.0.0.0', env),
    token: envSecret('OWRL_TRAINER_TOKEN', env),
    artifactUrl,
    keepVersions,
    dim: envInt('OWRL_TRAINER_DIM', DEFAULT_DIM, env, 1),
    temperature: envNumber('OWRL_TEMPERATURE', 1, env, { min: 0.01 }),
    learningRate: envNumber('OWRL_LR', 0, env, { min: 0 }),
    maxMessageBytes,
  };
}
