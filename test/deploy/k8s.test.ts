// deploy/k8s: every variant rendered by kustomize (kubectl's built-in), every object validated
// offline against the Kubernetes and KEDA schemas with unknown fields failing, and the properties
// the deployment relies on checked object by object. Also proves that a misspelt field fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { DEFAULTS } from '@owrl/core';
import { CONSUMER_ACTORS, resolveTopology, STREAM_TASKS } from '@owrl/bus';
import { validateObject, type K8sObject } from './k8s-schema.js';
import { parseRunFile } from '@owrl/run-file';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const K8S = path.join(ROOT, 'deploy', 'k8s');

/* eslint-disable @typescript-eslint/no-explicit-any -- walking parsed YAML */
type Obj = K8sObject & { spec?: any };

function kustomizeCommand(): string[] | null {
  for (const cmd of [['kubectl', 'kustomize'], ['kustomize', 'build']]) {
    if (spawnSync(cmd[0]!, ['version', ...(cmd[0] === 'kubectl' ? ['--client'] : [])], { stdio: 'ignore' }).status === 0) return cmd;
  }
  return null;
}
const KUSTOMIZE = kustomizeCommand();
const skip = KUSTOMIZE === null ? 'neither kubectl nor kustomize is on PATH (needed to render deploy/k8s)' : false;

