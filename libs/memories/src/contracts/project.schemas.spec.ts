import { describe, expect, it } from 'vitest';
import { bulkDeleteSchema, listMemoriesQuerySchema, storeMemorySchema } from './memory.schemas';
import { PROJECT_TOO_LONG, projectSchema } from './project.schemas';

describe('project: one form for stores and filters', () => {
  it('keeps a name as given (trimmed) and turns a git remote URL into its identity', () => {
    expect(projectSchema.parse('  atlas ')).toBe('atlas');
    expect(projectSchema.parse('git@github.com:Acme/Atlas.git')).toBe('github.com/acme/atlas');
    expect(projectSchema.parse('https://user:token@github.com/acme/atlas')).toBe('github.com/acme/atlas');
    expect(
      storeMemorySchema.parse({ content: 'x', project: 'ssh://git@github.com/acme/atlas' }).project,
    ).toBe('github.com/acme/atlas');
  });

  it('refuses more than 200 characters once normalised, with one message for every field', () => {
    expect(projectSchema.parse('p'.repeat(200))).toHaveLength(200);
    const long = 'p'.repeat(201);
    for (const result of [
      projectSchema.safeParse(long),
      storeMemorySchema.safeParse({ content: 'x', project: long }),
      listMemoriesQuerySchema.safeParse({ project: long }),
      bulkDeleteSchema.safeParse({ project: long }),
    ]) {
      expect(result.error?.issues.map((i) => i.message)).toEqual([PROJECT_TOO_LONG]);
    }
    // A remote URL longer than that whose identity fits is a project like any other.
    const remote = `https://${'u'.repeat(150)}:${'t'.repeat(150)}@github.com/acme/atlas.git`;
    expect(projectSchema.parse(remote)).toBe('github.com/acme/atlas');
    expect(projectSchema.safeParse(' ').error?.issues[0].message).toBe('project must not be empty');
  });
});
