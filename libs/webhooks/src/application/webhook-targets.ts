import { Inject, Injectable } from '@nestjs/common';
import { hostOf, RefusedAddressError, WebhookSender } from '../adapters/webhook-sender';
import { WebhookError, WebhookErrorCode } from '../domain/webhook.errors';

const refused = (message: string) => new WebhookError(WebhookErrorCode.UrlRefused, message);

/**
 * Decides whether a URL may receive webhooks: http(s) only, no credentials in it (they would sit in
 * the database in clear; the signature authenticates the sender), and every address its host
 * resolves to allowed by the address policy. Answers the URL normalised, without a fragment.
 */
@Injectable()
export class WebhookTargets {
  constructor(@Inject(WebhookSender) private readonly sender: WebhookSender) {}

  async accept(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw refused(`"${raw.slice(0, 100)}" is not an absolute URL such as https://hooks.example.com/memory`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw refused(`A webhook URL must be http or https, not ${url.protocol.slice(0, -1)}`);
    }
    if (url.username || url.password) {
      throw refused(
        'A webhook URL must not carry a user name or password: verify the webhook-signature header instead',
      );
    }
    url.hash = '';
    if (url.toString().length > 2000) {
      throw refused(
        'A webhook URL must be at most 2000 characters once normalised (punycode, percent-encoding)',
      );
    }
    try {
      await this.sender.check(url);
    } catch (error) {
      if (error instanceof RefusedAddressError) throw refused(error.message);
      const code = (error as NodeJS.ErrnoException).code ?? 'an error';
      throw refused(`${hostOf(url)} does not resolve (${code}): register the URL once its name exists`);
    }
    return url.toString();
  }
}
