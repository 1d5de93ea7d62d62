import { z } from 'zod';
import {
  categorySchema,
  linkedMemoryResponse,
  memoryListItemResponse,
  projectSchema,
  tagsSchema,
  treeFactsSchema,
} from '@app/memories';

export const MAX_RECALL_LIMIT = 100;

const isoInstant = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), 'must be an ISO-8601 date or time')
  .transform((v) => new Date(v));

export const recallSchema = z.object({
  context: z.string({ error: 'context is required' }).trim().min(1, 'context must not be empty').max(8192),
  expanded_query: z.string().max(4096).default(''),
  category: categorySchema.optional(),
  tags: tagsSchema.optional(),
  project: projectSchema
    .optional()
    .describe('Only this project: a project identity or a git remote URL (normalised)'),
  project_boost: projectSchema
    .optional()
    .describe(
      "Rank this project's memories first without leaving out the others: a project identity or a git remote URL (normalised); their score is multiplied by RECALL_PROJECT_BOOST",
    ),
  since: isoInstant.optional(),
  before: isoInstant.optional(),
  sort_by: z.enum(['relevance', 'importance', 'recency']).default('relevance'),
  // Clients ask for more than the cap; clamp instead of failing the recall.
  limit: z
    .number()
    .int()
    .min(1, 'limit must be at least 1')
    .default(10)
    .transform((n) => Math.min(n, MAX_RECALL_LIMIT)),
  explain: z.boolean().default(false),
  // null counts as absent (claude-memory-mcp's client sends unused fields as null).
  tree: treeFactsSchema
    .optional()
    .describe(
      'your working tree (repo, branch, commit, and the files you changed with their git blob ids; never contents): memories anchored to those files read as stale',
    ),
  include_superseded: z
    .boolean()
    .nullish()
    .transform((v) => v ?? false)
    .describe('true: serve superseded memories as they are (history) instead of their newest version'),
});
export type RecallBody = z.output<typeof recallSchema>;

export const checkSchema = z.object({
  content: z.string({ error: 'content is required' }).trim().min(1, 'content must not be empty'),
});

export const duplicatesQuerySchema = z.object({
  threshold: z
    .string()
    .regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'threshold must be a number between 0 and 1')
    .transform(Number)
    .optional(),
  limit: z
    .string()
    .regex(/^\d{1,6}$/, 'limit must be a non-negative integer')
    .transform(Number)
    .optional(),
});

export const recallItemResponse = memoryListItemResponse.extend({
  rank: z.number(),
  redirected_from: z
    .number()
    .int()
    .optional()
    .describe('the superseded hit this memory replaces (it is the newest version of it)'),
  links: z.array(linkedMemoryResponse).describe('links from and to this memory whose both ends you can see'),
  explain: z
    .object({
      text_rank: z.number().int().nullable(),
      vector_rank: z.number().int().nullable(),
      text_score: z.number().nullable().describe("the text leg's BM25 score (null: not a text hit)"),
      vector_score: z
        .number()
        .nullable()
        .describe("the vector leg's cosine similarity to the query (null: not a vector hit)"),
      text_coverage: z
        .number()
        .nullable()
        .describe(
          "share of the query's weight (each query term's IDF) the terms of this memory hold (null: not a text hit)",
        ),
      leg_weights: z
        .object({ text: z.number(), vector: z.number() })
        .describe(
          "the weights the two legs were fused with in this recall, after each leg's lead (RECALL_TEXT_SPREAD, RECALL_VECTOR_SPREAD) and the text leg's coverage (RECALL_TEXT_COVERAGE); the same for every memory of one answer",
        ),
      context_from: z
        .number()
        .int()
        .nullable()
        .describe(
          'the memory next to this one in its thread (`thread:`/`session:` tag) whose relevance it borrowed',
        ),
      context_score: z
        .number()
        .describe('what it borrowed: RECALL_CONTEXT_WEIGHT × that neighbour’s own score'),
      fused_score: z.number().describe('the two legs fused (RECALL_FUSION), before the factors below'),
      importance_factor: z.number(),
      recency_factor: z.number(),
      project_factor: z.number().describe('RECALL_PROJECT_BOOST for a memory of the boosted project, else 1'),
      code_factor: z
        .number()
        .describe(
          '0.5 when the code the memory is anchored to changed since it was written (stale) or is gone, else 1',
        ),
      filters: z.array(z.string()),
      model: z.string().nullable(),
      text_source: z.string().nullable().describe('where the text leg ran: index, or sql:<why> (Postgres)'),
      vector_source: z
        .string()
        .nullable()
        .describe('where the vector leg ran: index, or sql:<why> (Postgres); null without a vector leg'),
      evidence: z
        .enum(['text', 'vector', 'text+vector', 'context'])
        .describe(
          'why it is in the answer: a query word matched it, it is close in meaning, both, or a thread neighbour of such a hit',
        ),
      vector_floor: z
        .number()
        .nullable()
        .describe(
          'the similarity a memory found by meaning alone needed because no query word matched any memory (RECALL_UNMATCHED_VECTOR_FLOOR), else null',
        ),
      relevance: z
        .object({
          passed: z
            .enum(['coverage', 'meaning', 'no-query-words', 'uncalibrated', 'unavailable', 'off'])
            .describe(
              "why the recall answered at all (the relevance floor): the query's topical words are in the caller's memories (coverage ≥ RECALL_COVERAGE_FLOOR), a memory is close in meaning (≥ RECALL_MEANING_FLOOR below the coverage floor, ≥ RECALL_THIN_MEANING_FLOOR for thin coverage, below RECALL_THIN_COVERAGE_FLOOR), the query has no content word, the model has no meaning floor, or the floor could not judge (unavailable: the text leg ran in Postgres; off)",
            ),
          coverage: z
            .number()
            .nullable()
            .describe(
              "share of the query's topical words (weighted by how specific each word is) some readable memory holds",
            ),
          unknown_share: z
            .number()
            .nullable()
            .describe(
              'share held by words no readable memory has and the language does not know (answers nothing from RECALL_UNKNOWN_WORD_FLOOR on)',
            ),
        })
        .describe('the same for every memory of one answer'),
      proposals: z
        .array(z.number().int())
        .describe(
          'proposed corrections of this memory waiting for review (memory_proposals): recall serves it until one is accepted',
        ),
    })
    .optional(),
});
export const recallResponse = z.object({ memories: z.array(recallItemResponse) });
export const checkResponse = z.object({
  action: z.enum(['ADD', 'UPDATE', 'NOOP']),
  match: z.object({ id: z.number().int(), similarity: z.number(), content: z.string() }).optional(),
});
export const duplicatesResponse = z.object({
  pairs: z.array(
    z.object({
      a: z.object({ id: z.number().int(), content: z.string() }),
      b: z.object({ id: z.number().int(), content: z.string() }),
      similarity: z.number(),
    }),
  ),
  threshold: z.number(),
  scan_limit: z.number().int().describe("how many of the caller's most recent memories were probed"),
});
