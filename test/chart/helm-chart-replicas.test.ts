import { beforeAll, describe, expect, it } from 'vitest';
import { helm, helmTemplateArgs, k8sTools, only, renderChart, type K8sObject } from './support/chart-tools';
import { findUnknownFields, validateObjects } from './support/k8s-validation';
import { configMapData, envNamed, mainContainer } from './support/manifest-queries';

const COMPONENTS = ['api', 'worker'] as const;
const REPLICA_VARIABLES = ['DATABASE_REPLICA_URLS', 'REPLICA_MAX_LAG_MS', 'REPLICA_MAX_WAIT_MS'];

const container = (objects: K8sObject[], component: string) =>
  mainContainer(only(objects, 'Deployment', `-${component}`));

describe('Helm chart: read replicas (databaseReplicas, secrets.databaseReplicaUrls)', () => {
  beforeAll(() => {
    k8sTools();
  }, 360_000);

  it('off by default: no replica variable in the ConfigMap or on any pod', () => {
    const objects = renderChart();
    for (const name of REPLICA_VARIABLES) expect(configMapData(objects)).not.toHaveProperty(name);
    for (const obj of objects.filter((o) => ['Deployment', 'Job', 'Pod'].includes(o.kind))) {
      expect(JSON.stringify(obj), obj.metadata.name).not.toMatch(/REPLICA/);
    }
  });

  it('settings under a disabled databaseReplicas change nothing', () => {
    const plain = helm(helmTemplateArgs());
    const tuned = helm(
      helmTemplateArgs({
        set: [
          'databaseReplicas.maxLagMs=1000',
          'databaseReplicas.maxWaitMs=50',
          'secrets.databaseReplicaUrls.existingSecret=db-replicas',
        ],
      }),
    );
    expect(plain.status, plain.stderr).toBe(0);
    expect(tuned.stdout).toBe(plain.stdout);
  });

  describe('enabled', () => {
    let objects: K8sObject[];
    beforeAll(() => {
      objects = renderChart({ set: ['databaseReplicas.enabled=true'] });
    });

    it('renders objects that pass the offline schemas, without unknown fields', () => {
      expect(validateObjects(objects)).toEqual([]);
      expect(findUnknownFields(objects)).toEqual([]);
    });

    it.each(COMPONENTS)(
      '%s: DATABASE_REPLICA_URLS from the Secret (required), like DATABASE_URL',
      (component) => {
        const env = envNamed(container(objects, component), 'DATABASE_REPLICA_URLS');
        expect(env?.value).toBeUndefined();
        expect(env?.valueFrom?.secretKeyRef).toEqual({
          name: 'memory-service-secrets',
          key: 'DATABASE_REPLICA_URLS',
        });
        expect(envNamed(container(objects, component), 'DATABASE_URL')?.valueFrom?.secretKeyRef?.name).toBe(
          'memory-service-secrets',
        );
      },
    );

    it('the lag and wait bounds go into the ConfigMap both components read, at the app defaults', () => {
      expect(configMapData(objects)).toMatchObject({
        REPLICA_MAX_LAG_MS: '5000',
        REPLICA_MAX_WAIT_MS: '250',
      });
      for (const component of COMPONENTS) {
        expect(container(objects, component).envFrom?.[0].configMapRef?.name).toBe(
          'memsvc-memory-service-config',
        );
      }
    });

    it('the migration Job still reads only DATABASE_URL: migrations run on the primary', () => {
      const job = mainContainer(only(objects, 'Job', '-migrate'));
      expect(envNamed(job, 'DATABASE_REPLICA_URLS')).toBeUndefined();
      expect(envNamed(job, 'DATABASE_URL')).toBeDefined();
    });
  });

  it('a Secret and key of its own, and other bounds', () => {
    const objects = renderChart({
      set: [
        'databaseReplicas.enabled=true',
        'databaseReplicas.maxLagMs=600000',
        'databaseReplicas.maxWaitMs=0',
        'secrets.databaseReplicaUrls.existingSecret=memory-db-replicas',
        'secrets.databaseReplicaUrls.key=urls',
      ],
    });
    for (const component of COMPONENTS) {
      expect(
        envNamed(container(objects, component), 'DATABASE_REPLICA_URLS')?.valueFrom?.secretKeyRef,
      ).toEqual({ name: 'memory-db-replicas', key: 'urls' });
    }
    // 600000 must not turn into 6e+05.
    expect(configMapData(objects)).toMatchObject({ REPLICA_MAX_LAG_MS: '600000', REPLICA_MAX_WAIT_MS: '0' });
  });

  describe('values.schema.json and checks.yaml', () => {
    const failure = (set: string[]) => {
      const result = helm(helmTemplateArgs({ set }));
      expect(result.status, result.stdout).not.toBe(0);
      return result.stderr;
    };

    it.each([
      [
        'a negative lag',
        ['databaseReplicas.maxLagMs=-1'],
        /databaseReplicas\.maxLagMs: Must be greater than or equal to 100/,
      ],
      [
        'a lag as a duration string',
        ['databaseReplicas.maxLagMs=5s'],
        /databaseReplicas\.maxLagMs: Invalid type/,
      ],
      [
        'a negative wait',
        ['databaseReplicas.maxWaitMs=-5'],
        /databaseReplicas\.maxWaitMs: Must be greater than or equal to 0/,
      ],
      [
        'a wait above 10 s',
        ['databaseReplicas.maxWaitMs=20000'],
        /databaseReplicas\.maxWaitMs: Must be less than or equal to 10000/,
      ],
      ['enabled as a string', ['databaseReplicas.enabled=yes'], /databaseReplicas\.enabled: Invalid type/],
      // Credentials never go in values: there is no key for the URLs themselves.
      [
        'replica URLs in values',
        ['databaseReplicas.urls[0]=postgres://app:pw@memory-db-ro:5432/app'],
        /databaseReplicas: Additional property urls is not allowed/,
      ],
      [
        'an empty Secret key',
        ['secrets.databaseReplicaUrls.key='],
        /secrets\.databaseReplicaUrls\.key: String length/,
      ],
    ])('rejects %s', (_what, set, message) => {
      expect(failure(set)).toMatch(message);
    });

    it('fails when replicas are on and no Secret is named for DATABASE_REPLICA_URLS', () => {
      const named = [
        'secrets.existingSecret=',
        'secrets.databaseUrl.existingSecret=db',
        'secrets.redisUrl.existingSecret=redis',
      ];
      expect(failure([...named, 'databaseReplicas.enabled=true'])).toMatch(
        /secrets\.databaseReplicaUrls: no Secret holds DATABASE_REPLICA_URLS/,
      );
      // Off, the entry is not needed.
      expect(helm(helmTemplateArgs({ set: named })).status).toBe(0);
    });
  });
});
