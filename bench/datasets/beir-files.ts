/** The BEIR files of a generated set, by path relative to its folder. */
export function renderBeirFiles(dataset: {
  readonly corpus: readonly object[];
  readonly queries: readonly {
    readonly _id: string;
    readonly metadata: { readonly split: 'dev' | 'test' };
  }[];
  /** [query id, corpus id, score] */
  readonly qrels: readonly (readonly [string, string, number])[];
  /** Questions nothing in the corpus answers (`unanswerable.jsonl`), when the set has them. */
  readonly unanswerable?: readonly object[];
}): Record<string, string> {
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
    ...(dataset.unanswerable ? { 'unanswerable.jsonl': jsonl(dataset.unanswerable) } : {}),
    'qrels/dev.tsv': qrels('dev'),
    'qrels/test.tsv': qrels('test'),
  };
}