/** Renders deploy/k8s (copied, with the git-ignored control-token.env and nats-auth.env filled in) with components. */
const rendered = new Map<string, Obj[]>();
function render(components: string[] = []): Obj[] {
  const key = components.join(',');
  if (!rendered.has(key)) rendered.set(key, renderNow(components));
  return structuredClone(rendered.get(key)!);
}
function renderNow(components: string[]): Obj[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-k8s-'));
  try {
    fs.cpSync(K8S, dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'control-token.env'), 'OWRL_CONTROL_TOKEN=test-token\n');
    fs.writeFileSync(path.join(dir, 'nats-auth.env'), 'NATS_USER=owrl\nNATS_PASSWORD=owrl-test-password\n');
    if (components.length > 0) {
      const k = path.join(dir, 'kustomization.yaml');
      fs.appendFileSync(k, `components:\n${components.map((c) => `  - components/${c}\n`).join('')}`);
    }
    const out = execFileSync(KUSTOMIZE![0]!, [KUSTOMIZE![1]!, dir], { encoding: 'utf8' });
    return parseAllDocuments(out).map((d) => d.toJS() as Obj);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const find = (objs: Obj[], kind: string, name: string): Obj => {
  const o = objs.find((x) => x.kind === kind && x.metadata?.name === name);
  assert.ok(o, `${kind}/${name} is rendered`);
  return o;
};
const envOf = (c: any): Record<string, string> => Object.fromEntries((c.env ?? []).filter((e: any) => 'value' in e).map((e: any) => [e.name, e.value]));
const podSpec = (o: Obj): any => (o.kind === 'ScaledJob' ? o.spec.jobTargetRef.template.spec : o.spec.template.spec);

function assertValid(objs: Obj[]): void {
  const problems = objs.flatMap((o) => validateObject(o));
  assert.deepEqual(problems, [], problems.join('\n'));
}

void test('deploy/k8s renders and every object is valid, unknown fields included', { skip }, () => {
  const variants: [string, string[]][] = [['default', []], ['judge-gpu', ['judge-gpu']], ['rollout-isolation', ['rollout-isolation']], ['both', ['judge-gpu', 'rollout-isolation']]];
  for (const [name, comps] of variants) {
    const objs = render(comps);
    assert.ok(objs.length >= 10, `${name}: ${objs.length} objects`);
    assertValid(objs);
    for (const o of objs) if (o.kind !== 'Namespace') assert.equal(o.metadata?.namespace, 'owrl', `${o.kind}/${o.metadata?.name} namespace`);
  }
});

void test('a misspelt or unknown field fails validation, in Kubernetes and KEDA objects', { skip }, () => {
  const objs = render(['rollout-isolation']);
  const learner = structuredClone(find(objs, 'Deployment', 'learner'));
  learner.spec.template.spec.terminationGracePeriodSecond = 60;
  learner.spec.template.spec.containers[0].resource = { limits: { cpu: '1' } };
  const problems = validateObject(learner);
  assert.ok(problems.some((p) => p.includes('/spec/template/spec/terminationGracePeriodSecond')), problems.join('\n'));
  assert.ok(problems.some((p) => p.includes('/spec/template/spec/containers/0/resource')), problems.join('\n'));

  const job = structuredClone(find(objs, 'ScaledJob', 'actor-rollout'));
  job.spec.jobTargetRef.activeDeadlineSecond = 1;
  job.spec.triggers[0].metadata.lagTreshold = '1';
  job.spec.jobTargetRef.template.spec.containers[0].imagePullPolice = 'Always';
  const jobProblems = validateObject(job);
  assert.ok(jobProblems.some((p) => p.includes('/spec/jobTargetRef/activeDeadlineSecond')), jobProblems.join('\n'));
  assert.ok(jobProblems.some((p) => p.includes('/spec/triggers/0/metadata/lagTreshold')), jobProblems.join('\n'));
  assert.ok(jobProblems.some((p) => p.includes('/spec/jobTargetRef/template/spec/containers/0/imagePullPolice')), jobProblems.join('\n'));

  // Wrong types and missing required fields fail too (the packages' own checks).
  const svc = structuredClone(find(objs, 'Service', 'learner'));
  svc.spec.ports[0].port = 'fifty';
  assert.ok(validateObject(svc).some((p) => p.includes('/spec/ports/0/port')));
  const unknownKind = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
  assert.ok(validateObject(unknownKind)[0]?.includes('no schema'));
});

void test('actors: resources per slot, in-memory /dev/shm, grace above the episode time, KEDA sized to slots', { skip }, () => {
  const objs = render();
  const actor = find(objs, 'Deployment', 'actor');
  assert.equal(actor.spec.replicas, undefined, 'KEDA owns the replica count');
  const spec = podSpec(actor);
  const c = spec.containers[0];
  const slots = Number(envOf(c).OWRL_SLOTS);
  assert.ok(slots >= 1);
  assert.ok(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory, 'requests and limits');
  const shm = spec.volumes.find((v: any) => v.name === c.volumeMounts.find((m: any) => m.mountPath === '/dev/shm')?.name);
  assert.equal(shm?.emptyDir?.medium, 'Memory', '/dev/shm is memory-backed');
  const episodeS = DEFAULTS.timeouts.taskMs / 1000;
  assert.ok(spec.terminationGracePeriodSeconds > episodeS, `grace ${spec.terminationGracePeriodSeconds} s > task timeout ${episodeS} s`);
  assert.ok(spec.securityContext.runAsNonRoot);
  assert.equal(c.command, undefined, 'the image entrypoint (tini) stays PID 1 and forwards SIGTERM');

  const so = find(objs, 'ScaledObject', 'actor');
  assert.equal(so.spec.scaleTargetRef.name, 'actor');
  const trig = so.spec.triggers[0];
  assert.equal(trig.type, 'nats-jetstream');
  assert.equal(trig.metadata.stream, STREAM_TASKS);
  assert.equal(trig.metadata.consumer, 'actors');
  assert.equal(Number(trig.metadata.lagThreshold) % slots, 0, 'lag threshold sized to slots per actor');
  const maxAckPending = resolveTopology().consumers.find((x) => x.config.durable_name === CONSUMER_ACTORS)!.config.max_ack_pending!;
  assert.ok(so.spec.maxReplicaCount * slots <= maxAckPending, `${so.spec.maxReplicaCount} replicas × ${slots} slots fit max_ack_pending ${maxAckPending}`);

  const iso = render(['rollout-isolation']);
  assert.ok(!iso.some((o) => o.kind === 'Deployment' && o.metadata?.name === 'actor'), 'isolation mode has no long-lived actors');
  assert.ok(!iso.some((o) => o.kind === 'ScaledObject'));
  const job = find(iso, 'ScaledJob', 'actor-rollout');
  const jc = podSpec(job).containers[0];
  assert.equal(envOf(jc).OWRL_SLOTS, '1');
  assert.equal(envOf(jc).OWRL_MAX_EPISODES, '1');
  assert.equal(podSpec(job).restartPolicy, 'Never');
  assert.equal(job.spec.triggers[0].type, 'nats-jetstream');
  assert.equal(job.spec.triggers[0].metadata.lagThreshold, '1');
  assert.equal(job.spec.jobTargetRef.template.metadata.labels['app.kubernetes.io/name'], 'actor', 'fenced by actor-egress');
  assert.ok(job.spec.maxReplicaCount <= maxAckPending);
});

void test('judge on GPU nodes with its model volume; learner on persistent storage', { skip }, () => {
  const objs = render(['judge-gpu']);
  const judge = podSpec(find(objs, 'Deployment', 'judge'));
  assert.equal(judge.nodeSelector['nvidia.com/gpu.present'], 'true');
  const jc = judge.containers[0];
  assert.equal(jc.resources.limits['nvidia.com/gpu'], 1);
  const modelMount = jc.volumeMounts.find((m: any) => envOf(jc).OWRL_JUDGE_MODEL?.startsWith(m.mountPath));
  assert.ok(modelMount, 'OWRL_JUDGE_MODEL lies on a mounted volume');
  const vol = judge.volumes.find((v: any) => v.name === modelMount.name);
  find(objs, 'PersistentVolumeClaim', vol.persistentVolumeClaim.claimName);

  const learner = find(objs, 'Deployment', 'learner');
  assert.equal(learner.spec.replicas, 1);
  assert.equal(learner.spec.strategy.type, 'Recreate');
  const ls = podSpec(learner);
  const dataDir = envOf(ls.containers[0]).OWRL_DATA_DIR!;
  const m = ls.containers[0].volumeMounts.find((x: any) => dataDir.startsWith(x.mountPath));
  assert.ok(m, 'OWRL_DATA_DIR lies on a mounted volume');
  const lv = ls.volumes.find((v: any) => v.name === m.name);
  find(objs, 'PersistentVolumeClaim', lv.persistentVolumeClaim.claimName);
});

void test('network policies keep browsers away from in-cluster services', { skip }, () => {
  const objs = render(['rollout-isolation']);
  const egress = find(objs, 'NetworkPolicy', 'actor-egress');
  assert.deepEqual(egress.spec.podSelector.matchLabels, { 'app.kubernetes.io/name': 'actor' });
  for (const rule of egress.spec.egress) {
    for (const peer of rule.to ?? []) {
      if (peer.ipBlock) {
        for (const cidr of ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '127.0.0.0/8', '100.64.0.0/10']) {
          if (peer.ipBlock.cidr === '0.0.0.0/0') assert.ok(peer.ipBlock.except.includes(cidr), `public egress excludes ${cidr}`);
        }
      } else {
        // In-cluster peers only on the ports actors need: NATS, artifacts, sites.
        for (const p of rule.ports) assert.ok([4222, 8401, 8400].includes(p.port), `in-cluster egress port ${p.port}`);
      }
    }
    if (!rule.to) for (const p of rule.ports) assert.equal(p.port, 53, 'only DNS is open to any peer');
  }
  const learnerIn = find(objs, 'NetworkPolicy', 'learner-ingress');
  for (const rule of learnerIn.spec.ingress) {
    const fromActors = rule.from.some((f: any) => f.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'actor');
    if (fromActors) assert.deepEqual(rule.ports.map((p: any) => p.port), [8401], 'actors reach only the artifact port');
    else for (const f of rule.from) assert.deepEqual(f.podSelector.matchExpressions[0].values, ['actor']);
  }
  find(objs, 'NetworkPolicy', 'judge-ingress');
});

