import { Injectable, Logger } from '@nestjs/common';
import { HandlesJob, type JobPayload } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { CodeEventRepository } from '../adapters/code-event.repository';

/**
 * `code-events.apply`: turns a recorded code event into anchor states (see
 * `CodeEventRepository.apply`), as the system in one transaction. Idempotent: an event applied
 * once is not applied again, so a retried or duplicated job changes nothing more.
 */
@Injectable()
export class ApplyCodeEventUseCase {
  private readonly logger = new Logger('CodeEvents');

  constructor(
    private readonly tx: TransactionRunner,
    private readonly events: CodeEventRepository,
  ) {}

  @HandlesJob('code-events.apply')
  async onJob(payload: JobPayload<'code-events.apply'>): Promise<void> {
    const changed = await this.execute(payload.tenantId, payload.eventId);
    if (changed) this.logger.log(`code event ${payload.eventId}: ${changed} anchors changed`);
  }

  /** Anchors the event changed; null when it was applied before (or does not exist). */
  execute(tenantId: string, eventId: number): Promise<number | null> {
    return this.tx.asSystem((tx) => this.events.apply(tx, tenantId, eventId));
  }
}
