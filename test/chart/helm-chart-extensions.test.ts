import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CHART_DIR, find, helm, k8sTools, only, parseManifests, renderChart } from './support/chart-tools';
import { envNamed, mainContainer, podTemplate } from './support/manifest-queries';

const COMPONENTS = ['api', 'worker'] as const;
const EXTRAS = 'helm/memory-service/ci/extras-values.yaml';

interface ServicePort {
  name: string;
  port: number;
  targetPort: string;
}
interface Endpoint {
  port: string;
  path: string;
  authorization?: { type: string; credentials: { name: string; key: string } };
}
type Rule = { ports: { port: string }[]; from?: unknown[] };

const servicePorts = (objects: ReturnType<typeof renderChart>) =>
  (only(objects, 'Service', '-api').spec as { ports: ServicePort[] }).ports;
const endpoints = (objects: ReturnType<typeof renderChart>, component: string) =>
  (only(objects, 'ServiceMonitor', `-${component}`).spec as { endpoints: Endpoint[] }).endpoints;

describe('Helm chart: /metrics out of the Ingress, pod extensions, use as a dependency', () => {
  beforeAll(() => {
    k8sTools();
  }, 360_000);

  it('by default the API serves /metrics on its own port, which the Ingress does not route', () => {
    const objects = renderChart({ set: ['api.ingress.enabled=true'] });
    const api = mainContainer(only(objects, 'Deployment', '-api'));
    expect(envNamed(api, 'METRICS_PORT')?.value).toBe('9090');
    expect(api.ports).toEqual([
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
    ]);
    expect(servicePorts(objects).map((p) => [p.name, p.targetPort])).toEqual([
      ['http', 'http'],
      ['metrics', 'metrics'],
    ]);
    const ingress = only(objects, 'Ingress').spec as {
      rules: { http: { paths: { backend: { service: { port: { name: string } } } }[] } }[];
    };
    const backends = ingress.rules.flatMap((r) => r.http.paths.map((p) => p.backend.service.port.name));
    expect(new Set(backends)).toEqual(new Set(['http']));
  });

  it('metrics.port 0 serves /metrics on the HTTP port, and the ServiceMonitor scrapes it there', () => {
    const objects = renderChart({ set: ['metrics.port=0', 'serviceMonitor.enabled=true'] });
    const api = mainContainer(only(objects, 'Deployment', '-api'));
    expect(envNamed(api, 'METRICS_PORT')?.value).toBe('0');
    expect(api.ports?.map((p) => p.name)).toEqual(['http']);
    expect(servicePorts(objects).map((p) => p.name)).toEqual(['http']);
    expect(endpoints(objects, 'api')).toMatchObject([{ port: 'http', path: '/metrics' }]);
    expect(endpoints(objects, 'api')[0].authorization).toBeUndefined();
  });

  describe('ci/extras-values.yaml', () => {
    let objects: ReturnType<typeof renderChart>;
    beforeAll(() => {
      objects = renderChart({ valuesFiles: [EXTRAS] });
    });

    it('ServiceMonitors and scrape annotations follow METRICS_PORT and send METRICS_TOKEN', () => {
      expect(endpoints(objects, 'api')).toEqual([
        expect.objectContaining({
          port: 'metrics',
          authorization: { type: 'Bearer', credentials: { name: 'memsvc-metrics', key: 'token' } },
        }),
      ]);
      expect(endpoints(objects, 'worker')).toEqual([
        expect.objectContaining({
          port: 'health',
          authorization: { type: 'Bearer', credentials: { name: 'memsvc-metrics', key: 'token' } },
        }),
      ]);
      const ports = { api: '9102', worker: '9464' };
      for (const component of COMPONENTS) {
        const dep = only(objects, 'Deployment', `-${component}`);
        const annotations = (dep.spec as { template: { metadata: { annotations: Record<string, string> } } })
          .template.metadata.annotations;
        expect(annotations).toMatchObject({
          'prometheus.io/scrape': 'true',
          'prometheus.io/port': ports[component],
          'prometheus.io/path': '/metrics',
          'example.com/owner': 'platform',
        });
        // The pods read the token from the same Secret the ServiceMonitors send it from; it is required.
        expect(envNamed(mainContainer(dep), 'METRICS_TOKEN')?.valueFrom?.secretKeyRef).toEqual({
          name: 'memsvc-metrics',
          key: 'token',
        });
      }
    });

    it.each(COMPONENTS)(
      '%s: extra envFrom, volumes, mounts, init containers, sidecars and labels',
      (component) => {
        const dep = only(objects, 'Deployment', `-${component}`);
        const { labels, spec } = podTemplate(dep);
        const main = mainContainer(dep);
        expect(labels['cost-center']).toBe('platform-42');
        expect(dep.metadata.labels?.['cost-center']).toBe('platform-42');
        expect(main.name).toBe(component);
        expect(main.envFrom?.[0].configMapRef?.name).toBe('memsvc-memory-service-config');
        expect(main.envFrom).toHaveLength(2);
        expect(spec.volumes?.map((v) => v.name)).toEqual(expect.arrayContaining(['tmp', 'corp-ca']));
        expect(main.volumeMounts).toContainEqual({
          name: 'corp-ca',
          mountPath: '/etc/ssl/corp',
          readOnly: true,
        });
        expect(spec.initContainers?.map((c) => c.name)).toEqual(['wait-for-proxy']);
        expect(spec.containers.map((c) => c.name)).toEqual([component, 'log-shipper']);
      },
    );
  });

  it('NetworkPolicy: the metrics port only from metricsFrom, the API port never from it', () => {
    const objects = renderChart({
      set: [
        'networkPolicy.enabled=true',
        'networkPolicy.apiFrom[0].namespaceSelector.matchLabels.team=ingress',
        'networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.team=monitoring',
      ],
    });
    const rules = (only(objects, 'NetworkPolicy', '-api').spec as { ingress: Rule[] }).ingress;
    const rule = (port: string) => rules.find((r) => r.ports.some((p) => p.port === port));
    expect(JSON.stringify(rule('http')?.from)).not.toContain('monitoring');
    expect(rule('metrics')?.from).toEqual([{ namespaceSelector: { matchLabels: { team: 'monitoring' } } }]);
  });

  it('helm show readme prints the chart README', () => {
    const result = helm(['show', 'readme', CHART_DIR]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^# memory-service/);
    expect(result.stdout).toContain('umbrella chart');
  });

  describe('as a dependency of an umbrella chart with global values', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'memsvc-umbrella-'));
      writeFileSync(
        join(dir, 'Chart.yaml'),
        stringify({
          apiVersion: 'v2',
          name: 'team-platform',
          version: '1.0.0',
          dependencies: [{ name: 'memory-service', version: '0.1.0', repository: `file://${CHART_DIR}` }],
        }),
      );
      writeFileSync(
        join(dir, 'values.yaml'),
        stringify({
          global: { imageRegistry: 'registry.example.com', storageClass: 'fast' },
          'memory-service': {
            image: { repository: 'registry.example.com/platform/memory-service', tag: '0.1.0' },
            commonLabels: { team: 'platform' },
          },
        }),
      );
    });
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('builds, lints and renders', () => {
      const build = helm(['dependency', 'build', dir]);
      expect(build.status, build.stdout + build.stderr).toBe(0);
      const lint = helm(['lint', '--strict', dir]);
      expect(lint.status, lint.stdout + lint.stderr).toBe(0);
      expect(lint.stdout).toContain('0 chart(s) failed');
      const rendered = helm(['template', 'platform', dir, '--namespace', 'memory']);
      expect(rendered.status, rendered.stderr).toBe(0);
      const objects = parseManifests(rendered.stdout);
      expect(
        find(objects, 'Deployment')
          .map((d) => d.metadata.name)
          .sort(),
      ).toEqual(['platform-memory-service-api', 'platform-memory-service-worker']);
      const api = mainContainer(only(objects, 'Deployment', '-api'));
      expect((api as { image?: string }).image).toBe('registry.example.com/platform/memory-service:0.1.0');
      expect(only(objects, 'Deployment', '-api').metadata.labels?.team).toBe('platform');
    });
  });
});
