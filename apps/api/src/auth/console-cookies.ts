import type { FastifyRequest } from 'fastify';
import { consoleCookiesSecure } from '@app/config';
import { LOGIN_STATE_TTL_SECONDS } from '@app/tenancy';

/**
 * The console's two cookies. Over https (OAUTH_RESOURCE) both are `Secure` and `__Host-` named (no
 * Domain, Path=/: no other host or path can set or read them); plain http is accepted only on a
 * loopback address (development, tests), where they go without both. Always HttpOnly; SameSite=Lax,
 * so the identity provider's redirect back (a top-level GET) carries the login cookie while no
 * other site's form or fetch carries the session.
 */
export class ConsoleCookies {
  readonly session: string;
  readonly login: string;
  private readonly attributes: string;

  constructor(resource: string | null) {
    const secure = resource !== null && consoleCookiesSecure(resource);
    const prefix = secure ? '__Host-' : '';
    this.session = `${prefix}memsvc-session`;
    this.login = `${prefix}memsvc-login`;
    this.attributes = `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }

  read(request: FastifyRequest, name: string): string | undefined {
    const header = request.headers.cookie;
    if (header === undefined) return undefined;
    for (const part of header.split(';')) {
      const at = part.indexOf('=');
      if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
    }
    return undefined;
  }

  sessionCookie(token: string, maxAgeSeconds: number): string {
    return `${this.session}=${token}; Max-Age=${maxAgeSeconds}; ${this.attributes}`;
  }

  loginCookie(value: string): string {
    return `${this.login}=${value}; Max-Age=${LOGIN_STATE_TTL_SECONDS}; ${this.attributes}`;
  }

  cleared(name: string): string {
    return `${name}=; Max-Age=0; ${this.attributes}`;
  }
}
