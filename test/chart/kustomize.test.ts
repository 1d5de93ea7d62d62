import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { k8sTools, only, parseManifests, ROOT, run } from './support/chart-tools';
import { findUnknownFields, validateObjects } from './support/k8s-validation';
import { configMapData, envNamed, mainContainer, podTemplate } from './support/manifest-queries';

describe('deploy/kustomize (rendered from the chart)', () => {
  beforeAll(() => {
    k8sTools();
  }, 360_000);

  it('base/memory-service.yaml matches a fresh render of the chart', () => {
    const check = spawnSync(
      process.execPath,
      [join(ROOT, 'scripts/chart/render-kustomize-base.mjs'), '--check'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(check.status, check.stderr).toBe(0);
  });

  it('the example overlay builds with kubectl kustomize into valid objects', () => {
    const built = run(k8sTools().kubectl, ['kustomize', join(ROOT, 'deploy/kustomize/overlays/example')]);
    expect(built.status, built.stderr).toBe(0);
    const objects = parseManifests(built.stdout);
    expect(validateObjects(objects)).toEqual([]);
    expect(findUnknownFields(objects)).toEqual([]);

    const api = only(objects, 'Deployment', 'memory-service-api');
    const worker = only(objects, 'Deployment', 'memory-service-worker');
    expect((api.spec as { replicas: number }).replicas).toBe(3);
    expect((worker.spec as { replicas: number }).replicas).toBe(2);
    for (const obj of objects.filter((o) => o.kind !== 'Namespace')) {
      expect((obj.metadata as { namespace?: string }).namespace, obj.metadata.name).toBe('memory');
    }
    for (const dep of [api, worker]) {
      expect(podTemplate(dep).spec.containers[0]).toMatchObject({
        image: 'registry.example.com/platform/memory-service:0.1.0',
      });
      // No Helm hooks without Helm: the pods migrate at start under the advisory lock.
      expect(envNamed(mainContainer(dep), 'RUN_MIGRATIONS')?.value).toBe('true');
    }
    expect(objects.filter((o) => o.kind === 'Job' || o.kind === 'Pod')).toEqual([]);
    expect(only(objects, 'PodDisruptionBudget', 'memory-service-api').spec).toMatchObject({
      minAvailable: 1,
    });
    expect(configMapData(objects).LOG_LEVEL).toBe('debug');
  });

  it('the read-replicas component gives the API DATABASE_REPLICA_URLS from the Secret and the bounds in the ConfigMap', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kustomize-replicas-'));
    try {
      writeFileSync(
        join(dir, 'kustomization.yaml'),
        [
          'apiVersion: kustomize.config.k8s.io/v1beta1',
          'kind: Kustomization',
          'resources:',
          `  - ${relative(dir, join(ROOT, 'deploy/kustomize/base'))}`,
          'components:',
          `  - ${relative(dir, join(ROOT, 'deploy/kustomize/components/read-replicas'))}`,
          '',
        ].join('\n'),
      );
      const built = run(k8sTools().kubectl, ['kustomize', '--load-restrictor', 'LoadRestrictionsNone', dir]);
      expect(built.status, built.stderr).toBe(0);
      const objects = parseManifests(built.stdout);
      expect(validateObjects(objects)).toEqual([]);
      expect(findUnknownFields(objects)).toEqual([]);
      const api = mainContainer(only(objects, 'Deployment', 'memory-service-api'));
      expect(api.name).toBe('api');
      expect(envNamed(api, 'DATABASE_REPLICA_URLS')).toEqual({
        name: 'DATABASE_REPLICA_URLS',
        valueFrom: { secretKeyRef: { name: 'memory-service-secrets', key: 'DATABASE_REPLICA_URLS' } },
      });
      expect(
        envNamed(
          mainContainer(only(objects, 'Deployment', 'memory-service-worker')),
          'DATABASE_REPLICA_URLS',
        ),
      ).toBeUndefined();
      expect(configMapData(objects)).toMatchObject({
        REPLICA_MAX_LAG_MS: '5000',
        REPLICA_MAX_WAIT_MS: '250',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
