// Preflight: NATS answers, accepts the credentials, and has JetStream.
import { BusErrorCode, connectBus, isBusError, readNatsSettings } from '@owrl/bus';
import { why, type CheckLine, type PreflightContext } from './preflight-check.js';

export async function checkNats(ctx: PreflightContext): Promise<CheckLine[]> {
  let settings;
  try {
    settings = readNatsSettings(ctx.settings);
  } catch (e) {
    return [{ name: 'nats', ok: false, detail: why(e), fix: 'correct the nats section of the run file or the NATS_* variables' }];
  }
  const where = settings.servers.join(',');
  try {
    const bus = await connectBus({ servers: settings.servers, auth: settings.auth, name: 'owrl-preflight', timeoutMs: 5000 });
    try {
      const info = await bus.jsm.getAccountInfo();
      return [{ name: 'nats', ok: true, detail: `${where} accepts the connection (auth ${settings.auth?.kind ?? 'none'}); JetStream answers (${info.streams} streams, ${info.consumers} consumers)` }];
    } finally {
      await bus.close().catch(() => {});
    }
  } catch (e) {
    if (isBusError(e) && e.code === BusErrorCode.AuthFailed) {
      return [{ name: 'nats', ok: false, detail: why(e), fix: 'give the credentials the server expects: nats.user with nats.password_env, token_env, creds_file or nkey_seed_file (the variables they name must be set)' }];
    }
    if (/JetStream/i.test(why(e))) return [{ name: 'nats', ok: false, detail: why(e), fix: 'run nats-server with JetStream on (nats-server -js, or jetstream {} in its configuration)' }];
    return [{ name: 'nats', ok: false, detail: why(e), fix: `start nats-server with JetStream at ${where}, or correct nats.url (NATS_URL, --nats); leave nats.url out to let owrl train start one` }];
  }
}
