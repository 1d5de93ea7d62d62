import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './app-config';
import { envSchema } from './env.schema';

/** `.env.example` at the repository root: every variable, set to its default or commented out. */
const lines = readFileSync(resolve(__dirname, '../../../.env.example'), 'utf8')
  .split('\n')
  .map((line) => /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
  .filter((match): match is RegExpExecArray => match !== null)
  .map((match) => ({ commented: match[1] !== undefined, name: match[2], value: match[3] }));

const pipe = { stdoutIsTty: false };
const defaults = loadConfig({}, pipe);

/** The schema's default for one variable, as parsed; undefined (or empty) when it has none. */
function schemaDefault(name: string): unknown {
  const schema = envSchema.shape[name as keyof typeof envSchema.shape];
  const parsed = schema.safeParse(undefined);
  const value: unknown = parsed.success ? parsed.data : undefined;
  if (Array.isArray(value) && value.length === 0) return undefined;
  if (value !== null && typeof value === 'object' && Object.keys(value).length === 0) return undefined;
  return value;
}

describe('.env.example', () => {
  it('lists every variable of the schema exactly once, and nothing else', () => {
    const names = lines.map((line) => line.name);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    expect([...names].sort()).toEqual(Object.keys(envSchema.shape).sort());
  });

  it('sets each variable that has a default to exactly that default', () => {
    for (const line of lines.filter((l) => !l.commented)) {
      expect(schemaDefault(line.name), `${line.name} has no default: comment it out`).toBeDefined();
      expect(loadConfig({ [line.name]: line.value }, pipe), line.name).toEqual(defaults);
    }
  });

  it('comments out only variables without a default (or shows the default), with valid examples', () => {
    for (const line of lines.filter((l) => l.commented)) {
      if (schemaDefault(line.name) !== undefined) {
        expect(loadConfig({ [line.name]: line.value }, pipe), line.name).toEqual(defaults);
      } else if (line.value !== '') {
        expect(() => loadConfig({ [line.name]: line.value }, pipe), line.name).not.toThrow();
      }
    }
  });
});
