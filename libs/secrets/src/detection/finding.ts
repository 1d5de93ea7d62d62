/** One detected secret, as offsets into the normalised text. */
export interface SecretFinding {
  /** Short kebab-case kind shown in `[REDACTED:<kind>]`, e.g. `jwt`, `aws`, `database-password`. */
  readonly kind: string;
  readonly start: number;
  readonly end: number;
}

/** A detection layer: pure, synchronous, returns findings on already-normalised text. */
export type DetectionLayer = (text: string) => SecretFinding[];

export const REDACTION_PATTERN = /\[REDACTED:[a-z0-9-]+\]/g;

export function placeholderFor(kind: string): string {
  return `[REDACTED:${kind}]`;
}