void test('console: runs the console entry point against the learner Service, with the control token, exposed by its Service, closed to actors', { skip }, () => {
  const objs = render();
  const dep = find(objs, 'Deployment', 'console');
  const c = podSpec(dep).containers[0];
  assert.deepEqual(c.args, ['services/console/dist/src/main.js']);
  assert.ok(fs.existsSync(path.join(ROOT, 'services/console/src/main.ts')), 'the entry point is the console service');
  const env = envOf(c);
  const [host, port] = env.OWRL_LEARNER!.split(':');
  const learnerSvc = find(objs, 'Service', host!);
  assert.ok(learnerSvc.spec.ports.some((p: any) => p.port === Number(port) && p.name === 'grpc'), `OWRL_LEARNER ${env.OWRL_LEARNER} is the learner's gRPC port`);
  assert.equal(env.OWRL_CONSOLE_HOST, '0.0.0.0');
  assert.equal(c.env.find((e: any) => e.name === 'OWRL_CONTROL_TOKEN')?.valueFrom?.secretKeyRef?.key, 'OWRL_CONTROL_TOKEN');
  const http = c.ports.find((p: any) => p.containerPort === Number(env.OWRL_CONSOLE_PORT));
  assert.ok(http, 'the container port is OWRL_CONSOLE_PORT');
  assert.equal(c.readinessProbe.httpGet.port, http.name);
  const svc = find(objs, 'Service', 'console');
  assert.deepEqual(svc.spec.selector, dep.spec.selector.matchLabels);
  assert.equal(dep.spec.template.metadata.labels['app.kubernetes.io/name'], 'console');
  assert.ok(svc.spec.ports.some((p: any) => p.targetPort === http.name));
  const pol = find(objs, 'NetworkPolicy', 'console-ingress');
  for (const rule of pol.spec.ingress) for (const f of rule.from) assert.deepEqual(f.podSelector.matchExpressions[0], { key: 'app.kubernetes.io/name', operator: 'NotIn', values: ['actor'] });
});

