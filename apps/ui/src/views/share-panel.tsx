import { useState } from 'preact/hooks';
import { del, post } from '../api';
import { ErrorNote } from '../components';
import { useAction } from '../hooks';

interface Shares {
  rows: Array<{ shared_with: string; permission: string }>;
  reload(): void;
  /** False when the caller is not the owner (an admin): the share list is the owner's to read. */
  known: boolean;
}

/** Share with a teammate (read or write), and the current shares with an unshare button each. */
export function SharePanel(props: { memoryId: number; visibility: string; shares: Shares }) {
  const [username, setUsername] = useState('');
  const [permission, setPermission] = useState('read');
  const action = useAction();
  const [done, setDone] = useState('');

  const share = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await post(`/api/memories/${props.memoryId}/share`, { shared_with: username.trim(), permission });
      setDone(`Shared with ${username.trim()} (${permission}).`);
      setUsername('');
      props.shares.reload();
    });
  };

  return (
    <section aria-labelledby="share-title">
      <h2 id="share-title">Sharing</h2>
      {props.visibility === 'team' && (
        <p class="hint">Team memories are readable by the whole team already.</p>
      )}
      {props.shares.known &&
        (props.shares.rows.length === 0 ? (
          <p>Not shared with anyone.</p>
        ) : (
          <ul>
            {props.shares.rows.map((s) => (
              <li key={s.shared_with}>
                {s.shared_with} ({s.permission}){' '}
                <button
                  type="button"
                  aria-label={`Stop sharing with ${s.shared_with}`}
                  onClick={() =>
                    void action.run(async () => {
                      await del(`/api/memories/${props.memoryId}/share/${encodeURIComponent(s.shared_with)}`);
                      setDone(`No longer shared with ${s.shared_with}.`);
                      props.shares.reload();
                    })
                  }
                >
                  Unshare
                </button>
              </li>
            ))}
          </ul>
        ))}
      <form class="inline" onSubmit={share}>
        <label for="share-with">Share with (username)</label>
        <input
          id="share-with"
          required
          value={username}
          onInput={(e) => setUsername((e.target as HTMLInputElement).value)}
        />
        <label for="share-permission">Permission</label>
        <select
          id="share-permission"
          value={permission}
          onChange={(e) => setPermission((e.target as HTMLSelectElement).value)}
        >
          <option value="read">read</option>
          <option value="write">write</option>
        </select>
        <button type="submit" disabled={action.busy}>
          Share
        </button>
      </form>
      {done && <p role="status">{done}</p>}
      <ErrorNote error={action.error} />
    </section>
  );
}
