import { machineLine, type MachineInfo } from '../report/machine';
import { count, fixed, markdownTable, ms } from '../report/markdown';
import type { MeanScores } from '../metrics';
import type { ModeScores, QueryOutcome, RecallMode, UnanswerableOutcome } from './retrieval-eval';

export interface EvalResults {
  readonly dataset: string;
  /** The qrels file scored against (`qrels/<split>.tsv`). */
  readonly split: string;
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
  /** The unanswerable questions' hybrid answers (empty when the set has none). */
  readonly unanswered: readonly UnanswerableOutcome[];
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

const METRICS = [
  ['recallAt5', 'recall@5'],
  ['recallAt10', 'recall@10'],
  ['ndcgAt10', 'nDCG@10'],
  ['reciprocalRank', 'MRR@10'],
] as const;

export const modeLabel = (mode: RecallMode) => (mode === 'hybrid' ? 'hybrid' : `${mode} only`);

/** Hybrid against the better leg on one metric, signed: negative means fusion lost. */
function hybridMargin(scores: readonly MeanScores[], metric: (typeof METRICS)[number][0]): number {
  const [text, vector, hybrid] = scores.map((s) => s[metric]);
  return hybrid - Math.max(text, vector);
}

const signed = (value: number) =>
  Number.isFinite(value) ? `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(3)}` : 'n/a';

/** Per question type: each mode's four scores, and hybrid's margin over the better leg. */
function typeTable(r: EvalResults): string | undefined {
  const types = [...new Set(r.scores.flatMap((s) => Object.keys(s.byType)))];
  if (types.length === 0) return undefined;
  const rows: string[][] = [];
  for (const type of types) {
    const perMode = r.scores.map((s) => s.byType[type]);
    const complete = perMode.every((m) => m !== undefined) && r.scores.length === 3;
    r.scores.forEach((s, i) => {
      const m = perMode[i];
      if (!m) return;
      const margin =
        s.mode === 'hybrid' && complete
          ? `${signed(hybridMargin(perMode, 'recallAt10'))} / ${signed(hybridMargin(perMode, 'reciprocalRank'))}`
          : '';
      rows.push([
        i === 0 ? `${type} (${m.queries})` : '',
        modeLabel(s.mode),
        ...METRICS.map(([k]) => fixed(m[k])),
        margin,
      ]);
    });
  }
  return markdownTable(
    [
      'question type (queries)',
      'mode',
      ...METRICS.map(([, label]) => label),
      'hybrid − best leg (recall@10 / MRR)',
    ],
    rows,
  );
}

const share = (c: { questions: number; empty: number }) =>
  `${fixed(c.empty / c.questions)} (${c.empty}/${c.questions})`;

/** Per run: each mode's share of unanswerable questions answered with nothing, per kind; null when no run has them. */
export function precisionTable(runs: readonly EvalResults[]): string | null {
  const withPrecision = runs.filter((r) => r.scores.some((s) => s.precision));
  if (withPrecision.length === 0) return null;
  const kinds = [
    ...new Set(withPrecision.flatMap((r) => r.scores.flatMap((s) => Object.keys(s.precision?.byKind ?? {})))),
  ].sort();
  const rows = withPrecision.flatMap((r) =>
    r.scores.map((s, i) => {
      const p = s.precision;
      const loss = s.floorLoss;
      return [
        i === 0 ? `${r.dataset} (${r.split})` : '',
        modeLabel(s.mode),
        p ? share(p) : '',
        ...kinds.map((k) => (p?.byKind[k] ? share(p.byKind[k]) : '')),
        loss
          ? `${fixed(loss.evidence === 0 ? 0 : loss.removed / loss.evidence)} (${loss.removed}/${loss.evidence})`
          : '',
      ];
    }),
  );
  return markdownTable(
    ['set (split)', 'mode', 'empty answers', ...kinds, 'evidence the floor removes'],
    rows,
  );
}

export function renderEvalReport(r: EvalResults): string {
  const byMode = new Map(r.scores.map((s) => [s.mode, s]));
  const rows = r.scores.map((s) => [
    s.mode === 'hybrid' ? `**${modeLabel(s.mode)}**` : modeLabel(s.mode),
    ...METRICS.map(([k]) => fixed(s[k])),
    `${s.answered} / ${r.queries}`,
    ms(s.p50Ms),
    ms(s.p95Ms),
  ]);
  const hybrid = byMode.get('hybrid');
  const verdicts: string[] = [];
  if (hybrid) {
    for (const [metric, label] of METRICS) {
      const legs = (['text', 'vector'] as const).map((m) => byMode.get(m)?.[metric] ?? Number.NaN);
      const beats = legs.every((v) => hybrid[metric] > v);
      verdicts.push(
        `${label}: hybrid ${fixed(hybrid[metric])} vs text ${fixed(legs[0])} / vector ${fixed(legs[1])} → ${beats ? 'beats both' : '**does not beat both**'}`,
      );
    }
  }
  const agreement = legAgreement(r.outcomes);
  const types = typeTable(r);
  const sections = [
    `# Retrieval evaluation: \`${r.dataset}\`, ${r.split} split`,
    '',
    `Run ${r.startedAt}. Machine: ${machineLine(r.machine)}. Model \`${r.model.id}\` (${r.model.dimensions}-d).`,
    `${count(r.documents)} documents → ${count(r.memories)} memories of one user (${r.skipped} skipped), ${count(r.queries)} judged queries (\`qrels/${r.split}.tsv\`). ` +
      `Import ${fixed(r.importMs / 1000, 1)} s, embedded by the worker ${fixed(r.indexMs / 1000, 1)} s later. ` +
      "Every query runs through `RecallMemoriesUseCase` (limit 10) once per mode; latency is the use case's, per query.",
    '',
    markdownTable(
      ['mode', ...METRICS.map(([, label]) => label), 'relevant doc in top 10', 'p50 ms', 'p95 ms'],
      rows,
    ),
    '',
    ...verdicts.map((v) => `- ${v}`),
    ...(types ? ['', 'Per question type:', '', types] : []),
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
  const precision = precisionTable([r]);
  if (precision)
    sections.push(
      '',
      'Precision: questions nothing in the corpus answers (`unanswerable.jsonl`), answered with nothing',
      '(share empty, per kind); and the judged-relevant documents of the top 10 the relevance floor',
      'removes (hybrid, answerable questions, against the same recall without the floor):',
      '',
      precision,
    );
  if (!r.vectorLegWired)
    sections.push(
      '',
      '- VECTOR_RECALL is not wired into recall yet: vector-only and hybrid ran without a vector leg.',
    );
  return `${sections.join('\n')}\n`;
}
