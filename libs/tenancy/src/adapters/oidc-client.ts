import { Injectable } from '@nestjs/common';
import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { OAuthConsoleClient, OAuthIssuer } from '@app/config';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';

/** The endpoints of an identity provider's discovery document the console's sign-in uses. */
interface ProviderMetadata {
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly userinfoEndpoint: string | null;
  readonly jwks: JWTVerifyGetKey;
}

/** The claims of a verified ID token (and userinfo) sign-in uses. */
export interface VerifiedIdToken {
  readonly subject: string;
  readonly verifiedEmail: string | null;
  readonly name: string | null;
}

const ID_TOKEN_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];
const TIMEOUT_MS = 5_000;

/**
 * The console's OpenID Connect relying party (jose + fetch): finds a provider's endpoints by
 * discovery (cached per process), builds the authorization request (code + PKCE S256, state, nonce),
 * exchanges the code at the token endpoint (client_secret_basic for a confidential client, the
 * client id alone for a public one), and verifies the ID token: signature by the provider's keys,
 * `iss`, `aud` (the client id), `exp` and the `nonce` of this sign-in. A provider that keeps the email
 * out of the ID token is asked its userinfo endpoint, whose `sub` must match.
 */
@Injectable()
export class OidcClient {
  private readonly metadata = new Map<string, Promise<ProviderMetadata>>();

  async authorizationUrl(
    issuer: OAuthIssuer & { console: OAuthConsoleClient },
    request: { redirectUri: string; state: string; nonce: string; codeChallenge: string },
  ): Promise<string> {
    const url = new URL((await this.discover(issuer)).authorizationEndpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', issuer.console.clientId);
    url.searchParams.set('redirect_uri', request.redirectUri);
    url.searchParams.set('scope', 'openid email profile');
    url.searchParams.set('state', request.state);
    url.searchParams.set('nonce', request.nonce);
    url.searchParams.set('code_challenge', request.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    return url.toString();
  }

  async signIn(
    issuer: OAuthIssuer & { console: OAuthConsoleClient },
    grant: { code: string; redirectUri: string; codeVerifier: string; nonce: string },
  ): Promise<VerifiedIdToken> {
    const provider = await this.discover(issuer);
    const { clientId, clientSecret } = issuer.console;
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      code_verifier: grant.codeVerifier,
    });
    if (clientSecret === undefined) form.set('client_id', clientId);
    else
      headers.authorization = `Basic ${Buffer.from(
        `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`,
      ).toString('base64')}`;
    const res = await request(provider.tokenEndpoint, { method: 'POST', headers, body: form });
    const tokens = (await res.json().catch(() => ({}))) as {
      id_token?: unknown;
      access_token?: unknown;
      error?: unknown;
    };
    if (!res.ok || typeof tokens.id_token !== 'string')
      throw signInFailed(
        `The identity provider refused the sign-in code (${res.status}${
          typeof tokens.error === 'string' ? `: ${tokens.error.slice(0, 100)}` : ''
        })`,
      );
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(tokens.id_token, provider.jwks, {
        issuer: issuer.issuer,
        audience: clientId,
        algorithms: ID_TOKEN_ALGORITHMS,
        clockTolerance: 30,
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (error) {
      throw signInFailed(`The identity provider's ID token does not verify (${(error as Error).message})`);
    }
    if (claims.nonce !== grant.nonce) throw signInFailed("The ID token's nonce is not this sign-in's");
    const subject = String(claims.sub);
    if (subject.length > 255) throw signInFailed("The ID token's subject is longer than 255 characters");
    if (
      typeof claims.email !== 'string' &&
      provider.userinfoEndpoint &&
      typeof tokens.access_token === 'string'
    )
      claims = {
        ...(await this.userinfo(provider.userinfoEndpoint, tokens.access_token, subject)),
        ...claims,
      };
    return {
      subject,
      verifiedEmail:
        claims.email_verified === true && typeof claims.email === 'string'
          ? claims.email.toLowerCase()
          : null,
      name: typeof claims.name === 'string' ? claims.name.slice(0, 200) : null,
    };
  }

  private async userinfo(endpoint: string, accessToken: string, subject: string): Promise<JWTPayload> {
    const res = await request(endpoint, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
    });
    const body = (await res.json().catch(() => null)) as JWTPayload | null;
    // Another subject's answer is not this sign-in's (OpenID Connect Core 5.3.2).
    if (!res.ok || body === null || body.sub !== subject) return {};
    return { email: body.email, email_verified: body.email_verified, name: body.name };
  }

  private discover(issuer: OAuthIssuer): Promise<ProviderMetadata> {
    let found = this.metadata.get(issuer.issuer);
    if (!found) {
      found = this.fetchMetadata(issuer);
      // A failed discovery is tried again by the next sign-in.
      found.catch(() => this.metadata.delete(issuer.issuer));
      this.metadata.set(issuer.issuer, found);
    }
    return found;
  }

  private async fetchMetadata(issuer: OAuthIssuer): Promise<ProviderMetadata> {
    const url = `${issuer.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const res = await request(url, { headers: { accept: 'application/json' } });
    const doc = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    const endpoint = (name: string) => (typeof doc[name] === 'string' ? doc[name] : null);
    const authorizationEndpoint = endpoint('authorization_endpoint');
    const tokenEndpoint = endpoint('token_endpoint');
    const jwksUri = issuer.jwksUri ?? endpoint('jwks_uri');
    if (!res.ok || doc.issuer !== issuer.issuer || !authorizationEndpoint || !tokenEndpoint || !jwksUri)
      throw signInFailed(
        `The identity provider's discovery document (${url}) is missing or not for this issuer`,
      );
    return {
      authorizationEndpoint,
      tokenEndpoint,
      userinfoEndpoint: endpoint('userinfo_endpoint'),
      jwks: createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: TIMEOUT_MS, cooldownDuration: 5_000 }),
    };
  }
}

async function request(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    throw signInFailed(`The identity provider could not be reached (${(error as Error).message})`);
  }
}

function signInFailed(message: string): TenancyError {
  return new TenancyError(TenancyErrorCode.SignInFailed, message);
}
