import { z } from 'zod';
import { SCOPES } from '../domain/principal';
import type { TenantSettingsPatch } from '../domain/tenant';
import { USERNAME_PATTERN, USERNAME_RULE } from '../domain/user';
import { pageQuery, type PageQuery } from './page';

const required = (what: string) => ({
  error: (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`),
});

/**
 * Request contracts of the admin routes and the CLI. Each `*Body` object is the wire shape (for
 * OpenAPI); each `*Schema` maps it to the use case input. Unknown fields are ignored (zod strips them).
 */
export const createUserBody = z.object({
  username: z.string(required('a string')).regex(USERNAME_PATTERN, USERNAME_RULE),
  display_name: z.string('must be a string').trim().min(1).max(200).nullish(),
  is_admin: z.boolean('must be true or false').default(false),
});

export const createUserBodySchema = createUserBody.transform((body) => ({
  username: body.username,
  displayName: body.display_name ?? null,
  isAdmin: body.is_admin,
}));

export type CreateUserInput = z.output<typeof createUserBodySchema>;

/** Scopes as a JSON array or a comma-separated string (the CLI's `--scopes a,b`). */
export const scopesSchema = z
  .union([z.array(z.string()), z.string()], 'must be a list of scopes')
  .transform((value) =>
    (Array.isArray(value) ? value : value.split(',')).map((s) => s.trim()).filter(Boolean),
  )
  .pipe(
    z
      .array(z.enum(SCOPES, `must be one of ${SCOPES.join(', ')}`))
      .min(1, 'needs at least one scope')
      .transform((scopes) => [...new Set(scopes)]),
  );

/** `POST /api/admin/users/:id/keys` and `cli keys create` (the user comes from the path or --user). */
export const createApiKeyBody = z.object({
  name: z.string('must be a string').trim().max(100).default(''),
  scopes: scopesSchema
    .optional()
    .describe('Default: memories:read, memories:write, secrets:read, sessions:write, code-events:write'),
  expires_at: z.iso
    .datetime({ offset: true, error: 'must be an ISO-8601 date-time such as 2030-01-31T00:00:00Z' })
    .nullish(),
  default_visibility: z
    .enum(['team', 'private'], 'must be "team" or "private"')
    .nullish()
    .describe(
      'Visibility of memories stored with this key when a request names none (default: DEFAULT_VISIBILITY)',
    ),
});

export const createApiKeyBodySchema = createApiKeyBody.transform((body) => ({
  name: body.name,
  scopes: body.scopes,
  expiresAt: body.expires_at ? new Date(body.expires_at) : null,
  defaultVisibility: body.default_visibility ?? null,
}));

export type CreateApiKeyBody = z.output<typeof createApiKeyBodySchema>;

export interface ListApiKeysInput extends Partial<PageQuery> {
  /** Username or user id; all of the tenant's keys when absent. */
  readonly user?: string;
}

/** `GET /api/admin/keys?user=&cursor=&limit=` and `cli keys list --user`. */
export const listApiKeysQuery = z
  .object({
    user: z.string('must be a string').trim().min(1).max(128).optional().describe('Username or user id'),
  })
  .extend(pageQuery.shape);

export const listApiKeysQuerySchema = listApiKeysQuery.transform((query): ListApiKeysInput => ({
  ...(query.user === undefined ? {} : { user: query.user }),
  ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
  limit: query.limit,
}));

/** `GET /api/admin/users?cursor=&limit=` and `cli users list`. */
export const listUsersQuery = pageQuery;

/** `PATCH /api/admin/settings` and `cli tenants settings`: at least one setting. */
export const updateTenantSettingsBody = z
  .object({
    team_session_visibility: z
      .boolean('must be true or false')
      .optional()
      .describe("true: teammates read each other's sessions and session events (never change them)"),
    admin_private_access: z
      .boolean('must be true or false')
      .optional()
      .describe(
        "true: admin keys may read and change members' private memories, each request with an `X-Private-Access-Reason` header that is audited",
      ),
    review_team_memories: z
      .boolean('must be true or false')
      .optional()
      .describe("true: a member's new team memory waits for an admin's review before recall serves it"),
    proposal_auto_accept_hours: z
      .number()
      .int('must be a whole number of hours')
      .min(1)
      .max(8760)
      .nullable()
      .optional()
      .describe('a proposal nobody rejected is accepted after this many hours; null: never (the default)'),
    capture_branch_scope: z
      .boolean('must be true or false')
      .optional()
      .describe(
        'true (default): session capture on a branch other than main, master, trunk or develop stores memories scoped to that branch until it is merged',
      ),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message:
      'pass at least one setting: team_session_visibility, admin_private_access, review_team_memories, proposal_auto_accept_hours, capture_branch_scope',
  });

export const updateTenantSettingsBodySchema = updateTenantSettingsBody.transform(
  (body): TenantSettingsPatch => ({
    teamSessionVisibility: body.team_session_visibility,
    adminPrivateAccess: body.admin_private_access,
    reviewTeamMemories: body.review_team_memories,
    proposalAutoAcceptHours: body.proposal_auto_accept_hours,
    captureBranchScope: body.capture_branch_scope,
  }),
);
