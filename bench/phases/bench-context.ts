import type { Client } from 'pg';
import { type Principal } from '@app/tenancy';
import { type LoadedModel } from '@app/embeddings/testing';
import type { ServiceOptions } from '../harness/bench-options';
import type { BenchDatabase } from '../harness/bench-database';
import type { ActiveModel } from '../harness/bulk-loader';
import type { FloorTextIndexes } from '../recall/floor-text-index';

/** What every phase of one benchmark run shares. */
export interface BenchContext {
  readonly services: ServiceOptions;
  readonly db: BenchDatabase;
  readonly queuePrefix: string;
  /** The bench's own connection as the schema owner: loading, the raw floor, polling. */
  readonly pg: Client;
  readonly principals: readonly Principal[];
  /** The model loaded by the bench itself, for raw embed() calls (no batcher, no cache). */
  readonly rawModel: LoadedModel;
  readonly active: ActiveModel;
  /** The recall floor's own copy of each tenant's text index, loaded once per run. */
  readonly floorTexts: FloorTextIndexes;
  /** Every query text timed so far: later phases never reuse one (no query-cache hits). */
  readonly usedQueries: Set<string>;
  readonly log: (line: string) => void;
}