void test('NATS Helm values: JetStream on a volume, 3 replicas, fsync always', () => {
  const v = parse(fs.readFileSync(path.join(K8S, 'nats-values.yaml'), 'utf8')) as any;
  assert.equal(v.config.cluster.enabled, true);
  assert.equal(v.config.cluster.replicas, 3);
  assert.equal(v.config.jetstream.enabled, true);
  assert.equal(v.config.jetstream.fileStore.pvc.enabled, true);
  assert.equal(v.config.jetstream.merge.sync_interval, 'always');
  assert.equal(v.config.monitor.enabled, true);
  assert.equal(v.service.ports.monitor.enabled, true, 'KEDA reads the monitoring port through the Service');
});

/** Whether the service a container runs uses NATS: its main does not say `bus: false`. */
function usesBus(c: any): boolean {
  const main = (c.args ?? []).find((a: string) => /^services\/[^/]+\/dist\/src\/main\.js$/.test(a));
  assert.ok(main, `container ${c.name} runs a service main (args ${JSON.stringify(c.args)})`);
  const src = path.join(ROOT, main.replace('/dist/src/main.js', '/src/main.ts'));
  return !/\bbus:\s*false\b/.test(fs.readFileSync(src, 'utf8'));
}

/**
 * Problems with the NATS login of the workloads in `objs`: every container of a service that uses
 * the bus must get NATS_USER and NATS_PASSWORD from a key of a rendered Secret that holds it.
 */
function natsAuthProblems(objs: Obj[]): string[] {
  const problems: string[] = [];
  const secrets = new Map(objs.filter((o) => o.kind === 'Secret').map((o) => [o.metadata!.name!, (o as any).data ?? {}]));
  for (const o of objs.filter((x) => ['Deployment', 'ScaledJob', 'StatefulSet', 'Job'].includes(x.kind ?? ''))) {
    for (const c of podSpec(o).containers) {
      if (!usesBus(c)) continue;
      for (const name of ['NATS_USER', 'NATS_PASSWORD']) {
        const ref = (c.env ?? []).find((e: any) => e.name === name)?.valueFrom?.secretKeyRef;
        const where = `${o.kind}/${o.metadata?.name} container ${c.name}: ${name}`;
        if (!ref) problems.push(`${where} is not set from a Secret (secretKeyRef)`);
        else if (!secrets.has(ref.name)) problems.push(`${where} refers to Secret ${ref.name}, which is not rendered`);
        else if (!(ref.key in secrets.get(ref.name))) problems.push(`${where} refers to key ${ref.key}, missing in Secret ${ref.name}`);
      }
    }
  }
  return problems;
}

