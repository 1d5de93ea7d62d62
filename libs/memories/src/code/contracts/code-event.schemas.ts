import { z } from 'zod';
import {
  MAX_CHANGED_PATHS,
  anchorPathSchema,
  blobHashSchema,
  branchSchema,
  commitSchema,
  treeFactsSchema,
} from '../../contracts/anchor.schemas';
import { presentStored } from '../../contracts/memory.mapping';
import { contentSchema, storedMemoryResponse } from '../../contracts/memory.schemas';
import { projectSchema } from '../../contracts/project.schemas';
import type { VerifyInput, VerifyOutcome } from '../application/verify-memory.use-case';
import type { CodeEvent, NewCodeEvent } from '../domain/code-event';

const changeSchema = z
  .object({
    path: anchorPathSchema.describe('the file’s path after the change'),
    status: z.enum(['added', 'modified', 'deleted', 'renamed']).default('modified'),
    hash: blobHashSchema
      .nullable()
      .optional()
      .describe('the file’s git blob id after the change (`git hash-object`); null or absent when deleted'),
    from: anchorPathSchema.optional().describe('renamed: the path before'),
  })
  .strict()
  .refine((c) => c.status !== 'renamed' || c.from !== undefined, {
    message: 'a renamed change needs from',
  })
  .refine((c) => c.status === 'deleted' || (c.hash !== undefined && c.hash !== null), {
    message: 'a change other than deleted needs the file’s hash',
  });

/**
 * `POST /api/code-events`: what changed in a repository (a client's working tree at the end of a
 * session, or a push CI saw). Paths and git blob ids only, never file contents.
 */
export const codeEventSchema = z
  .object({
    repo: projectSchema.describe('project identity or git remote URL'),
    branch: branchSchema.optional(),
    before: commitSchema.optional().describe('the commit before the change'),
    after: commitSchema.optional().describe('the commit after the change'),
    merged: z
      .boolean()
      .default(false)
      .describe("true: `branch` was merged; its branch-scoped memories become the project's"),
    branch_deleted: z
      .boolean()
      .default(false)
      .describe(
        'true: `branch` was deleted without a merge; its branch-scoped memories are deleted (restorable)',
      ),
    changes: z.array(changeSchema).max(MAX_CHANGED_PATHS, `at most ${MAX_CHANGED_PATHS} changes`).default([]),
  })
  .strict()
  .refine((e) => e.changes.length > 0 || e.merged || e.branch_deleted, {
    message: 'changes must name at least one path (or the event reports a merge or a deleted branch)',
    path: ['changes'],
  })
  .refine((e) => !(e.merged || e.branch_deleted) || e.branch !== undefined, {
    message: 'a merge or a deleted branch needs branch',
    path: ['branch'],
  })
  .refine((e) => !(e.merged && e.branch_deleted), {
    message: 'an event reports a merge or a deleted branch, not both',
    path: ['branch_deleted'],
  });
export type CodeEventBody = z.output<typeof codeEventSchema>;

export const codeEventIdSchema = z.coerce
  .number({ error: 'id must be a positive integer' })
  .int('id must be a positive integer')
  .positive('id must be a positive integer')
  .max(Number.MAX_SAFE_INTEGER, 'id must be a positive integer');

export const codeEventResponse = z.object({
  id: z.number().int(),
  repo: z.string(),
  branch: z.string().nullable(),
  before: z.string().nullable(),
  after: z.string().nullable(),
  merged: z.boolean(),
  branch_deleted: z.boolean(),
  changes: z.number().int().describe('how many paths it reported'),
  created_at: z.string(),
  applied_at: z.string().nullable().describe('when the worker applied it to the anchors (null: queued)'),
  anchors_changed: z.number().int().nullable().describe('anchors it made stale, orphaned or moved'),
  branch_memories: z
    .number()
    .int()
    .nullable()
    .describe(
      "a merge: memories of the branch that became the project's; a deleted branch: memories deleted",
    ),
});

export function toNewCodeEvent(body: CodeEventBody): NewCodeEvent {
  return {
    repo: body.repo,
    branch: body.branch,
    before: body.before,
    after: body.after,
    merged: body.merged,
    branchDeleted: body.branch_deleted,
    changes: body.changes.map((c) => ({
      path: c.path,
      status: c.status,
      hash: c.hash ?? null,
      ...(c.from !== undefined ? { from: c.from } : {}),
    })),
  };
}

export function presentCodeEvent(event: CodeEvent): z.output<typeof codeEventResponse> {
  return {
    id: event.id,
    repo: event.repo,
    branch: event.branch,
    before: event.before,
    after: event.after,
    merged: event.merged,
    branch_deleted: event.branchDeleted,
    changes: event.changes,
    created_at: event.createdAt,
    applied_at: event.appliedAt,
    anchors_changed: event.anchorsChanged,
    branch_memories: event.branchMemories,
  };
}

export const verifyMemorySchema = z
  .object({
    correction: contentSchema
      .optional()
      .describe(
        'the memory no longer holds: this text replaces it (a proposal for review when you may not change it)',
      ),
    tree: treeFactsSchema
      .optional()
      .describe('your working tree: anchors on its listed paths take its blob ids'),
  })
  .strict();
export type VerifyMemoryBody = z.output<typeof verifyMemorySchema>;

export function toVerifyInput(body: VerifyMemoryBody): VerifyInput {
  return {
    correction: body.correction,
    tree: body.tree,
  };
}

export const verifyMemoryResponse = z.object({
  id: z.number().int(),
  verified: z.boolean().describe('true: confirmed, its anchors now point at the code as it is'),
  anchors: z.number().int().optional().describe('anchors kept (a deleted file loses its anchor)'),
  corrected_by: storedMemoryResponse.optional().describe('the correction that replaces it'),
});

export function presentVerify(outcome: VerifyOutcome): z.output<typeof verifyMemoryResponse> {
  if ('verified' in outcome) return { id: outcome.verified, verified: true, anchors: outcome.anchors };
  return { id: outcome.corrected, verified: false, corrected_by: presentStored(outcome.by) };
}

/** `/api/projects/:project/branches/:branch`: both URL-encoded (`github.com%2Facme%2Fpay`, `feature%2Fx`). */
export const projectBranchParamsSchema = z.object({
  project: projectSchema.describe('The project (host/owner/repo, or a git remote URL), URL-encoded'),
  branch: branchSchema.describe('The branch, URL-encoded'),
});

/** The event a merge (`promote`) or a deletion of a branch records: no paths, the branch's fate. */
export function toBranchEvent(
  where: z.output<typeof projectBranchParamsSchema>,
  outcome: 'merged' | 'deleted',
): NewCodeEvent {
  return {
    repo: where.project,
    branch: where.branch,
    merged: outcome === 'merged',
    branchDeleted: outcome === 'deleted',
    changes: [],
  };
}
