import { Injectable } from '@nestjs/common';
import { placeholderFor, SecretDetector } from '@app/secrets';

/** Keys whose string value is a credential whatever it looks like (`{"password": "hunter2"}`). */
const SECRET_KEY = /^(?:.*[_-])?(?:password|passwd|secret|token|api[_-]?key|private[_-]?key|credentials?)$/i;
const SENSITIVE = placeholderFor('sensitive');

/**
 * Runs the secret detector over everything a session stores, before it is written, logged or
 * enqueued: every string of an event payload (keys included, at any depth) and the session's text
 * fields. Findings become `[REDACTED:<kind>]`; the originals are not kept anywhere (captured
 * events are context, not secrets to reveal later).
 */
@Injectable()
export class SessionScreen {
  constructor(private readonly detector: SecretDetector) {}

  text(value: string): string;
  text(value: string | undefined): string | undefined;
  text(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    const { text, findings } = this.detector.redact(value);
    return findings.length === 0 ? value : text;
  }

  payload(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.payload(item));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [
          this.text(key),
          typeof item === 'string' && item !== '' && SECRET_KEY.test(key) ? SENSITIVE : this.payload(item),
        ]),
      );
    }
    return value;
  }
}
