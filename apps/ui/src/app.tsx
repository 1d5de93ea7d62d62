import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, onSignedOut, resumeSession, signOut, storedKey } from './api';
import { Link } from './components';
import { navigate, requestViewFocus, usePath } from './router';
import type { Me } from './types';
import { LoginView } from './views/login';
import { routeView } from './routes';

const MEMBER_NAV = [
  { to: '/', label: 'Overview' },
  { to: '/memories', label: 'Memories' },
  { to: '/search', label: 'Search' },
  { to: '/review', label: 'Review' },
  { to: '/sessions', label: 'Sessions' },
];
const ADMIN_NAV = [
  { to: '/admin/users', label: 'Users & keys' },
  { to: '/admin/jobs', label: 'Jobs' },
  { to: '/admin/audit', label: 'Audit log' },
  { to: '/admin/webhooks', label: 'Webhooks' },
];

/** Who the stored key belongs to, and whether it holds the admin scope. */
async function whoAmI(): Promise<Me> {
  const check = await get<{ user_id: string }>('/api/auth-check');
  try {
    await get('/api/admin/settings');
    return { userId: check.user_id, isAdmin: true };
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return { userId: check.user_id, isAdmin: false };
    throw error;
  }
}

/** What the service's sign-in callback reports in `?sign_in_error=` (a code, never free text). */
const SIGN_IN_ERRORS: Record<string, string> = {
  not_member:
    'Your identity provider signed you in, but you are not a member of this team here. Ask an admin to add you.',
  refused: 'Your sign-in was refused: it was revoked, or your user is disabled.',
  unavailable: 'The identity provider could not be reached. Try again in a moment.',
  failed: 'The sign-in could not be completed. Try again.',
};

/** The notice for a failed sign-in named in the URL, which is then taken out of the address bar. */
function signInErrorNotice(): string {
  const params = new URLSearchParams(location.search);
  const code = params.get('sign_in_error');
  if (code === null) return '';
  history.replaceState(history.state, '', location.pathname);
  return SIGN_IN_ERRORS[code] ?? SIGN_IN_ERRORS.failed;
}

export function App() {
  const path = usePath();
  const [me, setMe] = useState<Me | null>(null);
  const [notice, setNotice] = useState(signInErrorNotice);
  const [checking, setChecking] = useState(true);

  useEffect(
    () =>
      onSignedOut((reason) => {
        setMe(null);
        setNotice(reason);
        navigate('/login', { replace: true });
      }),
    [],
  );
  useEffect(() => {
    // A key of this tab, else the identity provider's session cookie, else the login view.
    const signedIn = storedKey()
      ? Promise.resolve(true)
      : resumeSession().then(
          (s) => s !== null,
          () => false,
        );
    signedIn
      .then((yes) => (yes ? whoAmI() : Promise.reject(new Error('signed out'))))
      .then(
        (who) => {
          setMe(who);
          setChecking(false);
        },
        () => setChecking(false),
      );
  }, []);

  if (checking) return <p class="boot">Checking your sign-in…</p>;
  if (!me) {
    return (
      <LoginView
        notice={notice}
        onSignedIn={(who) => {
          setMe(who);
          setNotice('');
          requestViewFocus();
          if (path === '/login') navigate('/', { replace: true });
        }}
        verify={whoAmI}
      />
    );
  }
  const nav = me.isAdmin ? [...MEMBER_NAV, ...ADMIN_NAV] : MEMBER_NAV;
  const section = (to: string) => (to === '/' ? path === '/' : path === to || path.startsWith(`${to}/`));
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Memory service</span>
        <nav aria-label="Main">
          <ul>
            {nav.map((item) => (
              <li key={item.to}>
                <Link to={item.to} current={section(item.to)}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {me.userId}
          {me.isAdmin ? ' (admin)' : ''}
        </span>
        <button type="button" onClick={() => signOut('You signed out.')}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {routeView(path === '/login' ? '/' : path, me)}
      </main>
    </div>
  );
}
