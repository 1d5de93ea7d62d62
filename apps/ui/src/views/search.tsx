import { useState } from 'preact/hooks';
import { post } from '../api';
import { ErrorNote, ViewTitle } from '../components';
import { useAction } from '../hooks';
import type { RecallHit } from '../types';
import { MemoryTable } from './memory-list';

const fmt = (value: number | null | undefined, digits = 3) =>
  value === null || value === undefined ? '—' : value.toFixed(digits);

/** Hybrid recall (full text + vectors) with each hit's `explain` scores. */
export function SearchView() {
  const [context, setContext] = useState('');
  const [project, setProject] = useState('');
  const [hits, setHits] = useState<RecallHit[] | null>(null);
  const action = useAction();

  const search = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const answer = await post<{ memories: RecallHit[] }>('/api/memories/recall', {
        context,
        limit: 20,
        explain: true,
        ...(project ? { project_boost: project } : {}),
      });
      setHits(answer.memories);
    });
  };

  return (
    <section>
      <ViewTitle>Search</ViewTitle>
      <form class="search" role="search" onSubmit={search}>
        <label for="recall-query">What are you looking for?</label>
        <input
          id="recall-query"
          type="search"
          required
          value={context}
          onInput={(e) => setContext((e.target as HTMLInputElement).value)}
        />
        <label for="recall-project">Boost a project</label>
        <input
          id="recall-project"
          value={project}
          onInput={(e) => setProject((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="primary" disabled={action.busy}>
          Search
        </button>
      </form>
      <ErrorNote error={action.error} />
      {hits && (
        <>
          <p aria-live="polite" class="count">
            {hits.length} results
          </p>
          <MemoryTable
            rows={hits}
            extra={(m) => {
              const e = (m as RecallHit).explain;
              if (!e) return '—';
              return (
                <dl class="explain" aria-label={`Scores of memory ${m.id}`}>
                  <dt>fused</dt>
                  <dd>{fmt(e.fused_score)}</dd>
                  <dt>text</dt>
                  <dd>
                    {fmt(e.text_score)} (#{e.text_rank ?? '—'})
                    {e.text_coverage !== null &&
                      ` · covers ${Math.round(e.text_coverage * 100)}% of the query`}
                  </dd>
                  <dt>vector</dt>
                  <dd>
                    {fmt(e.vector_score)} (#{e.vector_rank ?? '—'})
                  </dd>
                  <dt>weights</dt>
                  <dd>
                    text {fmt(e.leg_weights.text, 2)} · vector {fmt(e.leg_weights.vector, 2)}
                  </dd>
                  <dt>importance × recency</dt>
                  <dd>
                    {fmt(e.importance_factor, 2)} × {fmt(e.recency_factor, 2)}
                  </dd>
                </dl>
              );
            }}
          />
        </>
      )}
    </section>
  );
}
