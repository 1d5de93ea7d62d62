import { z } from 'zod';
import {
  ANCHOR_STATES,
  MAX_ANCHOR_PATH,
  MAX_ANCHOR_SYMBOL,
  MAX_ANCHORS,
  anchorLabel,
  normaliseAnchorPath,
  type MemoryAnchor,
  type NewAnchor,
} from '../domain/anchor';
import { projectSchema } from './project.schemas';

/** A commit id: abbreviated (7+) or full SHA-1/SHA-256, lowercased. */
export const commitSchema = z
  .string()
  .trim()
  .regex(/^[0-9a-fA-F]{7,64}$/, 'a commit is 7 to 64 hexadecimal characters')
  .transform((v) => v.toLowerCase());

/** What git refuses in a ref name (besides control characters): `git check-ref-format`. */
const INVALID_REF = /[\s~^:?*[\\]|\.\.|@\{|^[-/]|\/$|\.lock$/;

/** A git branch name as git allows it (no spaces, no `..`, no control characters), up to 255 characters. */
export const branchSchema = z
  .string()
  .trim()
  .min(1, 'branch must not be empty')
  .max(255, 'branch is at most 255 characters')
  .refine(
    (v) => ![...v].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) && !INVALID_REF.test(v),
    'branch is not a valid git branch name',
  );

/** A git blob id (`git hash-object`): 40 (SHA-1) or 64 (SHA-256) hexadecimal characters. */
export const blobHashSchema = z
  .string()
  .trim()
  .regex(/^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/, 'a hash is a git blob id: 40 or 64 hexadecimal characters')
  .transform((v) => v.toLowerCase());

/** A repository-relative path (see `normaliseAnchorPath`). */
export const anchorPathSchema = z
  .string()
  .max(MAX_ANCHOR_PATH, `a path is at most ${MAX_ANCHOR_PATH} characters`)
  .transform((v, ctx) => {
    const path = normaliseAnchorPath(v);
    if (path === null) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: 'a path is relative to the repository root, without . or .. segments',
      });
      return z.NEVER;
    }
    return path;
  });

export const anchorInputSchema = z
  .object({
    repo: projectSchema
      .optional()
      .describe('project identity or git remote URL of the repository; default: the memory’s project'),
    path: anchorPathSchema.describe('file path relative to the repository root'),
    symbol: z.string().trim().min(1).max(MAX_ANCHOR_SYMBOL).optional().describe('function, class or type'),
    line_start: z.number().int().positive().optional(),
    line_end: z.number().int().positive().optional(),
    commit: commitSchema.optional().describe('the commit the memory speaks of'),
    hash: blobHashSchema
      .optional()
      .describe('the file’s git blob id at that commit (`git hash-object <path>`); never its content'),
  })
  .strict()
  .refine((a) => a.line_end === undefined || a.line_start !== undefined, {
    message: 'line_end needs line_start',
  })
  .refine((a) => a.line_end === undefined || a.line_start === undefined || a.line_end >= a.line_start, {
    message: 'line_end must not be before line_start',
  });
export type AnchorInputBody = z.output<typeof anchorInputSchema>;

export const anchorsInputSchema = z
  .array(anchorInputSchema)
  .max(MAX_ANCHORS, `at most ${MAX_ANCHORS} anchors`)
  .describe('links to the code this memory speaks of; an update replaces them all ([] removes them)');

export function toNewAnchor(body: AnchorInputBody): NewAnchor {
  return {
    repo: body.repo,
    path: body.path,
    symbol: body.symbol,
    lines:
      body.line_start === undefined
        ? undefined
        : { start: body.line_start, end: body.line_end ?? body.line_start },
    commit: body.commit,
    hash: body.hash,
  };
}

export const anchorResponse = z.object({
  repo: z.string(),
  path: z.string(),
  symbol: z.string().nullable(),
  line_start: z.number().int().nullable(),
  line_end: z.number().int().nullable(),
  commit: z.string().nullable(),
  hash: z.string().nullable(),
  state: z
    .enum(ANCHOR_STATES as [string, ...string[]])
    .describe('current; stale: the file changed since; orphaned: the file was deleted'),
  changed: z
    .object({
      event_id: z.number().int().nullable().describe('the code event that reported it (null: your tree)'),
      at: z.string(),
      hash: z.string().nullable(),
      commit: z.string().nullable(),
    })
    .nullable(),
  label: z.string().describe('path:line@commit'),
});

export function presentAnchor(anchor: MemoryAnchor): z.output<typeof anchorResponse> {
  return {
    repo: anchor.repo,
    path: anchor.path,
    symbol: anchor.symbol,
    line_start: anchor.lines?.start ?? null,
    line_end: anchor.lines?.end ?? null,
    commit: anchor.commit,
    hash: anchor.hash,
    state: anchor.state,
    changed: anchor.change
      ? {
          event_id: anchor.change.eventId,
          at: anchor.change.at,
          hash: anchor.change.hash,
          commit: anchor.change.commit,
        }
      : null,
    label: anchorLabel(anchor),
  };
}

/** At most this many paths in a tree's facts or a code event. */
export const MAX_CHANGED_PATHS = 5000;

/**
 * The caller's working tree, sent with a recall or a startup context (the hooks send it): which
 * repository, branch and commit, and the blob ids of the files it has changed (never contents). An
 * anchor of that repository whose path is listed with another blob id is served as stale (and one
 * whose file is listed as deleted as orphaned) for this read.
 */
export const treeFactsSchema = z
  .object({
    repo: projectSchema.describe('project identity or git remote URL of the working tree'),
    branch: branchSchema.optional(),
    commit: commitSchema.optional(),
    paths: z
      .array(
        z
          .object({
            path: anchorPathSchema,
            hash: blobHashSchema.nullable().describe('the file’s blob id in the tree; null: deleted'),
          })
          .strict(),
      )
      .max(MAX_CHANGED_PATHS, `at most ${MAX_CHANGED_PATHS} paths`)
      .default([]),
  })
  .strict();
export type TreeFactsBody = z.output<typeof treeFactsSchema>;
