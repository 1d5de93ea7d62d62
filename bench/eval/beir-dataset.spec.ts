import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { beirSplits, readBeirDataset } from './beir-dataset';
import { documentToMemory } from './corpus-import';

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

  it("reads the split's unanswerable questions with their kind, and refuses one that is judged", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beir-'));
    await mkdir(join(dir, 'qrels'));
    await writeFile(join(dir, 'corpus.jsonl'), '{"_id":"d1","text":"one"}\n');
    await writeFile(join(dir, 'queries.jsonl'), '{"_id":"q1","text":"a"}\n');
    await writeFile(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
    await writeFile(
      join(dir, 'unanswerable.jsonl'),
      [
        { _id: 'u1', text: 'zorblatt', metadata: { kind: 'made-up', split: 'test' } },
        { _id: 'u2', text: 'quinge', metadata: { kind: 'made-up', split: 'dev' } },
        { _id: 'u3', text: 'Who painted the Mona Lisa?', metadata: { kind: 'absent-topic' } },
      ]
        .map((row) => JSON.stringify(row))
        .join('\n'),
    );
    const dataset = await readBeirDataset(dir);
    expect(dataset.unanswerable).toEqual([
      { id: 'u1', text: 'zorblatt', type: 'made-up' },
      { id: 'u3', text: 'Who painted the Mona Lisa?', type: 'absent-topic' },
    ]);
    expect(dataset.queries).toEqual([{ id: 'q1', text: 'a' }]);
    await writeFile(join(dir, 'unanswerable.jsonl'), '{"_id":"q1","text":"a"}\n');
    await expect(readBeirDataset(dir)).rejects.toThrow('q1 is judged');
  });

  it('reads turn metadata, query types and the requested split', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beir-'));
    await mkdir(join(dir, 'qrels'));
    const turn = {
      conversation: 'orion',
      session: 2,
      turn: 3,
      date: '2024-01-10T09:30:00.000Z',
      speaker: 'Mei',
    };
    await writeFile(
      join(dir, 'corpus.jsonl'),
      [
        JSON.stringify({ _id: 't1', title: '', text: 'Mei: yes, with Sam', metadata: turn }),
        JSON.stringify({ _id: 't2', text: 'no date', metadata: { ...turn, date: 'soon' } }),
      ].join('\n'),
    );
    await writeFile(
      join(dir, 'queries.jsonl'),
      [
        JSON.stringify({ _id: 'q1', text: 'who?', metadata: { type: 'person', split: 'dev' } }),
        JSON.stringify({ _id: 'q2', text: 'when?', metadata: { type: 'temporal', split: 'test' } }),
      ].join('\n'),
    );
    // q2 is judged in dev.tsv by mistake: its own label (test) keeps it out of the dev split.
    await writeFile(join(dir, 'qrels', 'dev.tsv'), 'query-id\tcorpus-id\tscore\nq1\tt1\t2\nq2\tt1\t1\n');
    await writeFile(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq2\tt1\t2\n');

    expect(beirSplits(dir)).toEqual(['dev', 'test']);
    const dev = await readBeirDataset(dir, 'dev');
    expect(dev.split).toBe('dev');
    expect(dev.documents[0].turn).toEqual(turn);
    expect(dev.documents[1].turn).toBeUndefined();
    expect(dev.queries).toEqual([{ id: 'q1', text: 'who?', type: 'person' }]);
    const test = await readBeirDataset(dir, 'test');
    expect(test.queries).toEqual([{ id: 'q2', text: 'when?', type: 'temporal' }]);
  });

  it('stores a turn at its session date with a tag naming its session; other documents as before', () => {
    const turn = {
      conversation: 'orion',
      session: 2,
      turn: 3,
      date: '2024-01-10T09:30:00.000Z',
      speaker: 'Mei',
    };
    const memory = documentToMemory({ id: 't1', title: '', text: 'Mei: yes, with Sam', turn });
    expect(memory).toMatchObject({
      content: 'Mei: yes, with Sam',
      tags: ['thread:orion-s2'],
      createdAt: '2024-01-10T09:32:00.000Z',
    });
    // Untagged: the same turn keeps when it was said, so its thread is found by time.
    expect(documentToMemory({ id: 't1', title: '', text: 'Mei: yes, with Sam', turn }, false)).toMatchObject({
      tags: [],
      createdAt: '2024-01-10T09:32:00.000Z',
    });
    const plain = documentToMemory({ id: 'm1', title: 'T', text: 'fact' });
    expect(plain).toEqual({
      content: 'T\nfact',
      category: 'facts',
      tags: [],
      expandedKeywords: '',
      importance: 0.5,
      project: null,
    });
  });

  it('names the missing file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beir-'));
    await expect(readBeirDataset(dir)).rejects.toThrow(/corpus\.jsonl not found/);
  });

  it('loads the shipped team-conversations set: turns with metadata, typed questions, disjoint splits', async () => {
    const folder = resolve(__dirname, '../datasets/team-conversations');
    const [dev, test] = await Promise.all([readBeirDataset(folder, 'dev'), readBeirDataset(folder, 'test')]);
    expect(dev.documents.length).toBeGreaterThanOrEqual(1000);
    expect(dev.documents.every((d) => d.turn !== undefined)).toBe(true);
    expect(dev.queries.length + test.queries.length).toBeGreaterThanOrEqual(300);
    const devIds = new Set(dev.queries.map((q) => q.id));
    expect(test.queries.some((q) => devIds.has(q.id))).toBe(false);
    expect(new Set(test.queries.map((q) => q.type))).toEqual(
      new Set(['single-hop', 'multi-hop', 'temporal', 'correction', 'person']),
    );
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
