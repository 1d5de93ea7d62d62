import { z } from 'zod';
import { readJson } from './json-variable';

/** How the members an identity provider signs in are found, or added, in the tenant it serves. */
export interface OAuthIssuer {
  /** The `iss` of its tokens, exactly (its discovery document is read from `<issuer>/.well-known/…`). */
  readonly issuer: string;
  /** The slug of the one tenant whose members it signs in. */
  readonly tenant: string;
  /** Where its signing keys are; unset: the `jwks_uri` of its discovery document. */
  readonly jwksUri?: string;
  /**
   * A member not known yet is added on first sign-in when the token's verified email is in one of
   * these domains (empty: never), with `jitRole`.
   */
  readonly jitDomains: readonly string[];
  readonly jitRole: 'member' | 'admin';
  /** The console's sign-in with this provider (authorization code + PKCE); unset: no console button. */
  readonly console?: OAuthConsoleClient;
}

/** The console's client at an identity provider: the service signs people in to the console with it. */
export interface OAuthConsoleClient {
  readonly clientId: string;
  /** Confidential client (client_secret_basic); unset: a public client (PKCE only). Never logged. */
  readonly clientSecret?: string;
  /** The button's words: "Sign in with <label>". */
  readonly label: string;
}

const issuerShape = z
  .object({
    issuer: z.string().url().max(500),
    tenant: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'tenant is a tenant slug'),
    jwks_uri: z.string().url().max(500).optional(),
    jit_domains: z
      .array(
        z
          .string()
          .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, 'jit_domains are domain names such as example.com')
          .transform((d) => d.toLowerCase()),
      )
      .max(100)
      .default([]),
    jit_role: z.enum(['member', 'admin']).default('member'),
    console_client_id: z.string().min(1).max(255).optional(),
    console_label: z.string().trim().min(1).max(60).optional(),
  })
  .strict();

/**
 * OAUTH_ISSUERS: a JSON array of the identity providers whose access tokens the service accepts,
 * `[{"issuer":"https://idp.example.com/realms/eng","tenant":"acme","jit_domains":["example.com"]}]`.
 */
export const oauthIssuersJson = z
  .string()
  .optional()
  .transform((raw, ctx): OAuthIssuer[] => {
    if (raw === undefined || raw.trim() === '') return [];
    const parsed = readJson(
      raw,
      ctx,
      'a JSON array such as [{"issuer":"https://idp.example.com","tenant":"acme"}]',
    );
    if (parsed === z.NEVER) return z.NEVER;
    const result = z.array(issuerShape).max(20).safeParse(parsed);
    if (!result.success) {
      ctx.addIssue({
        code: 'custom',
        message: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
      });
      return z.NEVER;
    }
    const issuers = result.data.map((i) => ({
      issuer: i.issuer,
      tenant: i.tenant,
      ...(i.jwks_uri ? { jwksUri: i.jwks_uri } : {}),
      jitDomains: i.jit_domains,
      jitRole: i.jit_role,
      ...(i.console_client_id
        ? { console: { clientId: i.console_client_id, label: i.console_label ?? new URL(i.issuer).host } }
        : {}),
    }));
    if (new Set(issuers.map((i) => i.issuer)).size !== issuers.length) {
      ctx.addIssue({ code: 'custom', message: 'an issuer may be listed once' });
      return z.NEVER;
    }
    return issuers;
  });

/** OAUTH_RESOURCE: this service's canonical URL (the audience its access tokens must name). */
export const oauthResource = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw.trim() === '') return undefined;
    let url: URL;
    try {
      url = new URL(raw.trim());
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute URL such as https://memory.example.com' });
      return z.NEVER;
    }
    if (!/^https?:$/.test(url.protocol) || url.search || url.hash) {
      ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL without query or fragment' });
      return z.NEVER;
    }
    return url.toString().replace(/\/$/, '');
  });

/**
 * OAUTH_CONSOLE_CLIENT_SECRETS: the console clients' secrets by issuer, `{"https://idp.example.com":"…"}`,
 * apart from OAUTH_ISSUERS so that they can come from a Secret (never logged or echoed).
 */
export const oauthConsoleClientSecretsJson = z
  .string()
  .optional()
  .transform((raw, ctx): Record<string, string> => {
    if (raw === undefined || raw.trim() === '') return {};
    const parsed = readJson(raw, ctx, 'a JSON object such as {"https://idp.example.com":"client-secret"}');
    if (parsed === z.NEVER) return z.NEVER;
    const result = z.record(z.string().url(), z.string().min(1).max(1000)).safeParse(parsed);
    if (!result.success) {
      ctx.addIssue({ code: 'custom', message: 'must map issuer URLs to non-empty client secrets' });
      return z.NEVER;
    }
    return result.data;
  });

/** The issuers with their console clients' secrets added; problems name issuers, never secrets. */
export function withConsoleSecrets(
  issuers: readonly OAuthIssuer[],
  secrets: Readonly<Record<string, string>>,
  problems: string[],
): OAuthIssuer[] {
  for (const issuer of Object.keys(secrets)) {
    const entry = issuers.find((i) => i.issuer === issuer);
    if (!entry?.console)
      problems.push(
        `OAUTH_CONSOLE_CLIENT_SECRETS: "${issuer}" is not an issuer of OAUTH_ISSUERS with a console_client_id`,
      );
  }
  return issuers.map((i) =>
    i.console && secrets[i.issuer] !== undefined
      ? { ...i, console: { ...i.console, clientSecret: secrets[i.issuer] } }
      : i,
  );
}

/**
 * Whether the console's cookies can be `Secure` (and `__Host-` named): the public URL is https. Plain
 * http is accepted only on a loopback address (development and tests), where browsers keep cookies
 * without `Secure`.
 */
export function consoleCookiesSecure(resource: string): boolean {
  return new URL(resource).protocol === 'https:';
}

export function isLoopbackUrl(resource: string): boolean {
  const host = new URL(resource).hostname;
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
}
