import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { JobsModule } from '@app/jobs';
import { SecretsModule } from '@app/secrets';
import { TenancyModule } from '@app/tenancy';
import { WebhookSender } from './adapters/webhook-sender';
import { WebhookRepository } from './adapters/webhook.repository';
import { DeliverWebhookUseCase } from './application/deliver-webhook.use-case';
import {
  DeleteWebhookUseCase,
  ListWebhooksUseCase,
  RotateWebhookSecretUseCase,
  UpdateWebhookUseCase,
} from './application/manage-webhook.use-case';
import { PurgeWebhookDeliveriesUseCase } from './application/purge-webhook-deliveries.use-case';
import { RegisterWebhookUseCase } from './application/register-webhook.use-case';
import {
  ListWebhookDeliveriesUseCase,
  RedeliverWebhookUseCase,
} from './application/webhook-deliveries.use-case';
import { WebhookSecrets } from './application/webhook-secrets';
import { WebhookTargets } from './application/webhook-targets';
import { AddressPolicy } from './domain/address-policy';

const USE_CASES = [
  RegisterWebhookUseCase,
  ListWebhooksUseCase,
  UpdateWebhookUseCase,
  DeleteWebhookUseCase,
  RotateWebhookSecretUseCase,
  ListWebhookDeliveriesUseCase,
  RedeliverWebhookUseCase,
];

/**
 * Signed webhooks: endpoints a tenant admin registers, the deliveries the writes record (see the
 * `webhook_emit` trigger function), and the jobs that send and purge them.
 */
@Module({
  imports: [TenancyModule, JobsModule, SecretsModule],
  providers: [
    {
      provide: WebhookSender,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new WebhookSender(new AddressPolicy(config.webhooks.allowedNetworks), config.webhooks.timeoutMs),
    },
    WebhookRepository,
    WebhookSecrets,
    WebhookTargets,
    DeliverWebhookUseCase,
    PurgeWebhookDeliveriesUseCase,
    ...USE_CASES,
  ],
  exports: USE_CASES,
})
export class WebhooksModule {}
