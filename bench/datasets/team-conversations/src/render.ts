import type { Dataset } from './assemble';

/** The BEIR files of a dataset, by path relative to its folder. */
export function renderFiles(dataset: Dataset): Record<string, string> {
  const jsonl = (rows: readonly object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
  const split = new Map(dataset.queries.map((q) => [q._id, q.metadata.split]));
  const qrels = (which: 'dev' | 'test') =>
    [
      'query-id\tcorpus-id\tscore',
      ...dataset.qrels.filter(([q]) => split.get(q) === which).map((r) => r.join('\t')),
    ].join('\n') + '\n';
  return {
    'corpus.jsonl': jsonl(dataset.corpus),
    'queries.jsonl': jsonl(dataset.queries),
    'qrels/dev.tsv': qrels('dev'),
    'qrels/test.tsv': qrels('test'),
  };
}
