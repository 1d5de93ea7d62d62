import { describe, expect, it } from 'vitest';
import { DEFAULT_FUSION, type FusionSettings, type LegHit } from '@app/recall';
import { rankTuningResults, tuneFusion, type GatheredLegs, type TuningResult } from './fusion-tuning';

const hits = (...pairs: [number, number][]): LegHit[] =>
  pairs.map(([memoryId, score]) => ({ memoryId, score }));
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
const linear = (textWeight: number): FusionSettings => ({
  ...DEFAULT_FUSION,
  method: 'linear',
  textWeight,
  vectorWeight: 1 - textWeight,
  vectorFloor: 0,
  textSpread: 0,
  vectorSpread: 0,
  contextWeight: 0,
});

describe('tuneFusion', () => {
  // A "single" question only the vector leg answers (the text leg ranks its memory 13th); a
  // "multi" question only the text leg answers (twelve vector hits outrank it when vector weighs more).
  const legs = new Map<string, GatheredLegs>([
    [
      'single',
      {
        text: hits(...range(100, 12).map((id): [number, number] => [id, 10]), [1, 5]),
        vector: hits([1, 0.9]),
        threads: [],
      },
    ],
    [
      'multi',
      {
        text: hits([2, 10]),
        vector: hits(...range(200, 12).map((id): [number, number] => [id, 0.9])),
        threads: [],
      },
    ],
  ]);
  const run = (grid: FusionSettings[]) =>
    tuneFusion({
      gather: async (query) => legs.get(query.id) as GatheredLegs,
      queries: [
        { id: 'single', text: 'single', type: 'single-hop' },
        { id: 'multi', text: 'multi', type: 'multi-hop' },
      ],
      qrels: new Map([
        ['single', new Map([['d1', 1]])],
        ['multi', new Map([['d2', 1]])],
      ]),
      docsByMemory: new Map([...range(1, 300)].map((id) => [id, [`d${id}`]])),
      grid,
    });

  it('measures how far hybrid falls below the best single leg on its worst question type', async () => {
    const [vectorHeavy] = await run([linear(0.2)]);
    // single-hop: hybrid 1, vector alone 1; multi-hop: hybrid 0, text alone 1.
    expect(vectorHeavy).toMatchObject({ recallAt10: 0.5, legMargin: -1 });
    const [balanced] = await run([linear(0.5)]);
    expect(balanced).toMatchObject({ recallAt10: 1, legMargin: 0 });
  });
});

describe('rankTuningResults', () => {
  const result = (r: Partial<TuningResult>): TuningResult => ({
    settings: DEFAULT_FUSION,
    recallAt5: 0.5,
    recallAt10: 0.6,
    ndcgAt10: 0.4,
    legMargin: 0,
    ...r,
  });

  it('puts settings that never lose to a leg first, even when another scores higher overall', () => {
    const losesMultiHop = result({ recallAt10: 0.8, legMargin: -0.05 });
    const neverLoses = result({ recallAt10: 0.7, legMargin: 0 });
    const better = result({ recallAt10: 0.7, recallAt5: 0.6, legMargin: 0.01 });
    expect(rankTuningResults([losesMultiHop, neverLoses, better])).toEqual([
      better,
      neverLoses,
      losesMultiHop,
    ]);
  });
});
