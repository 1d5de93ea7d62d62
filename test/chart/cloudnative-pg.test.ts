import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { k8sTools, only, parseManifests, renderChart, ROOT, type K8sObject } from './support/chart-tools';
import { findUnknownFields, validateObjects } from './support/k8s-validation';
import { configMapData, envNamed, mainContainer } from './support/manifest-queries';

const DIR = 'deploy/cloudnative-pg';
const SCRIPT = join(ROOT, DIR, 'replica-urls-secret.sh');

interface ClusterView {
  instances: number;
  imageName: string;
  bootstrap: { initdb: { database: string; owner: string; postInitApplicationSQL?: string[] } };
}
interface ExampleValues {
  secrets: Record<string, { existingSecret: string; key: string }>;
}

describe('deploy/cloudnative-pg: a CloudNativePG cluster with replicas, and the chart wired to it', () => {
  let cluster: K8sObject;
  let spec: ClusterView;
  let values: ExampleValues;
  beforeAll(() => {
    k8sTools();
    cluster = only(parseManifests(readFileSync(join(ROOT, DIR, 'cluster.yaml'), 'utf8')), 'Cluster');
    spec = cluster.spec as ClusterView;
    values = parse(readFileSync(join(ROOT, DIR, 'values.yaml'), 'utf8')) as ExampleValues;
  }, 360_000);

  it('cluster.yaml is a Cluster of the fields CloudNativePG knows, with replicas to read from', () => {
    expect(validateObjects([cluster])).toEqual([]);
    expect(spec.instances).toBeGreaterThanOrEqual(2);
  });

  it('the image carries pgvector and the bootstrap creates what the migrations cannot as the owner', () => {
    // CloudNativePG's standard images ship pgvector; the minimal ones do not.
    expect(spec.imageName).toMatch(/^ghcr\.io\/cloudnative-pg\/postgresql:16[^:]*-standard-/);
    const sql = spec.bootstrap.initdb.postInitApplicationSQL ?? [];
    expect(sql).toContain('CREATE EXTENSION IF NOT EXISTS vector');
    expect(sql.some((s) => /^CREATE ROLE memory_app NOLOGIN/.test(s))).toBe(true);
    expect(sql).toContain(`GRANT memory_app TO ${spec.bootstrap.initdb.owner}`);
  });

  it('values.yaml reads DATABASE_URL from the operator Secret <cluster>-app (its uri names <cluster>-rw)', () => {
    const objects = renderChart({ valuesFiles: [`${DIR}/values.yaml`] });
    expect(validateObjects(objects)).toEqual([]);
    expect(findUnknownFields(objects)).toEqual([]);
    const name = cluster.metadata.name;
    for (const component of ['api', 'worker']) {
      const container = mainContainer(only(objects, 'Deployment', `-${component}`));
      expect(envNamed(container, 'DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({
        name: `${name}-app`,
        key: 'uri',
      });
      expect(envNamed(container, 'DATABASE_REPLICA_URLS')?.valueFrom?.secretKeyRef).toEqual({
        name: `${name}-replicas`,
        key: 'DATABASE_REPLICA_URLS',
      });
    }
    expect(configMapData(objects)).toHaveProperty('REPLICA_MAX_LAG_MS');
    expect(
      envNamed(mainContainer(only(objects, 'Job', '-migrate')), 'DATABASE_URL')?.valueFrom?.secretKeyRef,
    ).toEqual({ name: `${name}-app`, key: 'uri' });
  });

  describe('replica-urls-secret.sh (against a stand-in kubectl)', () => {
    let bin: string;
    const runScript = (appUri: string, env: Record<string, string> = {}) => {
      const log = join(bin, `log-${Math.random().toString(36).slice(2)}`);
      const result = spawnSync('bash', [SCRIPT], {
        encoding: 'utf8',
        env: {
          ...process.env,
          PATH: `${bin}:${process.env.PATH}`,
          KUBECTL_LOG: log,
          APP_URI: appUri,
          ...env,
        },
      });
      let calls = '';
      try {
        calls = readFileSync(log, 'utf8');
      } catch {
        // no call made
      }
      return { ...result, calls };
    };

    beforeAll(() => {
      bin = mkdtempSync(join(tmpdir(), 'memsvc-cnpg-'));
      // Records its arguments (and apply's stdin); `get secret` answers with $APP_URI, base64-encoded.
      writeFileSync(
        join(bin, 'kubectl'),
        [
          '#!/usr/bin/env bash',
          'echo "kubectl $*" >> "$KUBECTL_LOG"',
          'case "$*" in',
          '  *"get secret"*) printf %s "$APP_URI" | base64 ;;',
          '  *"create secret"*) echo "created: $*" ;;',
          '  *"apply -f -"*) cat >> "$KUBECTL_LOG" ;;',
          'esac',
          '',
        ].join('\n'),
      );
      chmodSync(join(bin, 'kubectl'), 0o755);
    });
    afterAll(() => {
      if (bin) rmSync(bin, { recursive: true, force: true });
    });

    it('writes <cluster>-replicas with the app uri pointed at <cluster>-ro, by default for cluster.yaml', () => {
      const name = cluster.metadata.name;
      const { status, stderr, stdout, calls } = runScript(
        `postgresql://app:s3cr3t@${name}-rw.memory:5432/${spec.bootstrap.initdb.database}`,
      );
      expect(status, stderr).toBe(0);
      expect(calls).toContain(`kubectl -n memory get secret ${name}-app -o jsonpath={.data.uri}`);
      expect(calls).toContain(
        `created: -n memory create secret generic ${values.secrets.databaseReplicaUrls.existingSecret} ` +
          `--from-literal=DATABASE_REPLICA_URLS=postgresql://app:s3cr3t@${name}-ro.memory:5432/app`,
      );
      expect(calls).toContain('kubectl -n memory apply -f -');
      expect(stdout).not.toContain('s3cr3t');
    });

    it('refuses a uri that does not name <cluster>-rw instead of writing the primary as a replica', () => {
      const { status, stderr, calls } = runScript('postgresql://app:pw@elsewhere:5432/app', {
        CLUSTER: 'other-db',
      });
      expect(status).not.toBe(0);
      expect(stderr).toContain('does not name other-db-rw');
      expect(calls).not.toContain('create secret');
    });
  });
});
