import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { HandlesJob } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { WebhookRepository } from '../adapters/webhook.repository';

const BATCH = 1_000;

/** `webhooks.purge`: deletes finished deliveries older than WEBHOOK_DELIVERY_RETENTION_DAYS, hourly. */
@Injectable()
export class PurgeWebhookDeliveriesUseCase {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookRepository) private readonly repository: WebhookRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @HandlesJob('webhooks.purge', {
    schedule: { slotMs: 60 * 60_000, enqueueEveryMs: 5 * 60_000, idPrefix: 'webhooks-purge' },
  })
  async onSchedule(): Promise<void> {
    const purged = await this.execute();
    if (purged > 0) this.logger.log(`purged ${purged} finished webhook deliveries`);
  }

  async execute(): Promise<number> {
    let purged = 0;
    for (;;) {
      const n = await this.tx.asSystem((tx) =>
        this.repository.purgeFinished(tx, this.config.webhooks.deliveryRetentionDays, BATCH),
      );
      purged += n;
      if (n < BATCH) return purged;
    }
  }
}
