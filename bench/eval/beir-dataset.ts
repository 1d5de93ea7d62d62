import { createReadStream, existsSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Judgements } from '../metrics';

/** Where a document was said, for sets stored one conversation turn per document. */
export interface TurnMetadata {
  readonly conversation: string;
  readonly session: number;
  readonly turn: number;
  /** The session's date (ISO). */
  readonly date: string;
  readonly speaker: string;
}

export interface BeirDocument {
  readonly id: string;
  readonly title: string;
  readonly text: string;
  /** Present when the corpus row carries a complete `metadata` turn record. */
  readonly turn?: TurnMetadata;
}

export interface BeirQuery {
  readonly id: string;
  readonly text: string;
  /** `metadata.type` of the query (e.g. single-hop, temporal), when the set labels its questions. */
  readonly type?: string;
}

export interface BeirDataset {
  readonly name: string;
  readonly split: string;
  readonly documents: readonly BeirDocument[];
  /** Only queries that have at least one judged-relevant document (BEIR's evaluation convention). */
  readonly queries: readonly BeirQuery[];
  readonly qrels: ReadonlyMap<string, Judgements>;
  /**
   * Questions nothing in the corpus answers (`unanswerable.jsonl`, optional), of this split; `type`
   * is their `metadata.kind` (made-up words, a made-up name in a real question, an absent topic).
   */
  readonly unanswerable: readonly BeirQuery[];
}

/**
 * Reads a BEIR folder: `corpus.jsonl` (`_id`, `title`, `text`), `queries.jsonl` (`_id`, `text`)
 * and `qrels/<split>.tsv` (header `query-id corpus-id score`). Optional `metadata`: on a document
 * `{conversation, session, turn, date, speaker}`, on a query `{type, split}`; a query labelled with
 * another split is left out even if the qrels file judges it. Other fields are ignored. An optional
 * `unanswerable.jsonl` (`_id`, `text`, `metadata` `{kind, split}`) holds questions nothing in the
 * corpus answers, for precision: a recall for them should come back empty.
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
    const turn = turnMetadata(row.metadata);
    documents.push({
      id: field(row, '_id', files.corpus),
      title: optionalField(row, 'title'),
      text: field(row, 'text', files.corpus),
      ...(turn ? { turn } : {}),
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
    const metadata = asRecord(row.metadata);
    if (typeof metadata?.split === 'string' && metadata.split !== split) continue;
    const type = typeof metadata?.type === 'string' ? metadata.type : undefined;
    if (relevant) queries.push({ id, text: field(row, 'text', files.queries), ...(type ? { type } : {}) });
  }
  const unanswerable: BeirQuery[] = [];
  const unanswerableFile = join(dir, 'unanswerable.jsonl');
  if (existsSync(unanswerableFile)) {
    for await (const row of jsonLines(unanswerableFile)) {
      const id = field(row, '_id', unanswerableFile);
      if (qrels.has(id)) throw new Error(`${unanswerableFile}: ${id} is judged in qrels/${split}.tsv`);
      const metadata = asRecord(row.metadata);
      if (typeof metadata?.split === 'string' && metadata.split !== split) continue;
      const kind = typeof metadata?.kind === 'string' ? metadata.kind : undefined;
      unanswerable.push({ id, text: field(row, 'text', unanswerableFile), ...(kind ? { type: kind } : {}) });
    }
  }
  return { name: basename(dir), split, documents, queries, qrels, unanswerable };
}

/** The qrels files a BEIR folder has: its splits. */
export function beirSplits(folder: string): string[] {
  const dir = join(resolve(folder), 'qrels');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.tsv'))
    .map((f) => f.slice(0, -'.tsv'.length))
    .sort();
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

function turnMetadata(value: unknown): TurnMetadata | undefined {
  const m = asRecord(value);
  if (!m) return undefined;
  const { conversation, session, turn, date, speaker } = m;
  if (
    typeof conversation !== 'string' ||
    typeof session !== 'number' ||
    typeof turn !== 'number' ||
    typeof date !== 'string' ||
    Number.isNaN(Date.parse(date)) ||
    typeof speaker !== 'string'
  )
    return undefined;
  return { conversation, session, turn, date, speaker };
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
