import { Injectable } from '@nestjs/common';
import { placeholderFor, SecretDetector } from '@app/secrets';

/** Keys whose string value is a credential whatever it looks like (`{"password": "hunter2"}`). */
const SECRET_KEY = /^(?:.*[_-])?(?:password|passwd|secret|token|api[_-]?key|private[_-]?key|credentials?)$/i;
const SENSITIVE = placeholderFor('sensitive');
/** Short strings found clean are remembered: payload keys and tool names repeat in every event. */
const CLEAN_CACHE_MAX_LENGTH = 128;
const CLEAN_CACHE_ENTRIES = 10_000;

/**
 * Runs the secret detector over everything a session stores, before it is written, logged or
 * enqueued: every string of an event payload (keys included, at any depth) and the session's text
 * fields. Findings become `[REDACTED:<kind>]`; the originals are not kept anywhere (captured
 * events are context, not secrets to reveal later).
 */
@Injectable()
export class SessionScreen {
  /** Only strings without findings are kept, so the cache never holds a secret. */
  private readonly clean = new Set<string>();

  constructor(private readonly detector: SecretDetector) {}

  text(value: string): string;
  text(value: string | undefined): string | undefined;
  text(value: string | undefined): string | undefined {
    if (value === undefined || this.clean.has(value)) return value;
    const { text, findings } = this.detector.redact(value);
    if (findings.length > 0) return text;
    if (value.length <= CLEAN_CACHE_MAX_LENGTH) {
      if (this.clean.size >= CLEAN_CACHE_ENTRIES) this.clean.clear();
      this.clean.add(value);
    }
    return value;
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
