import { SetMetadata } from '@nestjs/common';
import type { ZodObject, ZodPipe, ZodType } from 'zod';
import type { RateLimitBudget } from '../rate-limit/rate-limit-budgets';

/** Operation groups of the document, in the order Swagger UI lists them. */
export const API_TAGS = {
  memories: 'Store, list, read, update and delete your memories',
  sharing: 'Share a memory, or every memory with a tag, with a teammate (read or write)',
  recall: 'Find memories: hybrid recall, the write guard, near-duplicates',
  sync: 'Incremental sync for offline copies (see docs/sync.md)',
  sessions:
    'Agent sessions: start and end them, capture their events, read their timeline, import transcripts',
  jobs: 'Progress of the long-running jobs you started (transcript imports)',
  secrets: 'Sensitive memories: the audited reveal and moving secrets into the secret store',
  embeddings: 'Switch the embedding model (admin scope; re-embeds every tenant)',
  admin: "Users, API keys and admin job progress in the caller's tenant (admin scope)",
  auth: 'Check an API key',
  usage: "Your tenant's use of its quotas (memories, content bytes, sessions per day)",
  code: 'Memories that know the code: report code changes, verify memories whose anchored code changed',
} as const;

export type ApiTagName = keyof typeof API_TAGS;

/** Answers a route may add, or describe more sharply than the shared wording. */
export type ApiErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 503;

type RequestPart = ZodObject | ZodPipe;

export interface ApiRouteOptions {
  /** Stable name for generated clients; unique across the API (the builder checks). */
  readonly operationId: string;
  readonly tag: ApiTagName;
  readonly summary: string;
  readonly description?: string;
  /** JSON body, as the handler parses it. */
  readonly body?: ZodType;
  /** The body's media types when it is not JSON (a streamed JSON Lines upload); `body` describes it. */
  readonly bodyMediaTypes?: readonly string[];
  readonly query?: RequestPart;
  readonly params?: RequestPart;
  readonly headers?: RequestPart;
  /**
   * Success body. Its status is not written here: the builder takes the one Nest sends
   * (`@HttpCode`, else 201 for POST and 200 otherwise), so the two cannot disagree.
   */
  readonly response: ZodType;
  readonly responseDescription?: string;
  /** The rate-limit budget the route counts against when its scopes do not say it (session events). */
  readonly rateLimit?: RateLimitBudget;
  /** Route-specific answers, or a sharper wording of a shared one: status → when it happens. */
  readonly errors?: Readonly<Partial<Record<ApiErrorStatus, string>>>;
}

export const API_ROUTE_METADATA = 'openapi:route';

/**
 * Describes the route for the OpenAPI document, beside the handler. Method and path are read
 * from the Nest route decorator (@Get, @Post...) next to it, never repeated here.
 */
export const ApiRoute = (options: ApiRouteOptions): MethodDecorator =>
  SetMetadata(API_ROUTE_METADATA, options);
