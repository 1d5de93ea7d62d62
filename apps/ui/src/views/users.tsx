import { useState } from 'preact/hooks';
import { del, post, query } from '../api';
import { Badge, TableHead, ConfirmDialog, ErrorNote, Loading, ViewTitle, formatDate } from '../components';
import { useAction, useApi } from '../hooks';
import type { ApiKey, User } from '../types';

const SCOPES = ['memories:read', 'memories:write', 'secrets:read', 'sessions:write', 'admin'];
const DEFAULT_SCOPES = ['memories:read', 'memories:write', 'secrets:read', 'sessions:write'];

/** Users and their API keys: create, rotate and revoke keys; a new key is shown once. */
export function UsersView() {
  const users = useApi<{ users: User[] }>('/api/admin/users?limit=500');
  const [selected, setSelected] = useState<string>('');
  const keys = useApi<{ keys: ApiKey[] }>(`/api/admin/keys${query({ user: selected, limit: 500 })}`);
  const [newUser, setNewUser] = useState('');
  const action = useAction();

  const createUser = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await post('/api/admin/users', { username: newUser.trim() });
      setNewUser('');
      users.reload();
    });
  };

  return (
    <section>
      <ViewTitle>Users & keys</ViewTitle>
      <ErrorNote error={users.error ?? action.error} />
      <Loading loading={users.loading} />
      <table>
        <TableHead columns={['User', 'Role', 'Since', 'Keys']} />
        <tbody>
          {(users.data?.users ?? []).map((u) => (
            <tr key={u.id}>
              <td>
                {u.username} {u.disabled_at && <Badge tone="warn">disabled</Badge>}
              </td>
              <td>{u.is_admin ? 'admin' : 'member'}</td>
              <td>{formatDate(u.created_at)}</td>
              <td>
                <button
                  type="button"
                  aria-pressed={selected === u.username}
                  onClick={() => setSelected(u.username)}
                >
                  Keys of {u.username}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="inline" onSubmit={createUser}>
        <label for="new-user">New user</label>
        <input
          id="new-user"
          required
          value={newUser}
          onInput={(e) => setNewUser((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={action.busy}>
          Create user
        </button>
      </form>
      <KeysPanel user={selected} keys={keys.data?.keys ?? []} reload={keys.reload} error={keys.error} />
    </section>
  );
}

function KeysPanel(props: { user: string; keys: ApiKey[]; reload(): void; error?: string }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(DEFAULT_SCOPES);
  const [shown, setShown] = useState<{ key: string; label: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const action = useAction();

  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const created = await post<{ key: string; prefix: string }>(
        `/api/admin/users/${encodeURIComponent(props.user)}/keys`,
        { name, scopes },
      );
      setShown({ key: created.key, label: `New key for ${props.user}` });
      setName('');
      props.reload();
    });
  };
  const rotate = (key: ApiKey) =>
    void action.run(async () => {
      const rotated = await post<{ key: string }>(`/api/admin/keys/${key.id}/rotate`);
      setShown({
        key: rotated.key,
        label: `Rotated key for ${key.username} (the old one works until its grace period ends)`,
      });
      props.reload();
    });
  const revoke = () =>
    void action.run(async () => {
      if (revoking) await del(`/api/admin/keys/${revoking.id}`);
      setRevoking(null);
      props.reload();
    });

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">{props.user ? `Keys of ${props.user}` : 'All keys'}</h2>
      <ErrorNote error={props.error ?? action.error} />
      {shown && (
        <div class="once" role="alert">
          <p>
            {shown.label}. Copy it now: <strong>it is not shown again</strong>.
          </p>
          <input
            readOnly
            aria-label="The new API key"
            value={shown.key}
            onFocus={(e) => (e.target as HTMLInputElement).select()}
          />
          <button type="button" onClick={() => setShown(null)}>
            I have saved it
          </button>
        </div>
      )}
      <table>
        <TableHead columns={['Key', 'User', 'Scopes', 'Status', 'Last used', 'Actions']} />
        <tbody>
          {props.keys.map((k) => (
            <tr key={k.id}>
              <td>
                <code>{k.prefix}…</code> {k.name}
              </td>
              <td>{k.username}</td>
              <td>{k.scopes.join(', ')}</td>
              <td>
                <Badge tone={k.status === 'active' ? 'ok' : 'muted'}>{k.status}</Badge>
              </td>
              <td>{formatDate(k.last_used_at)}</td>
              <td>
                {k.status === 'active' && k.source === 'managed' && (
                  <button type="button" onClick={() => rotate(k)} aria-label={`Rotate key ${k.prefix}`}>
                    Rotate
                  </button>
                )}
                {k.status === 'active' && (
                  <button
                    type="button"
                    class="danger"
                    onClick={() => setRevoking(k)}
                    aria-label={`Revoke key ${k.prefix}`}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.user && (
        <form class="stacked" onSubmit={create} aria-label={`Create a key for ${props.user}`}>
          <label for="key-name">Key name</label>
          <input id="key-name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <label class="check" key={scope}>
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  onChange={(e) =>
                    setScopes(
                      (e.target as HTMLInputElement).checked
                        ? [...scopes, scope]
                        : scopes.filter((s) => s !== scope),
                    )
                  }
                />
                {scope}
              </label>
            ))}
          </fieldset>
          <button type="submit" class="primary" disabled={action.busy || scopes.length === 0}>
            Create key
          </button>
        </form>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Revoke"
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      >
        <p>
          Key <code>{revoking?.prefix}…</code> of {revoking?.username} stops working at once; clients using it
          get 401.
        </p>
      </ConfirmDialog>
    </section>
  );
}
