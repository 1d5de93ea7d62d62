import { SecretDetector } from './secret-detector';

/**
 * Screens stored text again as it is read into an agent's context (MCP tool text, the startup
 * block, recall answers). Writes are screened before they are stored, but only by the rules of
 * their day: a memory stored before a detector rule existed still holds what that rule finds, and
 * this is where it stops leaking. Rows are left as they are (the secret migration moves old
 * secrets into the store); the answer carries `[REDACTED:<kind>]` instead.
 *
 * Text without findings comes back as the very same string (not its normalised form), so the
 * screen changes nothing for the common case.
 */
export class RecalledTextScreen {
  constructor(private readonly detector: SecretDetector) {}

  /** The text with every secret the detector finds now replaced by its placeholder. */
  text(text: string): string {
    if (text === '') return text;
    const redacted = this.detector.redact(text);
    return redacted.findings.length === 0 ? text : redacted.text;
  }

  /** A presented item with `content` (and the other named text fields, when strings) screened. */
  item<T extends { readonly content: string }>(item: T, also: readonly (keyof T & string)[] = []): T {
    const screened: Record<string, unknown> = { ...item, content: this.text(item.content) };
    for (const field of also) {
      const value = item[field];
      if (typeof value === 'string') screened[field] = this.text(value);
    }
    return screened as T;
  }
}
