import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { envSchema, SENSITIVE_ENV_KEYS } from '@app/config';
import {
  CHART_DIR,
  find,
  helm,
  helmTemplateArgs,
  k8sTools,
  only,
  renderChart,
  type K8sObject,
} from './support/chart-tools';
import { findUnknownFields, validateObjects } from './support/k8s-validation';
import { configMapData, envNamed, mainContainer, podTemplate, selects } from './support/manifest-queries';

const CI_DIR = join(CHART_DIR, 'ci');
const CI_FILES = readdirSync(CI_DIR).filter((f) => f.endsWith('-values.yaml'));
const ci = (file: string) => `helm/memory-service/ci/${file}`;
const COMPONENTS = ['api', 'worker'] as const;

describe('Helm chart helm/memory-service', () => {
  beforeAll(() => {
    k8sTools();
  }, 360_000);

  it.each(['', ...CI_FILES])('helm lint --strict passes with %s', (file) => {
    const result = helm(['lint', '--strict', CHART_DIR, ...(file ? ['-f', join(CI_DIR, file)] : [])]);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('0 chart(s) failed');
  });

  describe('default values', () => {
    let objects: K8sObject[];
    beforeAll(() => {
      objects = renderChart();
    });
    const deployment = (component: string) => only(objects, 'Deployment', `-${component}`);

    it('renders objects that pass the offline Kubernetes schemas, without unknown fields', () => {
      expect(validateObjects(objects)).toEqual([]);
      expect(findUnknownFields(objects)).toEqual([]);
    });

    it('renders the api and worker, their PDBs, config, the migration hook and the test pod', () => {
      const kinds = objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
      expect(kinds).toEqual(
        [
          'ConfigMap/memsvc-memory-service-config',
          'Deployment/memsvc-memory-service-api',
          'Deployment/memsvc-memory-service-worker',
          'Job/memsvc-memory-service-migrate',
          'Pod/memsvc-memory-service-test-ready',
          'PodDisruptionBudget/memsvc-memory-service-api',
          'PodDisruptionBudget/memsvc-memory-service-worker',
          'Service/memsvc-memory-service-api',
          'ServiceAccount/memsvc-memory-service',
        ].sort(),
      );
    });

    it.each(COMPONENTS)(
      '%s: 2 replicas, rolling update without unavailability, spread over nodes',
      (component) => {
        const dep = deployment(component);
        const spec = dep.spec as {
          replicas: number;
          strategy: unknown;
          selector: { matchLabels: Record<string, string> };
        };
        expect(spec.replicas).toBeGreaterThanOrEqual(2);
        expect(spec.replicas).toBe(2);
        expect(spec.strategy).toEqual({
          type: 'RollingUpdate',
          rollingUpdate: { maxUnavailable: 0, maxSurge: 1 },
        });
        const { labels, spec: pod } = podTemplate(dep);
        expect(selects(spec.selector.matchLabels, labels)).toBe(true);
        const spread = pod.topologySpreadConstraints ?? [];
        expect(spread.map((s) => s.topologyKey)).toContain('kubernetes.io/hostname');
        for (const s of spread) expect(s.labelSelector.matchLabels).toEqual(spec.selector.matchLabels);
        expect(JSON.stringify(pod.affinity)).toContain('"topologyKey":"kubernetes.io/hostname"');
        expect(mainContainer(dep).args).toEqual([component]);
      },
    );

    it.each(COMPONENTS)(
      '%s: startup, readiness and liveness probes; liveness never checks dependencies',
      (component) => {
        const container = mainContainer(deployment(component));
        const portNames = (container.ports ?? []).map((p) => p.name);
        for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe]) {
          expect(probe?.httpGet, JSON.stringify(probe)).toBeDefined();
          expect(portNames).toContain(probe?.httpGet?.port);
        }
        expect(container.readinessProbe?.httpGet?.path).toBe('/health/ready');
        expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
        expect(container.startupProbe?.httpGet?.path).toBe('/health/live');
      },
    );

    it.each(['api', 'worker', 'migrate', 'test'])(
      '%s pod: non-root, read-only root, no capabilities, /tmp emptyDir',
      (component) => {
        const obj = objects.find(
          (o) =>
            o.metadata.labels?.['app.kubernetes.io/component'] === component &&
            ['Deployment', 'Job', 'Pod'].includes(o.kind),
        );
        expect(obj, component).toBeDefined();
        const { spec } = podTemplate(obj as K8sObject);
        expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
        expect(spec.automountServiceAccountToken).toBe(false);
        const container = mainContainer(obj as K8sObject);
        expect(container.securityContext).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        expect(container.securityContext?.runAsUser).not.toBe(0);
        if (component !== 'test') {
          expect(container.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
          expect(spec.volumes?.find((v) => v.name === 'tmp')?.emptyDir).toBeDefined();
          expect(container.resources?.requests?.memory).toBeDefined();
        }
      },
    );

    it.each(COMPONENTS)(
      '%s: a PodDisruptionBudget with minAvailable 1 selects exactly its pods',
      (component) => {
        const pdb = only(objects, 'PodDisruptionBudget', `-${component}`);
        const spec = pdb.spec as { minAvailable: number; selector: { matchLabels: Record<string, string> } };
        expect(spec.minAvailable).toBe(1);
        for (const other of COMPONENTS) {
          const { labels } = podTemplate(deployment(other));
          expect(selects(spec.selector.matchLabels, labels), `${component} PDB vs ${other} pods`).toBe(
            other === component,
          );
        }
      },
    );

    it('api drains: preStop sleep, then a grace period longer than the delay and the drain', () => {
      const dep = deployment('api');
      const container = mainContainer(dep);
      const sleep = container.lifecycle?.preStop?.exec?.command;
      expect(sleep?.[0]).toBe('sleep');
      const config = configMapData(objects);
      const drainSeconds =
        Number(sleep?.[1]) + (Number(config.SHUTDOWN_DELAY_MS) + Number(config.SHUTDOWN_GRACE_MS)) / 1000;
      expect(podTemplate(dep).spec.terminationGracePeriodSeconds).toBeGreaterThan(drainSeconds);
    });

    it('worker: grace period longer than its drain plus the exit backstop; probes on the internal port', () => {
      const dep = deployment('worker');
      const grace = Number(configMapData(objects).SHUTDOWN_GRACE_MS) / 1000;
      expect(podTemplate(dep).spec.terminationGracePeriodSeconds).toBeGreaterThan(grace + 10);
      const container = mainContainer(dep);
      expect(container.ports).toEqual([{ name: 'health', containerPort: 9464, protocol: 'TCP' }]);
      expect(envNamed(container, 'WORKER_HEALTH_PORT')?.value).toBe('9464');
    });

    it('migrations run in a pre-install,pre-upgrade hook Job and the pods skip them', () => {
      const job = only(objects, 'Job', '-migrate');
      const hooks = job.metadata.annotations?.['helm.sh/hook']?.split(',');
      expect(hooks).toEqual(expect.arrayContaining(['pre-install', 'pre-upgrade']));
      expect(job.metadata.annotations?.['helm.sh/hook-delete-policy']).toContain('before-hook-creation');
      const container = mainContainer(job);
      expect(container.args).toEqual(['migrate']);
      expect(envNamed(container, 'DATABASE_URL')?.valueFrom?.secretKeyRef?.key).toBe('DATABASE_URL');
      // At pre-install nothing else of the release exists yet: no ConfigMap, no chart ServiceAccount.
      expect(container.envFrom).toBeUndefined();
      expect(podTemplate(job).spec.serviceAccountName).toBeUndefined();
      for (const component of COMPONENTS) {
        expect(envNamed(mainContainer(deployment(component)), 'RUN_MIGRATIONS')?.value).toBe('false');
      }
    });

    it('the Service routes to the api pods; the helm test pod calls /health/ready through it', () => {
      const service = only(objects, 'Service', '-api');
      const spec = service.spec as { selector: Record<string, string>; ports: { targetPort: string }[] };
      expect(selects(spec.selector, podTemplate(deployment('api')).labels)).toBe(true);
      expect(selects(spec.selector, podTemplate(deployment('worker')).labels)).toBe(false);
      expect(mainContainer(deployment('api')).ports?.map((p) => p.name)).toContain(spec.ports[0].targetPort);
      const test = only(objects, 'Pod', '-test-ready');
      expect(test.metadata.annotations?.['helm.sh/hook']).toBe('test');
      expect(envNamed(mainContainer(test), 'READY_URL')?.value).toBe(
        `http://${service.metadata.name}:80/health/ready`,
      );
    });

    it('settings come from the ConfigMap and credentials only from Secret references', () => {
      const config = configMapData(objects);
      for (const sensitive of SENSITIVE_ENV_KEYS) expect(config).not.toHaveProperty(sensitive);
      for (const component of COMPONENTS) {
        const container = mainContainer(deployment(component));
        expect(container.envFrom?.[0].configMapRef?.name).toBe('memsvc-memory-service-config');
        for (const env of container.env ?? []) {
          if ((SENSITIVE_ENV_KEYS as readonly string[]).includes(env.name)) {
            expect(env.value, env.name).toBeUndefined();
            expect(env.valueFrom?.secretKeyRef?.name, env.name).toBe('memory-service-secrets');
          }
        }
        expect(envNamed(container, 'DATABASE_URL')?.valueFrom?.secretKeyRef?.optional).toBeUndefined();
        expect(envNamed(container, 'ADMIN_API_KEY')?.valueFrom?.secretKeyRef?.optional).toBe(true);
      }
    });
  });

  it('every variable of the app is set by the ConfigMap, a Secret or the chart, or deliberately left to the image', () => {
    const renders = [renderChart(), ...CI_FILES.map((file) => renderChart({ valuesFiles: [ci(file)] }))];
    const covered = new Set<string>();
    for (const objects of renders) {
      for (const key of Object.keys(configMapData(objects))) covered.add(key);
      for (const dep of find(objects, 'Deployment'))
        for (const env of mainContainer(dep).env ?? []) covered.add(env.name);
    }
    const known = new Set(Object.keys(envSchema.shape));
    // Set in the image (docker/Dockerfile), not per install; BUILD_COMMIT is recorded at image build time.
    const imageOnly = new Set(['DATA_DIR', 'MODELS_DIR', 'BUILD_COMMIT']);
    const extraEnv = new Set(['NODE_OPTIONS']); // ci/full-values.yaml's api.extraEnv example
    expect([...covered].filter((name) => !known.has(name) && !extraEnv.has(name))).toEqual([]);
    expect([...known].filter((name) => !covered.has(name) && !imageOnly.has(name))).toEqual([]);
    const documented = Object.keys(
      (parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as { config: object }).config,
    );
    expect(documented.filter((name) => !known.has(name))).toEqual([]);
  });

  describe.each(CI_FILES)('ci/%s', (file) => {
    it('renders objects that pass the offline schemas, without unknown fields', () => {
      const objects = renderChart({ valuesFiles: [ci(file)] });
      expect(validateObjects(objects)).toEqual([]);
      expect(findUnknownFields(objects)).toEqual([]);
      for (const component of COMPONENTS) {
        const pdb = only(objects, 'PodDisruptionBudget', `-${component}`);
        const { labels } = podTemplate(only(objects, 'Deployment', `-${component}`));
        expect(
          selects(
            (pdb.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels,
            labels,
          ),
        ).toBe(true);
      }
    });
  });

  it('ci/full-values.yaml: Ingress, API HPA, worker KEDA, NetworkPolicies, ServiceMonitors, Vault Kubernetes auth', () => {
    const objects = renderChart({ valuesFiles: [ci('full-values.yaml')] });
    const api = only(objects, 'Deployment', '-api');
    const worker = only(objects, 'Deployment', '-worker');
    // Autoscalers own the replica counts; they never go below two.
    expect((api.spec as { replicas?: number }).replicas).toBeUndefined();
    expect((worker.spec as { replicas?: number }).replicas).toBeUndefined();
    const hpa = only(objects, 'HorizontalPodAutoscaler', '-api');
    expect(hpa.spec).toMatchObject({
      minReplicas: 3,
      scaleTargetRef: { kind: 'Deployment', name: api.metadata.name },
    });
    expect(find(objects, 'HorizontalPodAutoscaler', '-worker')).toEqual([]);
    const scaled = only(objects, 'ScaledObject', '-worker');
    expect(scaled.spec).toMatchObject({ minReplicaCount: 2, scaleTargetRef: { name: worker.metadata.name } });
    expect(JSON.stringify(scaled.spec)).toContain('"listName":"memsvc:memory.index-batch:wait"');
    expect(only(objects, 'Ingress').spec).toMatchObject({
      ingressClassName: 'nginx',
      tls: [{ secretName: 'memory-example-com-tls' }],
    });
    expect(find(objects, 'NetworkPolicy')).toHaveLength(2);
    expect(find(objects, 'ServiceMonitor')).toHaveLength(2);
    only(objects, 'Service', '-worker');
    const config = configMapData(objects);
    expect(config).toMatchObject({
      VAULT_ADDR: 'https://vault.vault.svc:8200',
      VAULT_K8S_ROLE: 'memory-service',
      VAULT_K8S_TOKEN_PATH: '/var/run/secrets/vault/token',
      MCP_ALLOWED_ORIGINS: 'https://claude.ai,https://memory.example.com',
    });
    for (const dep of [api, worker]) {
      expect(JSON.stringify(podTemplate(dep).spec.volumes)).toContain('"audience":"vault"');
      expect(mainContainer(dep).volumeMounts).toContainEqual({
        name: 'vault-token',
        mountPath: '/var/run/secrets/vault',
        readOnly: true,
      });
    }
    expect(JSON.stringify(podTemplate(api).spec.affinity)).toContain(
      'requiredDuringSchedulingIgnoredDuringExecution',
    );
  });

  it('ci/approle-values.yaml: credentials from several Secrets, AppRole, worker HPA', () => {
    const objects = renderChart({ valuesFiles: [ci('approle-values.yaml')] });
    const api = mainContainer(only(objects, 'Deployment', '-api'));
    expect(envNamed(api, 'DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'memsvc-db-app',
      key: 'uri',
    });
    expect(envNamed(api, 'VAULT_SECRET_ID')?.valueFrom?.secretKeyRef).toEqual({
      name: 'memsvc-vault-approle',
      key: 'secret-id',
    });
    expect(envNamed(api, 'ADMIN_API_KEY')?.valueFrom?.secretKeyRef?.name).toBe('memory-service-keys');
    expect(envNamed(api, 'VAULT_TOKEN')).toBeUndefined();
    expect(only(objects, 'HorizontalPodAutoscaler', '-worker').spec).toMatchObject({ minReplicas: 2 });
    expect((only(objects, 'Deployment', '-api').spec as { replicas: number }).replicas).toBe(3);
  });

  it('ci/no-hook-values.yaml: without the hook Job the pods migrate at start', () => {
    const objects = renderChart({ valuesFiles: [ci('no-hook-values.yaml')] });
    expect(find(objects, 'Job')).toEqual([]);
    expect(find(objects, 'Pod')).toEqual([]);
    expect(find(objects, 'ServiceAccount')).toEqual([]);
    for (const component of COMPONENTS) {
      const dep = only(objects, 'Deployment', `-${component}`);
      expect(envNamed(mainContainer(dep), 'RUN_MIGRATIONS')?.value).toBe('true');
      expect(envNamed(mainContainer(dep), 'VAULT_TOKEN')?.valueFrom?.secretKeyRef?.optional).toBeUndefined();
      expect(podTemplate(dep).spec.serviceAccountName).toBe('memory-service');
    }
  });

  describe('values.schema.json and checks.yaml', () => {
    const failure = (options: Parameters<typeof helmTemplateArgs>[0]) => {
      const result = helm(helmTemplateArgs(options));
      expect(result.status, result.stdout).not.toBe(0);
      return result.stderr;
    };

    it('rejects a values file with an unknown key, in template and in lint', () => {
      const file = 'helm/memory-service/ci/invalid/unknown-key-values.yaml';
      expect(failure({ valuesFiles: [file] })).toMatch(/api: Additional property replicas is not allowed/);
      const lint = helm([
        'lint',
        '--strict',
        CHART_DIR,
        '-f',
        join(CHART_DIR, 'ci/invalid/unknown-key-values.yaml'),
      ]);
      expect(lint.status).not.toBe(0);
      expect(failure({ set: ['worker.keda.queueDepth=5'] })).toMatch(
        /Additional property queueDepth is not allowed/,
      );
    });

    it('fails when no Secret is named for DATABASE_URL', () => {
      expect(failure({ set: ['secrets.existingSecret='] })).toMatch(
        /secrets\.databaseUrl: no Secret holds DATABASE_URL/,
      );
      // Naming the database Secret alone is not enough: REDIS_URL is required too.
      expect(failure({ set: ['secrets.existingSecret=', 'secrets.databaseUrl.existingSecret=db'] })).toMatch(
        /secrets\.redisUrl: no Secret holds REDIS_URL/,
      );
    });

    it.each([
      ['Vault without an address', ['vault.enabled=true'], /vault\.address is required/],
      [
        'the LLM session extractor without its endpoint',
        ['config.SESSION_EXTRACTOR=llm'],
        /config\.EXTRACTOR_LLM_URL and config\.EXTRACTOR_LLM_MODEL are required/,
      ],
      [
        'identity providers without the service URL their tokens must name',
        ['config.OAUTH_ISSUERS=[{"issuer":"https://idp.example.com"\\,"tenant":"default"}]'],
        /config\.OAUTH_RESOURCE is required/,
      ],
      ['a PDB that blocks every drain', ['api.replicaCount=1'], /api\.pdb\.minAvailable \(1\) must be below/],
      [
        'two autoscalers for the worker',
        ['worker.keda.enabled=true', 'worker.keda.redis.address=r:6379', 'worker.autoscaling.enabled=true'],
        /enable one of them/,
      ],
      ['KEDA without a Redis address', ['worker.keda.enabled=true'], /worker\.keda\.redis\.address/],
      ['/metrics on the API port twice', ['metrics.port=8080'], /metrics\.port \(8080\) must differ/],
      [
        'an API grace period shorter than its drain',
        ['config.SHUTDOWN_GRACE_MS=30000'],
        /api\.terminationGracePeriodSeconds \(30\) must exceed/,
      ],
      [
        'a worker grace period shorter than its drain',
        ['worker.terminationGracePeriodSeconds=15'],
        /worker\.terminationGracePeriodSeconds \(15\) must exceed/,
      ],
    ])('fails fast on %s', (_what, set, message) => {
      expect(failure({ set })).toMatch(message);
    });
  });
});
