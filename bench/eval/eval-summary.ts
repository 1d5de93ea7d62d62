import { fixed, markdownTable, ms } from '../report/markdown';
import { modeLabel, precisionTable, type EvalResults } from './eval-report';

/**
 * One table over every dataset and split of a run, and one per question type, laid out to be
 * pasted into docs/performance.md as they are.
 */
export function renderEvalSummary(runs: readonly EvalResults[]): string {
  const first = runs[0];
  const overall = markdownTable(
    ['set', 'split', 'queries', 'mode', 'recall@5', 'recall@10', 'nDCG@10', 'MRR@10', 'p50 ms', 'p95 ms'],
    runs.flatMap((r) =>
      r.scores.map((s, i) => [
        i === 0 ? r.dataset : '',
        i === 0 ? r.split : '',
        i === 0 ? String(r.queries) : '',
        modeLabel(s.mode),
        fixed(s.recallAt5),
        fixed(s.recallAt10),
        fixed(s.ndcgAt10),
        fixed(s.reciprocalRank),
        ms(s.p50Ms),
        ms(s.p95Ms),
      ]),
    ),
  );
  const typed = runs.filter((r) => r.scores.some((s) => Object.keys(s.byType).length > 0));
  const perType = typed.flatMap((r) => {
    const byMode = new Map(r.scores.map((s) => [s.mode, s.byType]));
    const types = Object.keys(byMode.get('hybrid') ?? r.scores[0].byType);
    return types.map((type, i) => {
      const cell = (
        mode: 'text' | 'vector' | 'hybrid',
        metric: 'recallAt5' | 'recallAt10' | 'reciprocalRank',
      ) => fixed(byMode.get(mode)?.[type]?.[metric] ?? Number.NaN);
      return [
        i === 0 ? `${r.dataset} (${r.split})` : '',
        `${type} (${byMode.get('hybrid')?.[type]?.queries ?? r.scores[0].byType[type].queries})`,
        `${cell('text', 'recallAt10')} / ${cell('vector', 'recallAt10')} / ${cell('hybrid', 'recallAt10')}`,
        `${cell('text', 'recallAt5')} / ${cell('vector', 'recallAt5')} / ${cell('hybrid', 'recallAt5')}`,
        `${cell('text', 'reciprocalRank')} / ${cell('vector', 'reciprocalRank')} / ${cell('hybrid', 'reciprocalRank')}`,
      ];
    });
  });
  const sections = [
    '# Retrieval evaluation summary',
    '',
    `Run ${first?.startedAt ?? 'n/a'}, model \`${first?.model.id ?? 'n/a'}\`. Every query through \`RecallMemoriesUseCase\` (limit 10) once per mode.`,
    '',
    overall,
  ];
  if (perType.length > 0)
    sections.push(
      '',
      'Per question type (text / vector / hybrid):',
      '',
      markdownTable(['set (split)', 'type (queries)', 'recall@10', 'recall@5', 'MRR@10'], perType),
    );
  const precision = precisionTable(runs);
  if (precision)
    sections.push(
      '',
      'Precision (unanswerable questions answered with nothing, per kind; evidence of the answerable',
      "questions' top 10 that the relevance floor removes, hybrid):",
      '',
      precision,
    );
  return `${sections.join('\n')}\n`;
}
