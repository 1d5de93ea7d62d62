import { DomainError, type ErrorKind } from '@app/kernel';

export enum WebhookErrorCode {
  EndpointNotFound = 'webhook_not_found',
  DeliveryNotFound = 'webhook_delivery_not_found',
  /** A URL that is not http(s), carries credentials, or resolves to an address that is not allowed (400). */
  UrlRefused = 'webhook_url_refused',
  /** Redelivering to a disabled endpoint (409): enable it first. */
  EndpointDisabled = 'webhook_disabled',
  InvalidInput = 'validation_failed',
}

const KIND: Record<WebhookErrorCode, ErrorKind> = {
  [WebhookErrorCode.EndpointNotFound]: 'not_found',
  [WebhookErrorCode.DeliveryNotFound]: 'not_found',
  [WebhookErrorCode.UrlRefused]: 'bad_request',
  [WebhookErrorCode.EndpointDisabled]: 'conflict',
  [WebhookErrorCode.InvalidInput]: 'invalid',
};

export class WebhookError extends DomainError<WebhookErrorCode> {
  constructor(code: WebhookErrorCode, message: string) {
    super(KIND[code], code, message);
    this.name = 'WebhookError';
  }

  static endpointNotFound(id: string): WebhookError {
    return new WebhookError(WebhookErrorCode.EndpointNotFound, `No webhook endpoint ${id} in this tenant`);
  }

  static deliveryNotFound(id: string): WebhookError {
    return new WebhookError(WebhookErrorCode.DeliveryNotFound, `No delivery ${id} for this webhook endpoint`);
  }
}
