import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { LineChart, StackedBars, type Sample } from '../charts';
import { ErrorNote, ViewTitle } from '../components';
import { useApi, useInterval } from '../hooks';
import type { Activity, Me, MetricsSummary, Quota, TenantStats, Usage } from '../types';

/** Counts, quotas and the charts: memories over time, and (admins) recall latency and queue depth. */
export function OverviewView(props: { me: Me }) {
  const [days, setDays] = useState(30);
  const activity = useApi<Activity>(`/api/stats/activity?days=${days}`);
  const stats = useApi<{
    total_memories: number;
    sharing_stats: { shared_by_me: number; shared_with_me: number };
  }>('/api/stats');
  const usage = useApi<Usage>('/api/usage');
  return (
    <section>
      <ViewTitle>Overview</ViewTitle>
      <ErrorNote error={activity.error ?? stats.error ?? usage.error} />
      <div class="tiles">
        <Tile label="Memories you can read" value={stats.data?.total_memories} />
        <Tile label="Shared with you" value={stats.data?.sharing_stats.shared_with_me} />
        <Tile label="You share" value={stats.data?.sharing_stats.shared_by_me} />
      </div>
      {usage.data && (
        <section aria-labelledby="usage-title">
          <h2 id="usage-title">Team usage ({usage.data.tenant})</h2>
          <QuotaBar label="Memories" quota={usage.data.memories} />
          <QuotaBar label="Stored bytes" quota={usage.data.memory_bytes} />
          <QuotaBar label="Sessions today" quota={usage.data.sessions_today} />
        </section>
      )}
      <div class="title-row">
        <h2>Memories over time</h2>
        <label>
          Days
          <select value={days} onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}>
            {[7, 30, 90, 365].map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </label>
      </div>
      {activity.data && (
        <div class="charts">
          <StackedBars
            title="By category"
            since={activity.data.since}
            points={activity.data.by_category.map((d) => ({
              date: d.date,
              name: d.category,
              count: d.count,
            }))}
          />
          <StackedBars
            title="By author"
            since={activity.data.since}
            points={activity.data.by_owner.map((d) => ({ date: d.date, name: d.owner, count: d.count }))}
          />
        </div>
      )}
      {props.me.isAdmin && <OperationsPanel />}
    </section>
  );
}

const SAMPLE_EVERY_MS = 5_000;
const KEEP_SAMPLES = 60;

/** Sampled while the page is open: recall p95 (this replica) and the tenant's job backlog. */
function OperationsPanel() {
  const [latency, setLatency] = useState<Sample[]>([]);
  const [queue, setQueue] = useState<Sample[]>([]);
  const [tenant, setTenant] = useState<TenantStats | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const sample = () => {
    Promise.all([get<MetricsSummary>('/api/admin/metrics'), get<TenantStats>('/api/admin/stats')]).then(
      ([metrics, stats]) => {
        const at = Date.now();
        const depth =
          stats.queue.waiting + stats.queue.active + stats.queue.delayed + (stats.queue.outbox_pending ?? 0);
        setLatency((s) => [...s, { at, value: metrics.recall.p95_ms }].slice(-KEEP_SAMPLES));
        setQueue((s) => [...s, { at, value: depth }].slice(-KEEP_SAMPLES));
        setTenant(stats);
        setError(undefined);
      },
      (failure: unknown) => setError(String(failure)),
    );
  };
  useInterval(sample, SAMPLE_EVERY_MS);
  useEffect(sample, []);
  return (
    <section aria-labelledby="ops-title">
      <h2 id="ops-title">Operations</h2>
      <ErrorNote error={error} />
      {tenant && (
        <div class="tiles">
          <Tile label="Users" value={tenant.users.total} />
          <Tile label="Active keys" value={tenant.keys.active} />
          <Tile label="Live memories" value={tenant.memories.live} />
          <Tile label="Deleted memories" value={tenant.memories.deleted} />
          <Tile label="Active sessions" value={tenant.sessions.active} />
          <Tile label="Failed jobs" value={tenant.queue.failed} />
        </div>
      )}
      <div class="charts">
        <LineChart title="Recall latency p95" unit="ms" samples={latency} />
        <LineChart title="Queue depth" unit="jobs" samples={queue} />
      </div>
    </section>
  );
}

function Tile(props: { label: string; value: number | undefined }) {
  return (
    <div class="tile">
      <span class="value">{props.value ?? '…'}</span>
      <span class="label">{props.label}</span>
    </div>
  );
}

function QuotaBar(props: { label: string; quota: Quota }) {
  const { used, limit } = props.quota;
  return (
    <div class="quota">
      <span>{props.label}</span>
      {limit === null ? (
        <span>
          {used.toLocaleString()} <span class="hint">(no limit)</span>
        </span>
      ) : (
        <>
          <meter min={0} max={limit} value={used} high={limit * 0.9} aria-label={`${props.label} used`} />
          <span>
            {used.toLocaleString()} of {limit.toLocaleString()}
          </span>
        </>
      )}
    </div>
  );
}
