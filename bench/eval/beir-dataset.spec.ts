import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBeirDataset } from './beir-dataset';

describe('readBeirDataset', () => {
  it('reads a BEIR folder and keeps only queries with a relevant judgement', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beir-'));
    await mkdir(join(dir, 'qrels'));
    await writeFile(
      join(dir, 'corpus.jsonl'),
      '{"_id":"d1","title":"T","text":"one"}\n{"_id":2,"text":"two"}\n',
    );
    await writeFile(join(dir, 'queries.jsonl'), '{"_id":"q1","text":"a"}\n{"_id":"q2","text":"b"}\n');
    await writeFile(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\t2\t0\n');
    const dataset = await readBeirDataset(dir);
    expect(dataset.documents).toEqual([
      { id: 'd1', title: 'T', text: 'one' },
      { id: '2', title: '', text: 'two' },
    ]);
    expect(dataset.queries).toEqual([{ id: 'q1', text: 'a' }]);
    expect(dataset.qrels.get('q1')?.get('d1')).toBe(1);
  });

  it('names the missing file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beir-'));
    await expect(readBeirDataset(dir)).rejects.toThrow(/corpus\.jsonl not found/);
  });

  it('loads the shipped agent-memory set consistently', async () => {
    const dataset = await readBeirDataset(resolve(__dirname, '../datasets/agent-memory'));
    const ids = new Set(dataset.documents.map((d) => d.id));
    expect(ids.size).toBe(dataset.documents.length);
    expect(dataset.documents.length).toBeGreaterThanOrEqual(150);
    expect(dataset.queries.length).toBeGreaterThanOrEqual(100);
    for (const query of dataset.queries) {
      const judged = [...(dataset.qrels.get(query.id) ?? new Map<string, number>())];
      expect(judged.filter(([, score]) => score === 2)).toHaveLength(1);
      for (const [docId] of judged) expect(ids.has(docId)).toBe(true);
    }
  });
});
