import { Injectable } from '@nestjs/common';
import { placeholderFor, SecretDetector } from '@app/secrets';
import type { NewAnchor } from '../domain/anchor';
import type { MemoryPatch, NewMemory } from '../domain/memory';

/** Row content of a memory the caller flagged with `force_sensitive`: all of it is secret. */
export const FORCED_PLACEHOLDER = placeholderFor('sensitive');
/** A category must stay a valid slug: one that held a secret is stored as this instead. */
export const REDACTED_CATEGORY = 'redacted';

/** The text fields of a write, as they may be stored. */
interface TextFields {
  readonly content?: string;
  readonly category?: string;
  readonly tags?: readonly string[];
  readonly expandedKeywords?: string;
  readonly project?: string | null;
  readonly anchors?: readonly NewAnchor[];
}

export interface Screened<T> {
  /** The write with every finding replaced by `[REDACTED:<kind>]` (fields without findings unchanged). */
  readonly value: T;
  /**
   * The original content when it held a secret (or was flagged): it goes to the secret store, the
   * row keeps the redacted text. Secrets found only in other fields are redacted and not kept.
   */
  readonly secret: string | null;
  /** Kinds found, for the audit row (never the values). */
  readonly kinds: readonly string[];
}

/**
 * Runs the detector on every text field of a write before anything is written, logged or
 * enqueued. Synchronous; the caller decides what to do with `secret`.
 */
@Injectable()
export class SecretScreen {
  constructor(private readonly detector: SecretDetector) {}

  screenNew(memory: NewMemory): Screened<NewMemory> {
    const screened = this.screenFields(memory, memory.forceSensitive === true);
    return { ...screened, value: { ...memory, ...screened.value } };
  }

  /** `force` applies to the patch's content only (a patch without content cannot be forced). */
  screenPatch(patch: MemoryPatch, force = false): Screened<MemoryPatch> {
    const screened = this.screenFields(patch, force && patch.content !== undefined);
    return { ...screened, value: { ...patch, ...screened.value } };
  }

  /** Redacts one free-text value; `null` when it holds no secret. */
  redact(text: string): { text: string; kinds: string[] } | null {
    const { text: redacted, findings } = this.detector.redact(text);
    return findings.length === 0 ? null : { text: redacted, kinds: findings.map((f) => f.kind) };
  }

  private screenFields(fields: TextFields, force: boolean): Screened<TextFields> {
    const kinds: string[] = [];
    const clean = (text: string): string => {
      const found = this.redact(text);
      if (!found) return text;
      kinds.push(...found.kinds);
      return found.text;
    };
    const value: { -readonly [K in keyof TextFields]: TextFields[K] } = {};
    let secret: string | null = null;
    if (fields.content !== undefined) {
      if (force) {
        value.content = FORCED_PLACEHOLDER;
        secret = fields.content;
        kinds.push('sensitive');
      } else {
        value.content = clean(fields.content);
        if (value.content !== fields.content) secret = fields.content;
      }
    }
    if (fields.category !== undefined) {
      value.category = clean(fields.category) === fields.category ? fields.category : REDACTED_CATEGORY;
    }
    if (fields.tags !== undefined) value.tags = fields.tags.map(clean);
    if (fields.expandedKeywords !== undefined) value.expandedKeywords = clean(fields.expandedKeywords);
    if (fields.project !== undefined && fields.project !== null) value.project = clean(fields.project);
    // Paths and symbols are names, yet a pasted token must not be stored as one either.
    if (fields.anchors !== undefined) {
      value.anchors = fields.anchors.map((a) => ({
        ...a,
        path: clean(a.path),
        ...(a.symbol !== undefined ? { symbol: clean(a.symbol) } : {}),
        ...(a.repo !== undefined ? { repo: clean(a.repo) } : {}),
      }));
    }
    return { value, secret, kinds: [...new Set(kinds)] };
  }
}
