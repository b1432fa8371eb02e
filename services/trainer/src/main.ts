// Trainer process: the built-in pointer trainer (PointerPolicyTrainer) behind the owrl.v1.Trainer
// gRPC service on a real socket, so a learner reaches it with RemoteTrainer exactly as it would a
// GPU trainer. Runs through the startup path without NATS (settings checked first, exit 2 naming
// the variable; /metrics and /healthz on OWRL_METRICS_PORT).
import { PointerPolicyTrainer } from '@owrl/pointer-trainer';
import { runService } from '@owrl/service';
import { TrainerServer } from '@owrl/trainer-rpc';
import { readConfig } from './config.js';

runService({
  name: 'trainer',
  bus: false,
  config: readConfig,
  start: async ({ config: cfg, logger, meter }) => {
    const trainer = new PointerPolicyTrainer({
      dir: cfg.dir,
      dim: cfg.dim,
      temperature: cfg.temperature,
      keepVersions: cfg.keepVersions,
      logger,
      ...(cfg.learningRate > 0 ? { adam: { lr: cfg.learningRate } } : {}),
      ...(cfg.artifactUrl !== '' ? { artifactUri: (v: bigint) => `${cfg.artifactUrl}/v${v}/policy.onnx` } : {}),
    });
    const info = await trainer.info();
    logger.info(
      { dir: trainer.dir, latestVersion: Number(info.latestVersion), restorable: info.restorableVersions.map(Number), token: cfg.token.isSet ? '(set)' : '(none)' },
      'pointer trainer ready',
    );
    if (!cfg.token.isSet && cfg.host !== '127.0.0.1' && cfg.host !== 'localhost') {
      logger.warn({ host: cfg.host }, 'OWRL_TRAINER_TOKEN is not set: any client that reaches the port can train');
    }
    const server = new TrainerServer(trainer, { host: cfg.host, port: cfg.port, token: cfg.token, maxMessageBytes: cfg.maxMessageBytes, logger, meter });
    const port = await server.start();
    logger.info({ host: cfg.host, port }, 'trainer serving owrl.v1.Trainer');
    return {
      stop: async () => {
        await server.close();
        await trainer.close();
      },
    };
  },
});
