import { resolve } from 'node:path';
import * as ts from 'typescript';
import { z } from 'zod';
import { ConfigMap, Namespace, Pod, Service, ServiceAccount } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ROOT, type K8sObject } from './chart-tools';

interface BuiltInModel {
  /** Module and interface used by the excess-property check. */
  readonly typeModule: string;
  readonly typeName: string;
  validate(obj: K8sObject): void;
}

const builtIn = (
  Model: new (data: never) => { validate(): void },
  typeModule: string,
  typeName: string,
): BuiltInModel => ({
  typeModule,
  typeName,
  validate: (obj) => new Model(obj as never).validate(),
});

/** Every built-in kind the chart renders, keyed by apiVersion/kind. */
const BUILT_IN: Record<string, BuiltInModel> = {
  'v1/ConfigMap': builtIn(ConfigMap, 'kubernetes-models/v1/ConfigMap', 'IConfigMap'),
  'v1/Namespace': builtIn(Namespace, 'kubernetes-models/v1/Namespace', 'INamespace'),
  'v1/Pod': builtIn(Pod, 'kubernetes-models/v1/Pod', 'IPod'),
  'v1/Service': builtIn(Service, 'kubernetes-models/v1/Service', 'IService'),
  'v1/ServiceAccount': builtIn(ServiceAccount, 'kubernetes-models/v1/ServiceAccount', 'IServiceAccount'),
  'apps/v1/Deployment': builtIn(Deployment, 'kubernetes-models/apps/v1/Deployment', 'IDeployment'),
  'autoscaling/v2/HorizontalPodAutoscaler': builtIn(
    HorizontalPodAutoscaler,
    'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
    'IHorizontalPodAutoscaler',
  ),
  'batch/v1/Job': builtIn(Job, 'kubernetes-models/batch/v1/Job', 'IJob'),
  'networking.k8s.io/v1/Ingress': builtIn(
    Ingress,
    'kubernetes-models/networking.k8s.io/v1/Ingress',
    'IIngress',
  ),
  'networking.k8s.io/v1/NetworkPolicy': builtIn(
    NetworkPolicy,
    'kubernetes-models/networking.k8s.io/v1/NetworkPolicy',
    'INetworkPolicy',
  ),
  'policy/v1/PodDisruptionBudget': builtIn(
    PodDisruptionBudget,
    'kubernetes-models/policy/v1/PodDisruptionBudget',
    'IPodDisruptionBudget',
  ),
};

/**
 * CRDs have no model in kubernetes-models: their shape is checked against the fields of the
 * Prometheus Operator and KEDA CRDs that the chart uses, and of the CloudNativePG Cluster that
 * deploy/ uses (strict, so a misspelt field fails).
 */
