import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';
import type {
  SecretLintRuleContext,
  SecretLintRuleReportHandler,
  SecretLintSourceCode,
  SecretLintSourceNodeRange,
} from '@secretlint/types';
import type { DetectionLayer, SecretFinding } from './finding';

/**
 * The secretlint recommend preset, run synchronously.
 *
 * `@secretlint/core`'s `lintSource` is async and builds translators, locations and sorted messages
 * per call; detection runs inline on every write, so we drive the preset's rule modules directly
 * (their `file` handlers are synchronous regex scans). `secretlint.layer.spec.ts` checks this runner
 * reports the same ranges as `lintSource` on a sample corpus.
 */
const RULE_OPTIONS: Record<string, object> = {
  // Off by default in the preset; the issue asks for access-key-id detection.
  '@secretlint/secretlint-rule-aws': { enableIDScanRule: true },
};

let sink: SecretFinding[] = [];
let currentKind = 'secretlint';

const handlers: SecretLintRuleReportHandler[] = [];
const kinds: string[] = [];
for (const rule of recommendedRules) {
  // The comment filter only suppresses findings via core's ignore machinery; it scans nothing.
  if (rule.meta.id.endsWith('filter-comments')) continue;
  const kind = rule.meta.id.replace('@secretlint/secretlint-rule-', '');
  const context: SecretLintRuleContext = {
    sharedOptions: {},
    createTranslator: () => (messageId, data) => ({
      message: String(messageId),
      messageId: String(messageId),
      data,
    }),
    report: (descriptor) =>
      sink.push({ kind: currentKind, start: descriptor.range[0], end: descriptor.range[1] }),
    ignore: () => undefined,
  };
  handlers.push(rule.create(context, RULE_OPTIONS[rule.meta.id] ?? {}));
  kinds.push(kind);
}

export const secretlintLayer: DetectionLayer = (text) => {
  const source = sourceFor(text);
  sink = [];
  try {
    handlers.forEach((handler, i) => {
      currentKind = kinds[i] ?? 'secretlint';
      // Scanner rules in the preset are synchronous; a returned promise would mean a rule changed.
      void handler.file?.(source);
    });
    return sink;
  } finally {
    sink = [];
  }
};

/** Secretlint rule kinds this layer can report (for docs and the evaluation). */
export const SECRETLINT_KINDS: readonly string[] = kinds;

function sourceFor(content: string): SecretLintSourceCode {
  const unsupported = (): never => {
    throw new Error('location helpers are not used by scanner rules');
  };
  return {
    hasBOM: false,
    content,
    filePath: undefined,
    physicalFilePath: undefined,
    contentType: 'text',
    ext: '',
    getFilePath: () => undefined,
    getPhysicalFilePath: () => undefined,
    locationToRange: unsupported,
    rangeToLocation: (): ReturnType<SecretLintSourceCode['rangeToLocation']> => unsupported(),
    positionToIndex: unsupported,
    indexToPosition: unsupported,
  };
}

export type { SecretLintSourceNodeRange };
