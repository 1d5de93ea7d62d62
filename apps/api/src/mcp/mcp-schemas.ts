import { z } from 'zod';
import {
  listMemoriesQuerySchema,
  memoryIdSchema,
  storeMemorySchema,
  updateMemorySchema,
} from '@app/memories';

/**
 * Tool argument pieces built from the REST contracts (same rules, same messages), with the
 * descriptions a model reads. Tool inputs are strict objects: identity comes only from the key,
 * so an argument such as `user_id` is refused instead of silently ignored.
 */

/** Clients send ids as JSON numbers; some models send "12", which the REST path rule accepts. */
export const memoryIdArg = z
  .union([z.number().int().positive(), memoryIdSchema])
  .describe('Memory id, as returned by memory_store, memory_list or memory_recall');

const FIELD_HELP = {
  content:
    'The memory itself, self-contained: readable later without this conversation (a fact, decision, preference, gotcha or runbook step)',
  category: 'Short slug such as facts, decisions, preferences, gotchas or runbooks (default facts)',
  tags: 'Tags as "a, b" or ["a", "b"]; recall and list can filter by them',
  expanded_keywords: 'Extra search words (synonyms, names, abbreviations) that help recall find this memory',
  importance: '0..1; 0.5 by default, 0.8 and above for what every session should know',
  project: 'Project (repository) the memory belongs to; omit for knowledge that applies everywhere',
  expires_at:
    'ISO date-time after which this memory stops being returned (for temporary facts such as "the staging DB is down today"); omit to keep it',
  anchors:
    'The code this memory speaks of: [{path, repo?, symbol?, line_start?, line_end?, commit?, hash?}] (path relative to the repository root; hash: git hash-object of the file; repo defaults to project). When that code changes the memory is marked stale until someone verifies it',
  visibility:
    '"team" (default): every teammate’s agent can recall it; "private": only you. Choose private for personal preferences, notes about a teammate, or anything not meant for the whole team',
} as const;

const store = storeMemorySchema.shape;
const update = updateMemorySchema.shape;
const filters = listMemoriesQuerySchema.shape;

export const storeFields = {
  content: store.content.describe(FIELD_HELP.content),
  category: store.category.describe(FIELD_HELP.category),
  tags: store.tags.describe(FIELD_HELP.tags),
  expanded_keywords: store.expanded_keywords.describe(FIELD_HELP.expanded_keywords),
  importance: store.importance.describe(FIELD_HELP.importance),
  project: store.project.describe(FIELD_HELP.project),
  visibility: store.visibility.describe(FIELD_HELP.visibility),
  expires_at: store.expires_at.describe(FIELD_HELP.expires_at),
  anchors: store.anchors.describe(FIELD_HELP.anchors),
  branch: store.branch.describe(
    'A branch of the project (needs project) this memory belongs to until it is merged: recall and startup_context serve it on that branch only. Omit for knowledge of the whole project',
  ),
  force_sensitive: store.force_sensitive.describe(
    'true when the content is a credential or other secret even if it does not look like one: it is kept in the secret store and only secret_get reveals it',
  ),
};

/** The memory a new one replaces (memory_store's optional argument; memory_correct's, or its alias `id`). */
export const supersedesArg = memoryIdArg.describe(
  'Id of the memory this one replaces (it must be yours, or shared with you for writing): recall then answers with the new memory instead, and the old one stays as history',
);

export const updateFields = {
  content: update.content.describe(FIELD_HELP.content),
  category: update.category.describe(FIELD_HELP.category),
  tags: update.tags.describe(FIELD_HELP.tags),
  expanded_keywords: update.expanded_keywords.describe(FIELD_HELP.expanded_keywords),
  importance: update.importance.describe(FIELD_HELP.importance),
  visibility: update.visibility.describe(FIELD_HELP.visibility),
  anchors: update.anchors.describe(`${FIELD_HELP.anchors}; replaces the memory’s anchors ([] removes them)`),
};

export const filterFields = {
  category: filters.category.describe('Only this category'),
  tag: filters.tag.describe('Only memories having this tag'),
  project: filters.project.describe('Only this project'),
};
