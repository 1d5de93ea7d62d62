import { DomainError, type ErrorKind } from '@app/kernel';

export enum EmbeddingErrorCode {
  /** The model id or its dimensions are not acceptable, or a reindex names a model that cannot be loaded (422). */
  InvalidModel = 'embedding_model_invalid',
  /** A configured or active model cannot be loaded here (missing folder, remote loading off) (503). */
  ModelUnavailable = 'embedding_model_unavailable',
  /** The loaded model's vector size differs from the registered one (409). */
  DimensionsMismatch = 'embedding_model_dimensions_mismatch',
  /** A reindex to another model is queued or running (409). */
  ReindexInProgress = 'reindex_in_progress',
}

const KIND: Record<EmbeddingErrorCode, ErrorKind> = {
  [EmbeddingErrorCode.InvalidModel]: 'invalid',
  [EmbeddingErrorCode.ModelUnavailable]: 'unavailable',
  [EmbeddingErrorCode.DimensionsMismatch]: 'conflict',
  [EmbeddingErrorCode.ReindexInProgress]: 'conflict',
};

export class EmbeddingError extends DomainError<EmbeddingErrorCode> {
  constructor(code: EmbeddingErrorCode, message: string) {
    super(KIND[code], code, message);
    this.name = 'EmbeddingError';
  }
}

/** The message of what a model call or a statement threw, as index states record it. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
