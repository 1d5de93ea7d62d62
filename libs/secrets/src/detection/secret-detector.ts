import { entropyFallbackLayer } from './entropy-fallback.layer';
import { placeholderFor, REDACTION_PATTERN, type DetectionLayer, type SecretFinding } from './finding';
import { normalizeText } from './normalize-text';
import { patternRulesLayer } from './pattern-rules.layer';
import { secretlintLayer } from './secretlint.layer';

export interface RedactionResult {
  /** The normalised text with each finding replaced by `[REDACTED:<kind>]`. */
  readonly text: string;
  readonly findings: readonly SecretFinding[];
}

/** Specific layers first: on overlap the earlier layer's kind wins. */
const DEFAULT_LAYERS: readonly DetectionLayer[] = [secretlintLayer, patternRulesLayer, entropyFallbackLayer];

/**
 * Finds secrets in text before it is written, logged or enqueued. Synchronous and allocation-light
 * because it runs inline on every text field of every write.
 */
export class SecretDetector {
  constructor(private readonly layers: readonly DetectionLayer[] = DEFAULT_LAYERS) {}

  /** Findings as offsets into `normalizeText(text)`, sorted, non-overlapping. */
  detect(text: string): SecretFinding[] {
    return this.detectNormalized(normalizeText(text));
  }

  /** Idempotent: placeholders are never detected, so redacting twice changes nothing. */
  redact(text: string): RedactionResult {
    const normalized = normalizeText(text);
    const findings = this.detectNormalized(normalized);
    let out = '';
    let at = 0;
    for (const f of findings) {
      out += normalized.slice(at, f.start) + placeholderFor(f.kind);
      at = f.end;
    }
    return { text: out + normalized.slice(at), findings };
  }

  private detectNormalized(text: string): SecretFinding[] {
    const raw: SecretFinding[] = [];
    for (const layer of this.layers) raw.push(...layer(text));
    if (raw.length === 0) return raw;
    const placeholders = [...text.matchAll(REDACTION_PATTERN)].map(
      (m) => [m.index, m.index + m[0].length] as const,
    );
    const kept = raw.filter(
      (f) => f.end > f.start && !placeholders.some(([s, e]) => f.start < e && s < f.end),
    );
    return mergeOverlaps(kept);
  }
}

/** Union of overlapping ranges; the first-reported (most specific) kind names the union. */
function mergeOverlaps(findings: SecretFinding[]): SecretFinding[] {
  const order = new Map(findings.map((f, i) => [f, i]));
  const sorted = [...findings].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: { kind: string; start: number; end: number; rank: number }[] = [];
  for (const f of sorted) {
    const last = merged[merged.length - 1];
    const rank = order.get(f) ?? 0;
    if (last && f.start < last.end) {
      last.end = Math.max(last.end, f.end);
      if (rank < last.rank) Object.assign(last, { kind: f.kind, rank });
    } else {
      merged.push({ kind: f.kind, start: f.start, end: f.end, rank });
    }
  }
  return merged.map(({ kind, start, end }) => ({ kind, start, end }));
}
