import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const eslint = new ESLint({ cwd: root });

/** Lints a fixture with the project's real config, as if it were the file at `pretendPath`. */
async function lintAs(fixture: string, pretendPath: string): Promise<string[]> {
  const code = readFileSync(join(__dirname, 'fixtures', fixture), 'utf8');
  const [result] = await eslint.lintText(code, { filePath: join(root, pretendPath) });
  return result.messages.filter((m) => m.ruleId === 'architecture/boundaries').map((m) => m.message);
}

describe('npm run lint enforces the architecture', () => {
  it('refuses a deep import past a lib index', async () => {
    const messages = await lintAs('deep-import.ts', 'apps/api/src/bad.ts');
    expect(messages).toEqual([
      "Import 'memories' through its index ('@app/memories'), not '@app/memories/adapters/memory.repository'.",
    ]);
  });

  it('refuses an app importing another app', async () => {
    expect(await lintAs('app-to-app.ts', 'apps/api/src/bad.ts')).toEqual([
      'An app never imports another app (apps/api → apps/worker): move the shared code into a lib.',
    ]);
  });

  it('refuses a lib importing an app', async () => {
    expect(await lintAs('lib-to-app.ts', 'libs/memories/src/bad.ts')).toEqual([
      'A lib never imports an app (libs/memories → apps/api).',
    ]);
  });

  it('refuses domain code importing an adapter or a database client', async () => {
    expect(await lintAs('domain-to-adapter.ts', 'libs/memories/src/domain/bad.ts')).toEqual([
      "domain/ stays pure: it may not import 'typeorm'.",
      "domain/ stays pure: it may not import '../adapters/memory.repository'.",
    ]);
  });

  it("refuses a lib's test door in production code but allows it in tests", async () => {
    expect(await lintAs('test-door-in-production.ts', 'apps/api/src/bad.ts')).toEqual([
      "'@app/memories/testing' is the lib's test door; production code imports '@app/memories'.",
    ]);
    expect(await lintAs('test-door-in-production.ts', 'libs/memories/test/fine.test.ts')).toEqual([]);
  });

  it('refuses reaching into another lib by a relative path', async () => {
    expect(await lintAs('lib-by-relative-path.ts', 'libs/recall/src/bad.ts')).toEqual([
      "Import lib 'memories' through '@app/memories', not by a relative path.",
    ]);
  });

  it('refuses a lib dependency against the one-way order', async () => {
    expect(await lintAs('lib-direction.ts', 'libs/memories/src/application/bad.ts')).toEqual([
      'libs/memories may not depend on libs/recall (it may use: config, persistence, observability, kernel, secrets, jobs, tenancy); dependencies run one way.',
    ]);
  });

  it('refuses a wing of a lib importing another wing, but allows it in tests', async () => {
    expect(await lintAs('wing-to-wing.ts', 'libs/memories/src/export/application/bad.ts')).toEqual([
      "libs/memories wing 'export' may not import wing 'sharing' (../../sharing/adapters/share.repository): wings depend only on the core; move what both need into the core.",
    ]);
    expect(await lintAs('wing-to-wing.ts', 'libs/memories/src/export/application/fine.spec.ts')).toEqual([]);
  });

  it('refuses the core of a lib importing one of its wings, but allows it in tests', async () => {
    expect(await lintAs('core-to-wing.ts', 'libs/memories/src/application/bad.ts')).toEqual([
      "The core of libs/memories may not import its wing 'stats' (../stats/application/get-memory-stats.use-case): the core never depends on a wing.",
    ]);
    expect(await lintAs('core-to-wing.ts', 'libs/memories/src/application/fine.spec.ts')).toEqual([]);
  });

  it("allows a wing its own wing and the core, and a lib's root files every wing", async () => {
    expect(await lintAs('wing-allowed.ts', 'libs/memories/src/export/application/fine.ts')).toEqual([]);
    expect(await lintAs('root-to-wings.ts', 'libs/memories/src/memories.module.ts')).toEqual([]);
    expect(await lintAs('root-to-wings.ts', 'libs/memories/src/index.ts')).toEqual([]);
  });

  it('allows index imports and a layer using its own adapters', async () => {
    expect(await lintAs('allowed.ts', 'libs/memories/src/application/fine.ts')).toEqual([]);
  });
});
