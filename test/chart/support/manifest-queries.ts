import type { K8sObject } from './chart-tools';

/** Loose views of the fields the assertions read; the schemas have validated the shapes already. */
export interface ContainerView {
  name: string;
  args?: string[];
  command?: string[];
  ports?: { name: string; containerPort: number }[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
  }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe?: ProbeView;
  readinessProbe?: ProbeView;
  livenessProbe?: ProbeView;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[] } };
  volumeMounts?: { name: string; mountPath: string }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

export interface ProbeView {
  httpGet?: { path: string; port: string | number };
  tcpSocket?: unknown;
  exec?: unknown;
}

export interface PodSpecView {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  terminationGracePeriodSeconds?: number;
  securityContext?: Record<string, unknown>;
  containers: ContainerView[];
  volumes?: { name: string; emptyDir?: unknown; projected?: unknown }[];
  initContainers?: ContainerView[];
  affinity?: Record<string, unknown>;
  topologySpreadConstraints?: {
    topologyKey: string;
    labelSelector: { matchLabels: Record<string, string> };
  }[];
}

export function podTemplate(obj: K8sObject): { labels: Record<string, string>; spec: PodSpecView } {
  const spec = obj.spec as {
    template?: { metadata: { labels: Record<string, string> }; spec: PodSpecView };
  } & PodSpecView;
  if (obj.kind === 'Pod') return { labels: obj.metadata.labels ?? {}, spec };
  if (!spec.template) throw new Error(`${obj.kind} ${obj.metadata.name} has no pod template`);
  return { labels: spec.template.metadata.labels, spec: spec.template.spec };
}

/** The pod's only container, or (next to sidecars) the one named after its component. */
export function mainContainer(obj: K8sObject): ContainerView {
  const { labels, spec } = podTemplate(obj);
  if (spec.containers.length === 1) return spec.containers[0];
  const main = spec.containers.find((c) => c.name === labels['app.kubernetes.io/component']);
  if (!main) throw new Error(`${obj.metadata.name}: no container named after its component`);
  return main;
}

export function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
}

export function envNamed(container: ContainerView, name: string) {
  return container.env?.find((e) => e.name === name);
}

export function configMapData(objects: readonly K8sObject[]): Record<string, string> {
  const configMap = objects.find((o) => o.kind === 'ConfigMap');
  return (configMap?.data as Record<string, string> | undefined) ?? {};
}
