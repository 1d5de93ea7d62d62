import { resolve } from 'node:path';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const root = __dirname;
const alias = {
  '@app/config': resolve(root, 'libs/config/src'),
  '@app/persistence': resolve(root, 'libs/persistence/src'),
  '@app/tenancy': resolve(root, 'libs/tenancy/src'),
  '@app/memories': resolve(root, 'libs/memories/src'),
  '@app/jobs': resolve(root, 'libs/jobs/src'),
  '@app/observability': resolve(root, 'libs/observability/src'),
  '@app/sessions': resolve(root, 'libs/sessions/src'),
  '@app/secrets': resolve(root, 'libs/secrets/src'),
  '@app/embeddings': resolve(root, 'libs/embeddings/src'),
  '@app/recall': resolve(root, 'libs/recall/src'),
  '@app/sync': resolve(root, 'libs/sync/src'),
  '@app/webhooks': resolve(root, 'libs/webhooks/src'),
  '@app/kernel': resolve(root, 'libs/kernel/src'),
  '@app/testing': resolve(root, 'libs/testing/src'),
  '@app/migrations': resolve(root, 'migrations'),
};

// swc keeps decorator metadata, which Nest's dependency injection needs.
const plugins = [swc.vite({ module: { type: 'es6' } })];

export default defineConfig({
  plugins,
  resolve: { alias },
  test: {
    reporters: ['default'],
    // Integration and e2e files share one database and start real processes; run files one at a time.
    fileParallelism: false,
    projects: [
      {
        plugins,
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'bench/**/*.spec.ts', 'test/lint/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        plugins,
        resolve: { alias },
        test: {
          name: 'integration',
          include: ['libs/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'test/integration/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        plugins,
        resolve: { alias },
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        plugins,
        resolve: { alias },
        test: {
          // Fault injection, fuzzing, kill and multi-replica suites (`npm run test:chaos`); docs/reliability.md.
          name: 'chaos',
          include: ['test/chaos/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 600_000,
          hookTimeout: 300_000,
        },
      },
      {
        plugins,
        resolve: { alias },
        test: {
          // The web console in Chromium (playwright-core + Debian's chromium) against built processes.
          name: 'ui',
          include: ['test/ui/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        plugins,
        resolve: { alias },
        test: {
          // Helm chart, kustomize, Dockerfile and compose checks; fetches pinned helm/kubectl once.
          name: 'chart',
          include: ['test/chart/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 360_000,
        },
      },
    ],
  },
});
