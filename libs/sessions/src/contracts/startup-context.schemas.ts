import { z } from 'zod';
import { projectSchema } from '@app/memories';

/** Wire contract of the session startup context, shared by REST, MCP and OpenAPI. */

const projectField = projectSchema.describe(
  'A project identity or a git remote URL (git@github.com:o/r.git and https://github.com/o/r are both github.com/o/r); every project when absent',
);

export const startupContextQuerySchema = z.object({
  project: projectField.optional(),
  budget: z
    .string()
    .regex(/^\d{1,7}$/, 'budget must be a whole number of characters')
    .transform(Number)
    .optional()
    .describe(
      'Characters the block may take (default STARTUP_CONTEXT_CHARS, at most STARTUP_CONTEXT_MAX_CHARS)',
    ),
});
export type StartupContextQuery = z.output<typeof startupContextQuerySchema>;

/** The same inputs as tool arguments (JSON numbers instead of query strings). */
export const startupContextArgs = {
  project: projectField.optional(),
  budget: z
    .number()
    .int('budget must be a whole number of characters')
    .optional()
    .describe('Characters the block may take (default MCP_STARTUP_CONTEXT_CHARS)'),
};

const startupMemoryResponse = z.object({
  id: z.number().int(),
  content: z.string().describe('on one line, cut to a few hundred characters; redacted when sensitive'),
  category: z.string(),
  importance: z.number(),
  project: z.string().nullable(),
  owner: z.string(),
  is_sensitive: z.boolean(),
  updated_at: z.string(),
  supersedes: z.array(z.number().int()).describe('memories this one replaces'),
});

const startupSessionResponse = z.object({
  id: z.uuid(),
  agent: z.string(),
  project: z.string().nullable(),
  owner: z.string(),
  summary: z.string().describe('on one line, cut to a few hundred characters'),
  started_at: z.string(),
  ended_at: z.string(),
});

export const startupContextResponse = z.object({
  project: z.string().nullable().describe('the normalised project identity; null for every project'),
  budget: z.number().int(),
  text: z.string().describe('the block to put in front of the session, at most `budget` characters'),
  sections: z.object({
    important: z.array(startupMemoryResponse).describe('importance 0.8 and above, most important first'),
    decisions: z
      .array(startupMemoryResponse)
      .describe('decisions and corrections, and memories replacing another one, newest first'),
    sessions: z.array(startupSessionResponse).describe('summaries of the last ended sessions, newest first'),
  }),
  truncated: z.boolean().describe('true when items were left out to stay within the budget'),
  omitted: z.number().int().describe('how many items were left out'),
});
