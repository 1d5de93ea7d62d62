import { useState } from 'preact/hooks';
import { api, del, post } from '../api';
import { Badge, ConfirmDialog, ErrorNote, Loading, TableHead, ViewTitle, formatDate } from '../components';
import { useAction, useApi } from '../hooks';

interface Webhook {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  secret_version: number;
  failure_streak: number;
  disabled_reason: string | null;
  created_at: string;
}

interface Delivery {
  id: string;
  event_type: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
}

const STATUS_TONE: Record<string, 'ok' | 'warn' | 'muted'> = {
  delivered: 'ok',
  failed: 'warn',
  pending: 'muted',
  skipped: 'muted',
};

/** Webhook endpoints: register (the secret is shown once), disable or enable, rotate, delete, and each one's deliveries. */
export function WebhooksView() {
  const list = useApi<{ webhooks: Webhook[] }>('/api/admin/webhooks');
  // The event types come from the service (GET /api/admin/webhooks/events), so the form offers what it accepts.
  const eventTypes = useApi<{ events: string[] }>('/api/admin/webhooks/events');
  const [selected, setSelected] = useState<string>('');
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>(['memory.created', 'memory.updated', 'memory.deleted']);
  const [shown, setShown] = useState<{ secret: string; label: string } | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const action = useAction();

  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const created = await post<Webhook & { secret: string }>('/api/admin/webhooks', {
        url,
        events,
        description,
      });
      setShown({ secret: created.secret, label: `Signing secret of ${created.url}` });
      setUrl('');
      setDescription('');
      list.reload();
    });
  };
  const setEnabled = (w: Webhook, enabled: boolean) =>
    void action.run(async () => {
      await api('PATCH', `/api/admin/webhooks/${w.id}`, { body: { enabled } });
      list.reload();
    });
  const rotate = (w: Webhook) =>
    void action.run(async () => {
      const rotated = await post<{ secret: string }>(`/api/admin/webhooks/${w.id}/rotate-secret`);
      setShown({
        secret: rotated.secret,
        label: `New signing secret of ${w.url} (the old one signs beside it for a while)`,
      });
      list.reload();
    });
  const remove = () =>
    void action.run(async () => {
      if (deleting) await del(`/api/admin/webhooks/${deleting.id}`);
      if (deleting?.id === selected) setSelected('');
      setDeleting(null);
      list.reload();
    });

  return (
    <section>
      <ViewTitle>Webhooks</ViewTitle>
      <ErrorNote error={list.error ?? action.error} />
      <Loading loading={list.loading} />
      {shown && (
        <div class="once" role="alert">
          <p>
            {shown.label}. Copy it now: <strong>it is not shown again</strong>.
          </p>
          <input
            readOnly
            aria-label="The signing secret"
            value={shown.secret}
            onFocus={(e) => (e.target as HTMLInputElement).select()}
          />
          <button type="button" onClick={() => setShown(null)}>
            I have saved it
          </button>
        </div>
      )}
      <table>
        <TableHead columns={['Endpoint', 'Events', 'State', 'Secret', 'Actions']} />
        <tbody>
          {(list.data?.webhooks ?? []).map((w) => (
            <tr key={w.id}>
              <td>
                <code>{w.url}</code> {w.description}
              </td>
              <td>{w.events.join(', ')}</td>
              <td>
                <Badge tone={w.enabled ? 'ok' : 'warn'}>{w.enabled ? 'enabled' : 'disabled'}</Badge>{' '}
                {w.disabled_reason}
              </td>
              <td>v{w.secret_version}</td>
              <td>
                <button type="button" aria-pressed={selected === w.id} onClick={() => setSelected(w.id)}>
                  Deliveries
                </button>
                <button type="button" onClick={() => setEnabled(w, !w.enabled)}>
                  {w.enabled ? 'Disable' : 'Enable'}
                </button>
                <button type="button" onClick={() => rotate(w)}>
                  Rotate secret
                </button>
                <button type="button" class="danger" onClick={() => setDeleting(w)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="stacked" onSubmit={create} aria-label="Register a webhook endpoint">
        <label for="webhook-url">URL</label>
        <input
          id="webhook-url"
          type="url"
          required
          placeholder="https://hooks.example.com/memory"
          value={url}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
        <label for="webhook-description">Description</label>
        <input
          id="webhook-description"
          value={description}
          onInput={(e) => setDescription((e.target as HTMLInputElement).value)}
        />
        <fieldset>
          <legend>Events</legend>
          {(eventTypes.data?.events ?? []).map((name) => (
            <label class="check" key={name}>
              <input
                type="checkbox"
                checked={events.includes(name)}
                onChange={(e) =>
                  setEvents(
                    (e.target as HTMLInputElement).checked
                      ? [...events, name]
                      : events.filter((x) => x !== name),
                  )
                }
              />
              {name}
            </label>
          ))}
        </fieldset>
        <button type="submit" class="primary" disabled={action.busy || events.length === 0}>
          Register endpoint
        </button>
      </form>
      {selected && <DeliveriesPanel key={selected} endpoint={selected} />}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this endpoint?"
        confirmLabel="Delete"
        onConfirm={remove}
        onCancel={() => setDeleting(null)}
      >
        <p>
          <code>{deleting?.url}</code> gets no more events; its delivery log and secrets are deleted.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function DeliveriesPanel(props: { endpoint: string }) {
  const deliveries = useApi<{ deliveries: Delivery[] }>(
    `/api/admin/webhooks/${props.endpoint}/deliveries?limit=50`,
  );
  const action = useAction();
  const redeliver = (d: Delivery) =>
    void action.run(async () => {
      await post(`/api/admin/webhooks/${props.endpoint}/deliveries/${d.id}/redeliver`);
      deliveries.reload();
    });
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries</h2>
      <ErrorNote error={deliveries.error ?? action.error} />
      <Loading loading={deliveries.loading} />
      <button type="button" onClick={deliveries.reload}>
        Refresh
      </button>
      <table>
        <TableHead columns={['Event', 'Status', 'Attempts', 'Last answer', 'Created', 'Actions']} />
        <tbody>
          {(deliveries.data?.deliveries ?? []).map((d) => (
            <tr key={d.id}>
              <td>{d.event_type}</td>
              <td>
                <Badge tone={STATUS_TONE[d.status] ?? 'muted'}>{d.status}</Badge>
              </td>
              <td>{d.attempts}</td>
              <td>{d.last_error ?? d.last_status_code ?? ''}</td>
              <td>{formatDate(d.created_at)}</td>
              <td>
                <button
                  type="button"
                  onClick={() => redeliver(d)}
                  aria-label={`Redeliver ${d.event_type} ${d.id}`}
                >
                  Redeliver
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
