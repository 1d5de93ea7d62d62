import { z } from 'zod';
import { projectIdentity } from '@app/kernel';

/** The longest project a memory keeps, and so the longest any project filter can match. */
export const MAX_PROJECT_LENGTH = 200;
export const PROJECT_TOO_LONG = `project is at most ${MAX_PROJECT_LENGTH} characters`;

/**
 * A project as every write stores it and every filter compares it: trimmed, a git remote URL as
 * its identity (`git@github.com:o/r.git` and `https://github.com/o/r` are both `github.com/o/r`),
 * at most 200 characters once normalised. One schema for stores and filters, so a filter refuses
 * what a store refuses (422, same message) instead of answering "nothing matches" for a project no
 * memory can have.
 */
export const projectSchema = z
  .string()
  .trim()
  .min(1, 'project must not be empty')
  // A remote URL may be longer than its identity (scheme, credentials, port), never by this much.
  .max(2048, PROJECT_TOO_LONG)
  .transform((value) => projectIdentity({ project: value }) ?? value)
  .refine((value) => value.length <= MAX_PROJECT_LENGTH, PROJECT_TOO_LONG);
