import { useEffect, useState } from 'preact/hooks';
import { ApiError, rememberKey, signInProviders, signOut, type SignInProvider } from '../api';
import { ErrorNote } from '../components';
import type { Me } from '../types';

/**
 * Sign in with the team's identity provider (a link: the service sends the browser there and back,
 * and keeps the session in an HttpOnly cookie), or with an API key, which is checked, then kept in
 * this tab's session storage; the field is a password field.
 */
export function LoginView(props: { notice: string; verify(): Promise<Me>; onSignedIn(me: Me): void }) {
  const [providers, setProviders] = useState<SignInProvider[]>([]);
  useEffect(() => {
    signInProviders().then(setProviders, () => setProviders([]));
  }, []);
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    rememberKey(key.trim());
    try {
      props.onSignedIn(await props.verify());
      setKey('');
    } catch (failure) {
      signOut('');
      setError(
        failure instanceof ApiError && failure.status === 401
          ? 'That key was refused: check it, or ask an admin for a new one.'
          : `Could not check the key: ${failure instanceof Error ? failure.message : String(failure)}`,
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login" id="main">
      <h1>Memory service console</h1>
      {props.notice && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      {providers.length > 0 && (
        <section class="sso" aria-label="Sign in with your identity provider">
          {providers.map((provider) => (
            <a key={provider.issuer} class="button primary" href={provider.login_url}>
              Sign in with {provider.label}
            </a>
          ))}
          <p class="hint">Or sign in with an API key:</p>
        </section>
      )}
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
        />
        <p class="hint">Kept in this browser tab only, until you sign out or close it.</p>
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
        <ErrorNote error={error} />
      </form>
    </main>
  );
}
