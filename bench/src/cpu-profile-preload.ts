// Preloaded into a service (`node --import <this file>`, set through NODE_OPTIONS by the fleet
// bench when OWRL_BENCH_LEARNER_PROFILE is set): records a V8 CPU profile of the process from
// OWRL_PROFILE_START_S seconds after start for OWRL_PROFILE_DURATION_S seconds and writes it to
// OWRL_PROFILE_DIR as <pid>.cpuprofile (open it in Chrome DevTools or `bench/dist/src/profile-top.js`);
// a worker thread (NODE_OPTIONS reaches those too: the learner's update thread) as
// <pid>-t<thread id>.cpuprofile. node refuses --cpu-prof in NODE_OPTIONS, hence the inspector session.
import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector';
import { isMainThread, threadId } from 'node:worker_threads';

const dir = process.env['OWRL_PROFILE_DIR'];
if (dir) {
  const startS = Number(process.env['OWRL_PROFILE_START_S'] ?? '0');
  const durationS = Number(process.env['OWRL_PROFILE_DURATION_S'] ?? '30');
  const session = new Session();
  session.connect();
  const post = (method: string, params: object = {}): Promise<unknown> =>
    new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  setTimeout(() => {
    void (async () => {
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 1000 });
      await post('Profiler.start');
      setTimeout(() => {
        void (async () => {
          const res = (await post('Profiler.stop')) as { profile: unknown };
          fs.mkdirSync(dir, { recursive: true });
          fs.writeFileSync(path.join(dir, isMainThread ? `${process.pid}.cpuprofile` : `${process.pid}-t${threadId}.cpuprofile`), JSON.stringify(res.profile));
          process.stderr.write(`cpu profile written to ${dir}\n`);
        })();
      }, durationS * 1000).unref();
    })();
  }, startS * 1000).unref();
}
