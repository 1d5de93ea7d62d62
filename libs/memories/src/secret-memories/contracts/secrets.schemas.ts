import { z } from 'zod';

/**
 * `POST /api/memories/:id/secret` answer: the original content of a sensitive memory, or the
 * content of a memory that holds no secret (`source: "plain"`, as seed 002 answers).
 */
export const revealedSecretSchema = z.object({
  id: z.number().int(),
  content: z.string(),
  category: z.string(),
  source: z.enum(['vault', 'encrypted', 'plain']),
});
export type RevealedSecretResponse = z.infer<typeof revealedSecretSchema>;

/** `POST /api/memories/migrate-secrets` answer (seed contract). */
export const migrateOwnSecretsResponseSchema = z.object({ migrated: z.number().int() });

/**
 * `POST /api/admin/secrets/migrate` and `cli secrets migrate`. `dry_run` defaults to true: the
 * first run reports what would move; run again with `dry_run: false` to move it.
 */
export const secretMigrationBodySchema = z.object({
  tenant: z.string().min(1).max(200).optional(),
  dry_run: z.boolean({ error: 'must be true or false' }).default(true),
});
export type SecretMigrationBody = z.output<typeof secretMigrationBodySchema>;

/** 202 answer: poll `GET /api/admin/jobs/{job_id}` for progress (scanned, found, migrated, failed). */
export const secretMigrationResponseSchema = z.object({ job_id: z.uuid() });
