import { createReadStream, existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Judgements } from '../metrics';

export interface BeirDocument {
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

export interface BeirQuery {
  readonly id: string;
  readonly text: string;
}

export interface BeirDataset {
  readonly name: string;
  readonly documents: readonly BeirDocument[];
  /** Only queries that have at least one judged-relevant document (BEIR's evaluation convention). */
  readonly queries: readonly BeirQuery[];
  readonly qrels: ReadonlyMap<string, Judgements>;
}

/**
 * Reads a BEIR folder: `corpus.jsonl` (`_id`, `title`, `text`), `queries.jsonl` (`_id`, `text`)
 * and `qrels/<split>.tsv` (header `query-id corpus-id score`). Extra fields are ignored.
 */
export async function readBeirDataset(folder: string, split = 'test'): Promise<BeirDataset> {
  const dir = resolve(folder);
  const files = {
    corpus: join(dir, 'corpus.jsonl'),
    queries: join(dir, 'queries.jsonl'),
    qrels: join(dir, 'qrels', `${split}.tsv`),
  };
  for (const path of Object.values(files)) {
    if (!existsSync(path))
      throw new Error(
        `${path} not found: a BEIR folder has corpus.jsonl, queries.jsonl and qrels/${split}.tsv`,
      );
  }
  const documents: BeirDocument[] = [];
  for await (const row of jsonLines(files.corpus)) {
    documents.push({
      id: field(row, '_id', files.corpus),
      title: optionalField(row, 'title'),
      text: field(row, 'text', files.corpus),
    });
  }
  const qrels = new Map<string, Map<string, number>>();
  let header = true;
  for await (const line of lines(files.qrels)) {
    if (header) {
      header = false;
      if (/^query-id\tcorpus-id\tscore$/i.test(line.trim())) continue;
    }
    const [queryId, docId, score] = line.split('\t');
    if (docId === undefined || score === undefined)
      throw new Error(`${files.qrels}: malformed line "${line}"`);
    const judged = qrels.get(queryId) ?? new Map<string, number>();
    judged.set(docId, Number(score));
    qrels.set(queryId, judged);
  }
  const queries: BeirQuery[] = [];
  for await (const row of jsonLines(files.queries)) {
    const id = field(row, '_id', files.queries);
    const relevant = [...(qrels.get(id)?.values() ?? [])].some((score) => score > 0);
    if (relevant) queries.push({ id, text: field(row, 'text', files.queries) });
  }
  return { name: basename(dir), documents, queries, qrels };
}

async function* lines(path: string): AsyncGenerator<string> {
  const reader = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  for await (const line of reader) if (line.trim() !== '') yield line;
}

async function* jsonLines(path: string): AsyncGenerator<Record<string, unknown>> {
  for await (const line of lines(path)) {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null)
      throw new Error(`${path}: each line must be a JSON object`);
    yield parsed as Record<string, unknown>;
  }
}

function field(row: Record<string, unknown>, name: string, path: string): string {
  const value = row[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new Error(`${path}: a line has no string "${name}"`);
}

function optionalField(row: Record<string, unknown>, name: string): string {
  const value = row[name];
  return typeof value === 'string' ? value : '';
}
