import { Injectable } from '@nestjs/common';
import type { Principal } from '@app/tenancy';

/** A teammate's memory whose meaning is close to a text about to be stored. */
export interface NearDuplicateCandidate {
  readonly id: number;
  /** Cosine similarity of the two texts' embeddings, 0…1. */
  readonly similarity: number;
}

export interface ProbeOptions {
  /**
   * The caller's last write found teammates sharing team memories: the probe does not ask again
   * before embedding (the write checks under its lock whatever the probe assumed).
   */
  readonly teammates?: boolean;
}

/**
 * Finds memories of the caller's team that say what `content` says (above the tenant's NOOP
 * threshold, the one `memory_check` answers NOOP with), most similar first. Runs before the write's
 * transaction (embedding holds no connection); the writer checks the candidates again inside it.
 * The recall lib provides it (into `TeamDuplicateProbeSlot`) where it runs; without it a write folds
 * exact duplicates only.
 */
export interface TeamDuplicateProbe {
  candidates(principal: Principal, content: string): Promise<NearDuplicateCandidate[]>;
  /**
   * `candidates` of several texts (an import's items), in input order: the texts are embedded
   * together and searched in one transaction, instead of one embedding and two transactions each.
   */
  candidatesOfEach(
    principal: Principal,
    contents: readonly string[],
    options?: ProbeOptions,
  ): Promise<NearDuplicateCandidate[][]>;
}

/**
 * Where the probe is plugged in: the recall lib builds on memories, so memories cannot import it;
 * recall fills this slot when its module starts. One per process (MemoryWriteModule's).
 */
@Injectable()
export class TeamDuplicateProbeSlot {
  private filled: TeamDuplicateProbe | null = null;

  fill(probe: TeamDuplicateProbe): void {
    this.filled = probe;
  }

  get probe(): TeamDuplicateProbe | null {
    return this.filled;
  }
}
