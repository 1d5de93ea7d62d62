import { machineLine, type MachineInfo } from '../report/machine';
import { count, fixed, markdownTable, ms } from '../report/markdown';
import type { ModeScores, QueryOutcome, RecallMode } from './retrieval-eval';

export interface EvalResults {
  readonly dataset: string;
  readonly startedAt: string;
  readonly machine: MachineInfo;
  readonly model: { readonly id: string; readonly dimensions: number };
  readonly documents: number;
  readonly memories: number;
  readonly skipped: number;
  readonly queries: number;
  readonly importMs: number;
  readonly indexMs: number;
  readonly vectorLegWired: boolean;
  readonly scores: readonly ModeScores[];
  readonly outcomes: readonly QueryOutcome[];
}

/** Where the relevant document landed, per leg: the numbers behind "why does fusion win or lose". */
export function legAgreement(outcomes: readonly QueryOutcome[]): Record<string, number> {
  const found = (o: QueryOutcome, mode: RecallMode) => o.firstRelevantRank[mode] !== null;
  const tally = {
    both: 0,
    textOnly: 0,
    vectorOnly: 0,
    neither: 0,
    hybridMissedFoundByALeg: 0,
    hybridWorseThanBestLeg: 0,
    singleLegHitBelowBothLegDocs: 0,
  };
  for (const o of outcomes) {
    const t = found(o, 'text');
    const v = found(o, 'vector');
    if (t && v) tally.both += 1;
    else if (t) tally.textOnly += 1;
    else if (v) tally.vectorOnly += 1;
    else tally.neither += 1;
    const best = Math.min(o.firstRelevantRank.text ?? Infinity, o.firstRelevantRank.vector ?? Infinity);
    const hybrid = o.firstRelevantRank.hybrid ?? Infinity;
    if ((t || v) && hybrid === Infinity) tally.hybridMissedFoundByALeg += 1;
    if (hybrid > best) tally.hybridWorseThanBestLeg += 1;
    const legs = o.hybridLegRanks;
    const singleLeg = legs !== null && (legs.text === null || legs.vector === null);
    if (singleLeg && (o.outrankedByBothLegs ?? 0) > 0) tally.singleLegHitBelowBothLegDocs += 1;
  }
  return tally;
}

export function renderEvalReport(r: EvalResults): string {
  const byMode = new Map(r.scores.map((s) => [s.mode, s]));
  const rows = r.scores.map((s) => [
    s.mode === 'hybrid' ? '**hybrid (RRF)**' : `${s.mode} only`,
    fixed(s.recallAt5),
    fixed(s.recallAt10),
    fixed(s.ndcgAt10),
    `${s.answered} / ${r.queries}`,
    ms(s.p50Ms),
  ]);
  const hybrid = byMode.get('hybrid');
  const verdicts: string[] = [];
  if (hybrid) {
    for (const metric of ['recallAt5', 'recallAt10', 'ndcgAt10'] as const) {
      const legs = (['text', 'vector'] as const).map((m) => byMode.get(m)?.[metric] ?? Number.NaN);
      const beats = legs.every((v) => hybrid[metric] > v);
      verdicts.push(
        `${metric.replace('At', '@')}: hybrid ${fixed(hybrid[metric])} vs text ${fixed(legs[0])} / vector ${fixed(legs[1])} → ${beats ? 'beats both' : '**does not beat both**'}`,
      );
    }
  }
  const agreement = legAgreement(r.outcomes);
  const sections = [
    `# Retrieval evaluation: \`${r.dataset}\``,
    '',
    `Run ${r.startedAt}. Machine: ${machineLine(r.machine)}. Model \`${r.model.id}\` (${r.model.dimensions}-d).`,
    `${count(r.documents)} documents → ${count(r.memories)} memories of one user (${r.skipped} skipped), ${count(r.queries)} judged queries. ` +
      `Import ${fixed(r.importMs / 1000, 1)} s, embedded by the worker ${fixed(r.indexMs / 1000, 1)} s later. ` +
      'Every query runs through `RecallMemoriesUseCase` (limit 10) once per mode.',
    '',
    markdownTable(['mode', 'recall@5', 'recall@10', 'nDCG@10', 'relevant doc in top 10', 'p50 ms'], rows),
    '',
    ...verdicts.map((v) => `- ${v}`),
    '',
    'Where the first relevant document is found within the top 10 (per query):',
    '',
    markdownTable(
      [
        'both legs',
        'text leg only',
        'vector leg only',
        'neither',
        'hybrid lost one a leg had',
        'hybrid ranked it below the better leg',
        'hybrid: one-leg answer below results both legs returned',
      ],
      [
        [
          agreement.both,
          agreement.textOnly,
          agreement.vectorOnly,
          agreement.neither,
          agreement.hybridMissedFoundByALeg,
          agreement.hybridWorseThanBestLeg,
          agreement.singleLegHitBelowBothLegDocs,
        ].map(String),
      ],
    ),
  ];
  if (!r.vectorLegWired)
    sections.push(
      '',
      '- VECTOR_RECALL is not wired into recall yet: vector-only and hybrid ran without a vector leg.',
    );
  return `${sections.join('\n')}\n`;
}
