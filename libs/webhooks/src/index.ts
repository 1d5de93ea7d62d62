export * from './domain/webhook-events';
export * from './domain/webhook-endpoint';
export * from './domain/webhook.errors';
export * from './contracts/webhook.schemas';
export * from './application/register-webhook.use-case';
export * from './application/manage-webhook.use-case';
export * from './application/webhook-deliveries.use-case';
export { signatureHeader } from './application/deliver-webhook.use-case';
export * from './webhooks.module';