void test('NATS login: every service that uses NATS gets NATS_USER/NATS_PASSWORD from the Secret the NATS values read', { skip }, () => {
  const values = parse(fs.readFileSync(path.join(K8S, 'nats-values.yaml'), 'utf8')) as any;
  const serverEnv = values.container.env;
  const users = values.config.merge.authorization.users;
  assert.equal(users.length, 1);
  // The server's user and password are the variables its container gets from the same Secret keys.
  const serverRef = (v: string): any => serverEnv[/^<< \$(\w+) >>$/.exec(v)?.[1] ?? '']?.valueFrom?.secretKeyRef;
  assert.deepEqual(serverRef(users[0].user), { name: 'owrl-nats', key: 'NATS_USER' }, `server user ${users[0].user}`);
  assert.deepEqual(serverRef(users[0].password), { name: 'owrl-nats', key: 'NATS_PASSWORD' }, `server password ${users[0].password}`);
  const clients: string[] = [];
  for (const comps of [[], ['judge-gpu'], ['rollout-isolation'], ['judge-gpu', 'rollout-isolation']]) {
    const objs = render(comps);
    assert.deepEqual(natsAuthProblems(objs), [], `variant [${comps.join(', ')}]`);
    const secret = find(objs, 'Secret', 'owrl-nats') as any;
    assert.deepEqual(Object.keys(secret.data).sort(), ['NATS_PASSWORD', 'NATS_USER']);
    for (const o of objs.filter((x) => ['Deployment', 'ScaledJob'].includes(x.kind ?? ''))) {
      for (const c of podSpec(o).containers) {
        if (!usesBus(c)) continue;
        clients.push(`${o.kind}/${o.metadata?.name}`);
        for (const e of c.env.filter((x: any) => x.name.startsWith('NATS_'))) assert.equal(e.value, undefined, `${e.name} has no literal value`);
      }
    }
  }
  for (const w of ['Deployment/learner', 'Deployment/judge', 'Deployment/actor', 'Deployment/console', 'ScaledJob/actor-rollout']) assert.ok(clients.includes(w), `${w} is checked`);
  assert.ok(!clients.includes('Deployment/sites'), 'the sites do not use NATS');

  // A service without the credentials, or with a key the Secret lacks, fails the check.
  const objs = render(['rollout-isolation']);
  const learner = find(objs, 'Deployment', 'learner');
  const lc = podSpec(learner).containers[0];
  lc.env = lc.env.filter((e: any) => e.name !== 'NATS_PASSWORD');
  const job = find(objs, 'ScaledJob', 'actor-rollout');
  podSpec(job).containers[0].env.find((e: any) => e.name === 'NATS_USER').valueFrom.secretKeyRef.key = 'USER';
  const problems = natsAuthProblems(objs);
  assert.ok(problems.some((p) => p.startsWith('Deployment/learner container learner: NATS_PASSWORD is not set')), problems.join('\n'));
  assert.ok(problems.some((p) => p.startsWith('ScaledJob/actor-rollout container actor: NATS_USER refers to key USER')), problems.join('\n'));
  assert.equal(problems.length, 2, problems.join('\n'));
});

void test('one run file: the ConfigMap owrl-run holds deploy/k8s/run.yaml, valid, and every owrl pod mounts it where OWRL_RUN_FILE points', { skip }, () => {
  for (const components of [[], ['rollout-isolation'], ['judge-gpu']]) {
    const objs = render(components);
    const common = find(objs, 'ConfigMap', 'owrl-common') as any;
    const file: string = common.data.OWRL_RUN_FILE;
    assert.equal(file, '/etc/owrl/run.yaml');
    const cm = find(objs, 'ConfigMap', 'owrl-run') as any;
    const run = parseRunFile(cm.data['run.yaml'], 'deploy/k8s/run.yaml').run;
    assert.equal(run.tasks.sites_url, 'http://sites:8400');
    const pods = objs.filter((o) => ['Deployment', 'ScaledJob'].includes(o.kind ?? ''));
    const readers = pods.filter((o) => podSpec(o).containers.some((c: any) => (c.envFrom ?? []).some((e: any) => e.configMapRef?.name === 'owrl-common')));
    assert.ok(readers.length >= 4, `owrl pods: ${readers.map((o) => o.metadata?.name).join(', ')}`);
    for (const o of readers) {
      const spec = podSpec(o);
      const vol = (spec.volumes ?? []).find((v: any) => v.configMap?.name === 'owrl-run');
      assert.ok(vol, `${o.kind}/${o.metadata?.name} has the run file's volume`);
      for (const c of spec.containers) {
        const m = (c.volumeMounts ?? []).find((x: any) => x.name === vol.name);
        assert.ok(m && path.join(m.mountPath, 'run.yaml') === file && m.readOnly === true, `${o.metadata?.name}/${c.name} mounts it at ${path.dirname(file)}, read-only`);
        for (const k of ['OWRL_ROUNDS', 'OWRL_GROUP_SIZE', 'OWRL_CURRICULUM', 'OWRL_ALLOW_HOSTS', 'OWRL_RUN_ID']) assert.ok(!(k in envOf(c)), `${o.metadata?.name}: ${k} lives in the run file`);
      }
    }
  }
});
