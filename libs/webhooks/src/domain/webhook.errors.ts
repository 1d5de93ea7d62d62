import { DomainError, type ErrorKind } from '@app/kernel';

export enum WebhookErrorCode {
  EndpointNotFound = 'webhook_not_found',
  DeliveryNotFound = 'webhook_delivery_not_found',
  /** A URL that is not http(s), carries credentials, or resolves to an address that is not allowed (400). */
  UrlRefused = 'webhook_url_refused',
  /** Redelivering to a disabled endpoint (409): enable it first. */
  EndpointDisabled = 'webhook_disabled',
  /** Another rotation of the same endpoint's secret committed first (409): read it and rotate again. */
  RotationConflict = 'webhook_rotation_conflict',
  InvalidInput = 'validation_failed',
}

const KIND: Record<WebhookErrorCode, ErrorKind> = {
  [WebhookErrorCode.EndpointNotFound]: 'not_found',
  [WebhookErrorCode.DeliveryNotFound]: 'not_found',
  [WebhookErrorCode.UrlRefused]: 'bad_request',
  [WebhookErrorCode.EndpointDisabled]: 'conflict',
  [WebhookErrorCode.RotationConflict]: 'conflict',
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

  static rotationConflict(id: string): WebhookError {
    return new WebhookError(
      WebhookErrorCode.RotationConflict,
      `The secret of webhook endpoint ${id} was rotated by another request at the same time; its secret is the one that request returned (rotate again for a new one)`,
    );
  }

  static deliveryNotFound(id: string): WebhookError {
    return new WebhookError(WebhookErrorCode.DeliveryNotFound, `No delivery ${id} for this webhook endpoint`);
  }
}
