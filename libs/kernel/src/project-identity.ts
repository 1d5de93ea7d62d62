/**
 * One name per repository, whichever way it was cloned: `git@github.com:o/r.git`,
 * `https://github.com/o/r` and `ssh://git@github.com/o/r` are all `github.com/o/r`.
 *
 * Credentials, ports and the `.git` suffix are dropped; everything is lowercased, because the
 * common forges (GitHub, GitLab, Bitbucket) treat owner and repository names case-insensitively
 * and one repository must not become two projects.
 */
export function normaliseGitRemote(remote: string | null | undefined): string | null {
  const text = remote?.trim();
  if (!text) return null;
  const parts = splitRemote(text);
  if (!parts) return null;
  const path = parts.path
    .split('/')
    .filter((segment) => segment !== '')
    .join('/')
    .replace(/\.git$/i, '');
  if (!parts.host || !path) return null;
  return `${parts.host}/${path}`.toLowerCase();
}

const SCHEMES = new Set(['http:', 'https:', 'ssh:', 'git:', 'git+ssh:', 'ssh+git:']);
/** scp-like syntax: `[user@]host:path` (no scheme, no `//` after the colon). */
const SCP_LIKE = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/\/)(.+)$/;

function splitRemote(text: string): { host: string; path: string } | null {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return null;
    }
    if (!SCHEMES.has(url.protocol.toLowerCase())) return null;
    return { host: url.hostname, path: decodeURIComponent(url.pathname) };
  }
  const scp = SCP_LIKE.exec(text);
  // A one-letter "host" is a Windows drive (`C:\repo`), not a remote.
  if (!scp || scp[1].length < 2) return null;
  return { host: scp[1], path: scp[2] };
}

/**
 * A session's project: the explicit one when given (normalised when it is itself a remote URL),
 * else the one derived from the git remote, else none.
 */
export function projectIdentity(input: {
  project?: string | null;
  gitRemote?: string | null;
}): string | null {
  const explicit = input.project?.trim();
  if (explicit) return normaliseGitRemote(explicit) ?? explicit;
  return normaliseGitRemote(input.gitRemote);
}

/**
 * A remote as it may be stored: without the credentials an https remote may carry
 * (`https://user:token@host/…`). An ssh login name (`ssh://git@host/…`, `git@host:…`) stays.
 */
export function remoteWithoutCredentials(remote: string): string {
  return remote.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^@/\s]*)@/i, (match, scheme: string, userinfo: string) =>
    /^https?:\/\//i.test(scheme) || userinfo.includes(':') ? scheme : match,
  );
}
