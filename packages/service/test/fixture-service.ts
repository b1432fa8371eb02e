// A service run through runService for the startup-path tests, steered by FIXTURE_* variables:
//   FIXTURE_COUNT       an integer setting (a bad value must exit 2 naming it)
//   FIXTURE_BUS         'false' = a service without NATS
//   FIXTURE_WAIT_NATS   'true' = keep waiting for the first NATS connection
//   FIXTURE_HOLD_START  'true' = start() waits for a line on stdin (a signal arrives meanwhile)
//   FIXTURE_START_FAIL  'true' = start() throws
//   FIXTURE_DONE        'true' = the service ends on its own after starting
//   FIXTURE_STOP_LINES  lines logged by stop() (the last line must still reach stdout)
import { createInterface } from 'node:readline';
import { ConfigError, envBool, envInt, type Env } from '@owrl/core';
import { runService, type ServiceContext, type ServiceHandle } from '../src/index.js';

interface FixtureConfig {
  count: number;
  holdStart: boolean;
  startFail: boolean;
  done: boolean;
  stopLines: number;
}

function config(env: Env): FixtureConfig {
  const count = envInt('FIXTURE_COUNT', 1, env, 1);
  if (count > 100) throw new ConfigError('FIXTURE_COUNT', `FIXTURE_COUNT=${count} is above 100`);
  return {
    count,
    holdStart: envBool('FIXTURE_HOLD_START', false, env),
    startFail: envBool('FIXTURE_START_FAIL', false, env),
    done: envBool('FIXTURE_DONE', false, env),
    stopLines: envInt('FIXTURE_STOP_LINES', 0, env, 0),
  };
}

async function start(ctx: ServiceContext<FixtureConfig, boolean>): Promise<ServiceHandle> {
  const { config: c, logger, meter } = ctx;
  const starts = meter.counter({ name: 'owrl_fixture_starts_total', help: 'Fixture starts', labelNames: ['kind'] });
  logger.info({ bus: ctx.bus !== null }, 'fixture start begun');
  if (c.holdStart) {
    const rl = createInterface({ input: process.stdin });
    await new Promise<void>((resolve) => rl.once('line', () => resolve()));
    rl.close();
    logger.info({ aborted: ctx.stopping.aborted }, 'fixture start released');
  }
  if (c.startFail) throw new Error('fixture start failed on purpose');
  starts.inc({ kind: 'fixture' }, c.count);
  ctx.health.check('fixture', () => true);
  return {
    stop: async (reason) => {
      logger.info({ reason }, 'fixture stop begun');
      for (let i = 0; i < c.stopLines; i++) logger.info({ i, pad: 'x'.repeat(200) }, 'fixture stop line');
    },
    ...(c.done ? { done: Promise.resolve() } : {}),
  };
}

const bus = process.env['FIXTURE_BUS'] !== 'false';
runService({ name: 'fixture', config, bus, waitOnFirstConnect: process.env['FIXTURE_WAIT_NATS'] === 'true', start });
