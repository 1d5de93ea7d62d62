import { z } from 'zod';
import { branchSchema, PIN_SCOPES, projectSchema } from '@app/memories';

/** Wire contract of the session startup context, shared by REST, MCP and OpenAPI. */

const projectField = projectSchema.describe(
  'A project identity or a git remote URL (git@github.com:o/r.git and https://github.com/o/r are both github.com/o/r); every project when absent',
);

const branchField = branchSchema.describe(
  'The session’s branch: memories scoped to that branch of the project are listed too (others’ branches never)',
);

export const startupContextQuerySchema = z.object({
  project: projectField.optional(),
  branch: branchField.optional(),
  budget: z
    .string()
    .regex(/^\d{1,7}$/, 'budget must be a whole number of characters')
    .transform(Number)
    .optional()
    .describe(
      'Characters the block may take (default STARTUP_CONTEXT_CHARS, at most STARTUP_CONTEXT_MAX_CHARS)',
    ),
  tokens: z
    .string()
    .regex(/^\d{1,7}$/, 'tokens must be a whole number')
    .transform(Number)
    .optional()
    .describe(
      'Tokens the block may take, estimated (default STARTUP_CONTEXT_TOKENS, at most STARTUP_CONTEXT_MAX_TOKENS); the character budget applies as well',
    ),
});
export type StartupContextQuery = z.output<typeof startupContextQuerySchema>;

/** The same inputs as tool arguments (JSON numbers instead of query strings). */
export const startupContextArgs = {
  project: projectField.optional(),
  branch: branchField.optional(),
  budget: z
    .number()
    .int('budget must be a whole number of characters')
    .optional()
    .describe('Characters the block may take (default MCP_STARTUP_CONTEXT_CHARS)'),
  tokens: z
    .number()
    .int('tokens must be a whole number')
    .optional()
    .describe('Tokens the block may take, estimated (default STARTUP_CONTEXT_TOKENS)'),
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
  pin: z
    .enum(PIN_SCOPES)
    .optional()
    .describe('in `pinned`: the pin that lists it (team: an admin’s, for everyone; user: your own)'),
  code_state: z
    .enum(['current', 'stale', 'orphaned'])
    .optional()
    .describe(
      'a memory about code: current, or its code changed since it was written (stale) or is gone (orphaned)',
    ),
  anchors: z
    .array(z.string())
    .optional()
    .describe('with code_state: its anchors as path:line@commit (when its code changed, the changed ones)'),
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
  budget: z.number().int().describe('the character budget'),
  tokens: z.number().int().describe('the token budget (estimated tokens)'),
  text: z
    .string()
    .describe('the block to put in front of the session, at most `budget` characters and `tokens` tokens'),
  estimated_tokens: z
    .number()
    .int()
    .describe(
      'tokens of `text` as the service estimates them (≈ 4 ASCII characters per token, other characters 1)',
    ),
  sections: z.object({
    pinned: z
      .array(startupMemoryResponse)
      .describe('pinned memories, always first: team pins, then your own, newest pin first'),
    requested: z
      .array(startupMemoryResponse)
      .describe('what a user asked to remember (tagged `requested`), newest first'),
    important: z.array(startupMemoryResponse).describe('importance 0.8 and above, most important first'),
    decisions: z
      .array(startupMemoryResponse)
      .describe('decisions and corrections, and memories replacing another one, newest first'),
    outdated: z
      .array(startupMemoryResponse)
      .describe(
        'memories of the sections above (pinned ones stay pinned) whose anchored code changed since: verify before relying on them',
      ),
    sessions: z.array(startupSessionResponse).describe('summaries of the last ended sessions, newest first'),
  }),
  truncated: z.boolean().describe('true when items were left out to stay within the budget'),
  omitted: z.number().int().describe('how many items were left out'),
  left_out: z
    .object({
      pinned: z.array(z.number().int()),
      requested: z.array(z.number().int()),
      important: z.array(z.number().int()),
      decisions: z.array(z.number().int()),
      outdated: z.array(z.number().int()),
      sessions: z.array(z.uuid()),
    })
    .describe('what was left out to stay within the budget, per section: memory ids, session ids'),
});
