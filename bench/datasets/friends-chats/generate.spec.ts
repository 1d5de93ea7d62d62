import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDataset, renderFiles } from './src/build';

describe('friends-chats generator', () => {
  it('reproduces the committed files from its seed', () => {
    for (const [name, content] of Object.entries(renderFiles(buildDataset()))) {
      expect(readFileSync(join(__dirname, name), 'utf8'), `${name} is stale: run generate.ts`).toBe(content);
    }
  });

  it('has the size and mix the evaluation relies on', () => {
    const { corpus, queries, qrels, unanswerable } = buildDataset();
    expect(corpus.length).toBeGreaterThanOrEqual(1500);
    expect(queries.length).toBeGreaterThanOrEqual(250);
    const byId = new Map(corpus.map((d) => [d._id, d]));
    const texts = new Map<string, number>();
    for (const d of corpus) texts.set(d.text, (texts.get(d.text) ?? 0) + 1);
    for (const [, doc] of qrels) {
      // Every judged turn exists and says something no other turn says.
      expect(byId.has(doc), doc).toBe(true);
      expect(texts.get(byId.get(doc)!.text), byId.get(doc)!.text).toBe(1);
    }
    for (const type of ['single-hop', 'multi-hop', 'temporal', 'update']) {
      const ofType = queries.filter((q) => q.metadata.type === type);
      const dev = ofType.filter((q) => q.metadata.split === 'dev').length;
      expect(ofType.length, type).toBeGreaterThanOrEqual(30);
      expect(Math.abs(dev / ofType.length - 0.4), type).toBeLessThan(0.03);
    }
    // A multi-hop question needs two turns, from two sessions at least a session apart.
    for (const q of queries.filter((q) => q.metadata.type === 'multi-hop')) {
      const sessions = qrels
        .filter(([id, , score]) => id === q._id && score === 2)
        .map(([, doc]) => byId.get(doc)!.metadata.session);
      expect(sessions.length, q.text).toBe(2);
      expect(Math.abs(sessions[0] - sessions[1]), q.text).toBeGreaterThanOrEqual(2);
    }
    // An update's current value is said after the value it replaces.
    for (const q of queries.filter((q) => q.metadata.type === 'update')) {
      const judged = qrels
        .filter(([id]) => id === q._id)
        .map(([, doc, score]) => [byId.get(doc)!.metadata.session, score]);
      const now = judged.find(([, score]) => score === 2)![0];
      const before = judged.find(([, score]) => score === 1)![0];
      expect(now, q.text).toBeGreaterThan(before);
    }
    expect(new Set(unanswerable.map((u) => u.metadata.kind))).toEqual(
      new Set(['made-up', 'made-up-name', 'absent-topic']),
    );
  });

  it('keeps sessions weeks apart, as friends who catch up now and then', () => {
    const { corpus } = buildDataset();
    const starts = new Map<string, number>();
    for (const d of corpus)
      starts.set(`${d.metadata.conversation}/${d.metadata.session}`, Date.parse(d.metadata.date));
    for (const [key, start] of starts) {
      const [conversation, session] = key.split('/');
      const next = starts.get(`${conversation}/${Number(session) + 1}`);
      if (next !== undefined) expect(next - start).toBeGreaterThanOrEqual(9 * 86_400_000);
    }
  });
});
