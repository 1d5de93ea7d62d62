import type { VNode } from 'preact';
import { match } from './router';
import type { Me } from './types';
import { AuditView } from './views/audit';
import { JobsView } from './views/jobs';
import { MemoryDetailView } from './views/memory-detail';
import { MemoryFormView } from './views/memory-form';
import { MemoryListView } from './views/memory-list';
import { OverviewView } from './views/overview';
import { ReviewView } from './views/review';
import { SearchView } from './views/search';
import { SessionDetailView, SessionListView } from './views/sessions';
import { UsersView } from './views/users';
import { WebhooksView } from './views/webhooks';

type Route = [pattern: string, view: (params: Record<string, string>, me: Me) => VNode, adminOnly?: boolean];

const ROUTES: Route[] = [
  ['/', (_p, me) => <OverviewView me={me} />],
  ['/memories', (_p, me) => <MemoryListView me={me} />],
  ['/memories/new', () => <MemoryFormView />],
  ['/memories/:id', (p, me) => <MemoryDetailView key={p.id} id={Number(p.id)} me={me} />],
  ['/memories/:id/edit', (p) => <MemoryFormView key={p.id} id={Number(p.id)} />],
  ['/review', () => <ReviewView />],
  ['/search', () => <SearchView />],
  ['/sessions', () => <SessionListView />],
  ['/sessions/:id', (p) => <SessionDetailView key={p.id} id={p.id} />],
  ['/admin/users', () => <UsersView />, true],
  ['/admin/jobs', () => <JobsView />, true],
  ['/admin/audit', () => <AuditView />, true],
  ['/admin/webhooks', () => <WebhooksView />, true],
];

export function routeView(path: string, me: Me): VNode {
  for (const [pattern, view, adminOnly] of ROUTES) {
    const params = match(pattern, path);
    if (!params) continue;
    if (adminOnly && !me.isAdmin) return <p role="alert">This page needs an admin key.</p>;
    return view(params, me);
  }
  return <p role="alert">No such page.</p>;
}
