import { z } from 'zod';
import { EMBEDDING_MODEL_ID_PATTERN } from '../domain/embedding-model';

/**
 * `POST /api/admin/embeddings/reindex` and `cli embeddings reindex --model`: the model folder
 * under MODELS_DIR (or hub id) to fill and switch to. Unknown fields are ignored.
 */
export const reindexBody = z.object({
  model: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .regex(EMBEDDING_MODEL_ID_PATTERN, 'must be a model folder name under MODELS_DIR, e.g. glove-sif-100d'),
});

export const reindexBodySchema = reindexBody;
export type ReindexBody = z.output<typeof reindexBodySchema>;

/** 202 answer: poll `GET /api/admin/jobs/{job_id}` for progress. */
export const reindexResponseSchema = z.object({ job_id: z.uuid() });
export type ReindexResponse = z.infer<typeof reindexResponseSchema>;