const metadata = z.object({ name: z.string().min(1), labels: z.record(z.string(), z.string()) }).strict();
const matchLabels = z.object({ matchLabels: z.record(z.string(), z.string()) }).strict();
const CUSTOM: Record<string, z.ZodType> = {
  'monitoring.coreos.com/v1/ServiceMonitor': z
    .object({
      apiVersion: z.literal('monitoring.coreos.com/v1'),
      kind: z.literal('ServiceMonitor'),
      metadata,
      spec: z
        .object({
          selector: matchLabels,
          endpoints: z
            .array(
              z
                .object({
                  port: z.string().min(1),
                  path: z.string().startsWith('/'),
                  interval: z.string().regex(/^\d+(ms|s|m|h)$/),
                  scrapeTimeout: z.string().regex(/^\d+(ms|s|m|h)$/),
                  authorization: z
                    .object({
                      type: z.literal('Bearer'),
                      credentials: z.object({ name: z.string().min(1), key: z.string().min(1) }).strict(),
                    })
                    .strict()
                    .optional(),
                })
                .strict(),
            )
            .min(1),
        })
        .strict(),
    })
    .strict(),
  'keda.sh/v1alpha1/ScaledObject': z
    .object({
      apiVersion: z.literal('keda.sh/v1alpha1'),
      kind: z.literal('ScaledObject'),
      metadata,
      spec: z
        .object({
          scaleTargetRef: z.object({ name: z.string().min(1) }).strict(),
          minReplicaCount: z.number().int().min(0),
          maxReplicaCount: z.number().int().min(1),
          pollingInterval: z.number().int().min(1),
          cooldownPeriod: z.number().int().min(0),
          triggers: z
            .array(
              z
                .object({
                  type: z.literal('redis'),
                  metadata: z
                    .object({
                      address: z.string().regex(/^[^:/]+:\d+$/),
                      listName: z.string().min(1),
                      listLength: z.string().regex(/^\d+$/),
                      enableTLS: z.enum(['true', 'false']),
                    })
                    .strict(),
                  authenticationRef: z
                    .object({ name: z.string().min(1) })
                    .strict()
                    .optional(),
                })
                .strict(),
            )
            .min(1),
        })
        .strict(),
    })
    .strict(),
  'keda.sh/v1alpha1/TriggerAuthentication': z
    .object({
      apiVersion: z.literal('keda.sh/v1alpha1'),
      kind: z.literal('TriggerAuthentication'),
      metadata,
      spec: z
        .object({
          secretTargetRef: z
            .array(z.object({ parameter: z.string(), name: z.string(), key: z.string() }).strict())
            .min(1),
        })
        .strict(),
    })
    .strict(),
  // deploy/cloudnative-pg/cluster.yaml: the CloudNativePG fields the example sets.
  'postgresql.cnpg.io/v1/Cluster': z
    .object({
      apiVersion: z.literal('postgresql.cnpg.io/v1'),
      kind: z.literal('Cluster'),
      metadata: z
        .object({
          name: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/),
          labels: z.record(z.string(), z.string()).optional(),
        })
        .strict(),
      spec: z
        .object({
          instances: z.number().int().min(1),
          // The operator reads the major version from the tag.
          imageName: z.string().regex(/^[^:@]+:\d+(\.\d+)?[^:@]*(@sha256:[a-f0-9]{64})?$/),
          postgresql: z
            .object({ parameters: z.record(z.string(), z.string()) })
            .strict()
            .optional(),
          bootstrap: z
            .object({
              initdb: z
                .object({
                  database: z.string().min(1),
                  owner: z.string().min(1),
                  postInitApplicationSQL: z.array(z.string().min(1)).optional(),
                })
                .strict(),
            })
            .strict(),
          storage: z.object({ size: z.string().regex(/^\d+(Mi|Gi|Ti)$/) }).strict(),
          affinity: z
            .object({ enablePodAntiAffinity: z.boolean(), topologyKey: z.string().min(1) })
            .strict()
            .optional(),
        })
        .strict(),
    })
    .strict(),
};

const keyOf = (obj: K8sObject) => `${obj.apiVersion}/${obj.kind}`;

/**
 * Validates each object offline: built-in kinds with kubernetes-models' JSON-schema validators
 * (types, enums, required fields), CRDs with the strict shapes above. Returns the problems found.
 */
export function validateObjects(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const obj of objects) {
    const where = `${keyOf(obj)} ${obj.metadata?.name}`;
    try {
      const model = BUILT_IN[keyOf(obj)];
      const custom = CUSTOM[keyOf(obj)];
      if (model) model.validate(obj);
      else if (custom) custom.parse(obj);
      else problems.push(`${where}: no schema known for this kind`);
    } catch (error) {
      problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return problems;
}

/**
 * kubernetes-models' validators accept unknown fields, so a misspelt `readinesProbe` would pass.
 * Type-checking each object as an object literal of its kubernetes-models interface catches
 * those at any depth (TypeScript's excess-property check). Returns the compiler's messages.
 */
export function findUnknownFields(objects: readonly K8sObject[]): string[] {
  const builtIns = objects.filter((obj) => BUILT_IN[keyOf(obj)]);
  const fileName = resolve(ROOT, 'test/chart/__rendered-manifests__.ts');
  const imports = [...new Set(builtIns.map((obj) => BUILT_IN[keyOf(obj)]))].map(
    (m) => `import type { ${m.typeName} } from '${m.typeModule}';`,
  );
  const consts = builtIns.map(
    (obj, i) =>
      `// ${keyOf(obj)} ${obj.metadata.name}\nexport const m${i}: ${BUILT_IN[keyOf(obj)].typeName} = ${JSON.stringify(obj, null, 1)};`,
  );
  const source = [...imports, ...consts].join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => name === fileName || fileExists(name);
  host.readFile = (name) => (name === fileName ? source : readFile(name));
  host.getSourceFile = (name, language, ...rest) =>
    name === fileName
      ? ts.createSourceFile(name, source, language, true)
      : getSourceFile(name, language, ...rest);
  const program = ts.createProgram([fileName], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return message;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    const owner = source
      .split('\n')
      .slice(0, line + 1)
      .reverse()
      .find((l) => l.startsWith('// '));
    return `${owner?.slice(3) ?? d.file.fileName}: ${message}`;
  });
}
