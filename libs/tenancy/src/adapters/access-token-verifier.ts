import { Inject, Injectable } from '@nestjs/common';
import {
  createRemoteJWKSet,
  decodeJwt,
  errors as jose,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { APP_CONFIG, type AppConfig, type OAuthIssuer } from '@app/config';
import { TenancyError, TenancyErrorCode } from '../domain/tenancy.errors';

/** The claims of a verified access token that sign-in uses, and the issuer that signed it. */
export interface VerifiedAccessToken {
  readonly issuer: OAuthIssuer;
  readonly subject: string;
  /** The email, only when the token says it is verified (`email_verified: true`). */
  readonly verifiedEmail: string | null;
  readonly name: string | null;
  /** The token's scopes (`scope` or `scp`), or null when it names none. */
  readonly scopes: readonly string[] | null;
  /** When the token expires (ms since the epoch). */
  readonly expiresAt: number;
}

/** A compact JWS: three base64url parts. API keys never contain a dot. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Signature algorithms accepted (asymmetric only: a shared secret would let the issuer's clients mint tokens). */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export const ACCESS_TOKEN_CLOCK_TOLERANCE_S = 30;

/** Seconds between two fetches of an issuer's key set when a token names a key it lacks (rotation). */
export const JWKS_REFETCH_COOLDOWN_MS = 5_000;

/**
 * Verifies access tokens (RFC 9068 JWTs) from the configured identity providers: the issuer must
 * be one of OAUTH_ISSUERS, the signature must verify with a key of its JWKS (fetched from its
 * discovery document, cached, and fetched again when a token names a key it does not hold: a
 * rotation is picked up without restart), the audience must name this service (OAUTH_RESOURCE, or
 * its `/mcp` endpoint), and the token must be within its lifetime.
 */
@Injectable()
export class AccessTokenVerifier {
  private readonly issuers: ReadonlyMap<string, OAuthIssuer>;
  private readonly audiences: readonly string[];
  private readonly keySets = new Map<string, Promise<JWTVerifyGetKey>>();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.issuers = new Map(config.oauth.issuers.map((i) => [i.issuer, i]));
    const resource = config.oauth.resource;
    this.audiences = resource === null ? [] : [resource, `${resource}/`, `${resource}/mcp`];
  }

  get enabled(): boolean {
    return this.issuers.size > 0;
  }

  /** Whether `token` is for this verifier (a JWT while issuers are configured), not an API key. */
  accepts(token: string): boolean {
    return this.enabled && JWT_SHAPE.test(token);
  }

  async verify(token: string): Promise<VerifiedAccessToken> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      throw unauthenticated('The access token is not a readable JWT');
    }
    const issuer = typeof unverified.iss === 'string' ? this.issuers.get(unverified.iss) : undefined;
    if (!issuer)
      throw unauthenticated(
        'The access token was issued by an identity provider this service does not trust',
      );
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await this.keySet(issuer), {
        issuer: issuer.issuer,
        audience: [...this.audiences],
        algorithms: ALGORITHMS,
        clockTolerance: ACCESS_TOKEN_CLOCK_TOLERANCE_S,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      throw unauthenticated(rejectionMessage(error));
    }
    if (String(payload.sub).length > 255)
      throw unauthenticated("The access token's subject is longer than 255 characters");
    const email =
      payload.email_verified === true && typeof payload.email === 'string'
        ? payload.email.toLowerCase()
        : null;
    return {
      issuer,
      subject: String(payload.sub),
      verifiedEmail: email,
      name: typeof payload.name === 'string' ? payload.name.slice(0, 200) : null,
      scopes: scopesOf(payload),
      expiresAt: (payload.exp as number) * 1000,
    };
  }

  private keySet(issuer: OAuthIssuer): Promise<JWTVerifyGetKey> {
    let found = this.keySets.get(issuer.issuer);
    if (!found) {
      found = this.discover(issuer).then((uri) =>
        createRemoteJWKSet(new URL(uri), {
          cooldownDuration: JWKS_REFETCH_COOLDOWN_MS,
          cacheMaxAge: 10 * 60_000,
          timeoutDuration: 5_000,
        }),
      );
      // A failed discovery is tried again by the next request.
      found.catch(() => this.keySets.delete(issuer.issuer));
      this.keySets.set(issuer.issuer, found);
    }
    return found;
  }

  /** The issuer's JWKS URL: configured, or from its OpenID / OAuth discovery document. */
  private async discover(issuer: OAuthIssuer): Promise<string> {
    if (issuer.jwksUri) return issuer.jwksUri;
    const base = issuer.issuer.replace(/\/$/, '');
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      try {
        const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5_000) });
        if (!res.ok) continue;
        const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
        if (doc.issuer === issuer.issuer && typeof doc.jwks_uri === 'string') return doc.jwks_uri;
      } catch {
        // Try the other document; both failing is reported below.
      }
    }
    throw unauthenticated(`The identity provider's signing keys could not be found (${base} discovery)`);
  }
}

function scopesOf(payload: JWTPayload): string[] | null {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((s): s is string => typeof s === 'string');
  return null;
}

function rejectionMessage(error: unknown): string {
  if (error instanceof TenancyError) return error.message;
  if (error instanceof jose.JWTExpired) return 'The access token has expired';
  if (error instanceof jose.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'The access token was issued for another audience than this service';
    return `The access token's "${error.claim}" claim is not acceptable`;
  }
  if (error instanceof jose.JWSSignatureVerificationFailed || error instanceof jose.JWKSNoMatchingKey)
    return "The access token's signature does not verify with the identity provider's keys";
  if (error instanceof jose.JOSEAlgNotAllowed)
    return "The access token's signature algorithm is not accepted";
  if (error instanceof jose.JWKSTimeout || error instanceof jose.JOSEError)
    return `The access token could not be verified (${(error as Error).message})`;
  return 'The access token could not be verified';
}

function unauthenticated(message: string): TenancyError {
  return new TenancyError(TenancyErrorCode.Unauthenticated, message);
}
