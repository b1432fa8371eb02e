// Offline validation of rendered Kubernetes objects against the Kubernetes and KEDA schemas
// (the validators compiled into the npm packages kubernetes-models and @kubernetes-models/keda),
// made strict: a field the schema does not define fails, as `kubectl apply --validate=strict`
// would on a cluster.
//
// The packages' validators ignore unknown fields (their schemas allow additional properties) and
// they ship compiled validation code, not JSON schemas. Strictness comes from watching the
// validator: each object is handed to it behind a Proxy that records every property the
// validator reads. A compiled schema reads each property it defines (and every key of a map such
// as labels), so a key present in the object that the validator never read is not in the schema.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

interface AjvError {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}
type ValidateFn = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

/** apiVersion/kind → the compiled schema module. Kinds not listed are refused (no silent pass). */
const SCHEMAS: Record<string, string> = {
  'v1/Namespace': 'kubernetes-models/_schemas/IoK8sApiCoreV1Namespace.js',
  'v1/ConfigMap': 'kubernetes-models/_schemas/IoK8sApiCoreV1ConfigMap.js',
  'v1/Secret': 'kubernetes-models/_schemas/IoK8sApiCoreV1Secret.js',
  'v1/Service': 'kubernetes-models/_schemas/IoK8sApiCoreV1Service.js',
  'v1/ServiceAccount': 'kubernetes-models/_schemas/IoK8sApiCoreV1ServiceAccount.js',
  'v1/PodTemplateSpec': 'kubernetes-models/_schemas/IoK8sApiCoreV1PodTemplateSpec.js',
  'v1/PersistentVolumeClaim': 'kubernetes-models/_schemas/IoK8sApiCoreV1PersistentVolumeClaim.js',
  'apps/v1/Deployment': 'kubernetes-models/_schemas/IoK8sApiAppsV1Deployment.js',
  'apps/v1/StatefulSet': 'kubernetes-models/_schemas/IoK8sApiAppsV1StatefulSet.js',
  'batch/v1/Job': 'kubernetes-models/_schemas/IoK8sApiBatchV1Job.js',
  'policy/v1/PodDisruptionBudget': 'kubernetes-models/_schemas/IoK8sApiPolicyV1PodDisruptionBudget.js',
  'networking.k8s.io/v1/NetworkPolicy': 'kubernetes-models/_schemas/IoK8sApiNetworkingV1NetworkPolicy.js',
  'keda.sh/v1alpha1/ScaledObject': '@kubernetes-models/keda/_schemas/KedaShV1alpha1ScaledObject.js',
  'keda.sh/v1alpha1/ScaledJob': '@kubernetes-models/keda/_schemas/KedaShV1alpha1ScaledJob.js',
  'keda.sh/v1alpha1/TriggerAuthentication': '@kubernetes-models/keda/_schemas/KedaShV1alpha1TriggerAuthentication.js',
};

/**
 * Trigger metadata is a free string map in KEDA's CRD; the keys each scaler accepts are in its
 * documentation (keda.sh/docs/scalers). Listed for the scalers owrl uses.
 */
const TRIGGER_METADATA: Record<string, string[]> = {
  'nats-jetstream': ['natsServerMonitoringEndpoint', 'account', 'stream', 'consumer', 'lagThreshold', 'activationLagThreshold', 'useHttps'],
};

export interface K8sObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  [k: string]: unknown;
}

function schemaFor(key: string): ValidateFn | undefined {
  const mod = SCHEMAS[key];
  if (mod === undefined) return undefined;
  // The compiled schemas are not in the packages' exports: load them by file from the package.
  const [pkg, file] = mod.startsWith('@') ? [mod.split('/').slice(0, 2).join('/'), mod.split('/').slice(2).join('/')] : [mod.split('/')[0]!, mod.split('/').slice(1).join('/')];
  const dir = path.dirname(require.resolve(`${pkg}/package.json`));
  return (require(path.join(dir, file)) as { validate: ValidateFn }).validate;
}

const esc = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');

function tracked(value: unknown, at: string, read: Set<string>): unknown {
  if (value === null || typeof value !== 'object') return value;
  return new Proxy(value, {
    get(target, key, receiver) {
      if (typeof key === 'string' && Object.prototype.hasOwnProperty.call(target, key)) {
        const p = `${at}/${esc(key)}`;
        read.add(p);
        return tracked((target as Record<string, unknown>)[key], p, read);
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

/** Paths of keys the validator never read (descendants of an unread key are not repeated). */
function unread(value: unknown, at: string, read: Set<string>, out: string[]): void {
  if (value === null || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    const p = `${at}/${esc(k)}`;
    if (!read.has(p)) out.push(p);
    else unread(v, p, read, out);
  }
}

/** Problems with one object, each naming the object and the JSON pointer; [] when valid. */
export function validateObject(obj: K8sObject): string[] {
  const id = `${obj.kind ?? '?'}/${obj.metadata?.name ?? '?'}`;
  const key = `${obj.apiVersion ?? '?'}/${obj.kind ?? '?'}`;
  const validate = schemaFor(key);
  if (validate === undefined) return [`${id}: no schema for ${key} (add it to SCHEMAS in test/deploy/k8s-schema.ts)`];
  const read = new Set<string>();
  const problems: string[] = [];
  if (!validate(tracked(obj, '', read))) {
    for (const e of validate.errors ?? []) problems.push(`${id}: ${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
  }
  // KEDA's CRD leaves a ScaledJob's pod template open (metadata is a bare object): check it
  // against the Kubernetes PodTemplateSpec as well, which is what the Job will be created from.
  const template = (obj.spec as { jobTargetRef?: { template?: unknown } } | undefined)?.jobTargetRef?.template;
  if (obj.kind === 'ScaledJob' && template !== undefined) {
    const podTemplate = schemaFor('v1/PodTemplateSpec')!;
    if (!podTemplate(tracked(template, '/spec/jobTargetRef/template', read))) {
      for (const e of podTemplate.errors ?? []) problems.push(`${id}: /spec/jobTargetRef/template${e.instancePath} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
    }
  }
  const unknown: string[] = [];
  unread(obj, '', read, unknown);
  for (const p of unknown) problems.push(`${id}: unknown field ${p}`);
  if (obj.kind === 'ScaledObject' || obj.kind === 'ScaledJob') {
    const triggers = ((obj.spec as { triggers?: { type?: string; metadata?: Record<string, unknown> }[] } | undefined)?.triggers ?? []);
    triggers.forEach((t, i) => {
      const allowed = TRIGGER_METADATA[t.type ?? ''];
      if (allowed === undefined) {
        problems.push(`${id}: /spec/triggers/${i}/type ${String(t.type)} has no metadata list in TRIGGER_METADATA`);
        return;
      }
      for (const k of Object.keys(t.metadata ?? {})) {
        if (!allowed.includes(k)) problems.push(`${id}: unknown field /spec/triggers/${i}/metadata/${esc(k)} for scaler ${String(t.type)}`);
      }
    });
  }
  return problems;
}
