import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader } from './deliver-webhook.use-case';

describe('signatureHeader (Standard Webhooks)', () => {
  it('matches the specification’s example', () => {
    // The example of the Standard Webhooks specification (spec/standard-webhooks.md, "Signature scheme").
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const header = signatureHeader(
      [secret],
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      new Date(1614265330 * 1000),
      '{"test": 2432232314}',
    );
    expect(header).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs with every secret given, current first, each an HMAC-SHA256 of id.timestamp.body', () => {
    const secrets = [
      'whsec_' + Buffer.alloc(24, 1).toString('base64'),
      'whsec_' + Buffer.alloc(24, 2).toString('base64'),
    ];
    const at = new Date(1_700_000_000_000);
    const header = signatureHeader(secrets, 'msg_1', at, '{"a":1}');
    const expected = secrets.map(
      (s) =>
        'v1,' +
        createHmac('sha256', Buffer.from(s.slice(6), 'base64'))
          .update('msg_1.1700000000.{"a":1}')
          .digest('base64'),
    );
    expect(header.split(' ')).toEqual(expected);
  });
});
