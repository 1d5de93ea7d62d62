import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import Provider, { type ClientMetadata, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';

/** A member the test identity provider signs in (any password). */
export interface IdpAccount {
  readonly email: string;
  readonly name?: string;
  /** Default true; false: the tokens say the email is not verified. */
  readonly emailVerified?: boolean;
}

export interface SigningKey {
  readonly kid: string;
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

export async function newSigningKey(kid = `k-${randomBytes(4).toString('hex')}`): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const base = { kid, alg: 'RS256', use: 'sig' };
  return {
    kid,
    privateJwk: { ...(await exportJWK(privateKey)), ...base },
    publicJwk: { ...(await exportJWK(publicKey)), ...base },
  };
}

export const TEST_REDIRECT_URI = 'http://127.0.0.1:9/callback';
export const TEST_CLIENT_ID = 'memory-tests';

/**
 * A real OpenID provider (the certified `oidc-provider` package) on a local port: authorization
 * code + PKCE, resource indicators (JWT access tokens whose audience is the resource asked for,
 * carrying the member's email), dynamic client registration, and signing keys that can be rotated
 * while it runs (`rotate`).
 */
export class TestIdp {
  private provider!: Provider;
  private constructor(
    private readonly server: Server,
    readonly issuer: string,
    private readonly accounts: Map<string, IdpAccount>,
    private readonly scopes: readonly string[],
    public keys: SigningKey[],
    private readonly extraClients: readonly ClientMetadata[] = [],
  ) {}

  /** `clients`: registered beside the tests' public client (e.g. the console's, with its redirect URI). */
  static async start(options: {
    accounts: Record<string, IdpAccount>;
    scopes: readonly string[];
    clients?: readonly ClientMetadata[];
  }): Promise<TestIdp> {
    let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
    const server = createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const idp = new TestIdp(
      server,
      issuer,
      new Map(Object.entries(options.accounts)),
      options.scopes,
      [await newSigningKey()],
      options.clients,
    );
    idp.provider = idp.build();
    handler = (req, res) => void idp.provider.callback()(req, res);
    return idp;
  }

  /** Signs with a new key from now on; the old key stays published beside it (a rotation with overlap). */
  async rotate(): Promise<SigningKey> {
    const next = await newSigningKey();
    this.keys = [next, ...this.keys];
    this.provider = this.build();
    return next;
  }

  /** Signs an arbitrary token with the current key (or `key`): the negative cases a provider never issues. */
  async sign(
    claims: Record<string, unknown>,
    options: { key?: SigningKey; expiresIn?: string | number } = {},
  ) {
    const key = options.key ?? this.keys[0];
    const privateKey = await importPrivate(key.privateJwk);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'at+jwt' })
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? '5m')
      .sign(privateKey);
  }

  /**
   * The authorization code flow with PKCE as a client runs it, the member signing in and consenting
   * on the provider's own pages (driven over HTTP); returns the access token.
   */
  async accessToken(options: {
    account: string;
    resource: string;
    scope: string;
    clientId?: string;
    redirectUri?: string;
  }) {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const clientId = options.clientId ?? TEST_CLIENT_ID;
    const redirectUri = options.redirectUri ?? TEST_REDIRECT_URI;
    const url = new URL(`${this.issuer}/auth`);
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: options.scope,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: options.resource,
      state: randomBytes(8).toString('hex'),
    }).toString();
    const code = await this.authorize(url.toString(), options.account);
    const res = await fetch(`${this.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
        resource: options.resource,
      }),
    });
    const body = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
    if (!body.access_token) throw new Error(`token endpoint: ${res.status} ${JSON.stringify(body)}`);
    return body.access_token;
  }

  /**
   * Follows an authorization URL through the provider's sign-in and consent pages as `account`;
   * returns the code its last redirect hands the client.
   */
  async authorize(authorizationUrl: string, account: string): Promise<string> {
    const jar = new Map<string, string>();
    let next: { url: string; method: 'GET' | 'POST'; form?: Record<string, string> } = {
      url: authorizationUrl,
      method: 'GET',
    };
    for (let hop = 0; hop < 20; hop++) {
      const res = await fetch(next.url, {
        method: next.method,
        redirect: 'manual',
        headers: {
          cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(next.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: next.form ? new URLSearchParams(next.form) : undefined,
      });
      for (const cookie of res.headers.getSetCookie()) {
        const [pair] = cookie.split(';');
        const at = pair.indexOf('=');
        jar.set(pair.slice(0, at), pair.slice(at + 1));
      }
      const location = res.headers.get('location');
      if (location) {
        const target = new URL(location, next.url);
        const code = target.searchParams.get('code');
        if (code && !target.href.startsWith(this.issuer)) return code;
        const error = target.searchParams.get('error');
        if (error)
          throw new Error(`authorization refused: ${error} ${target.searchParams.get('error_description')}`);
        next = { url: target.href, method: 'GET' };
        continue;
      }
      const html = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1];
      if (!action || !prompt) throw new Error(`unexpected page (${res.status}): ${html.slice(0, 300)}`);
      const form: Record<string, string> =
        prompt === 'login' ? { prompt, login: account, password: 'any' } : { prompt };
      next = { url: new URL(action.replace(/&amp;/g, '&'), next.url).href, method: 'POST', form };
    }
    throw new Error('too many redirects in the authorization flow');
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private build(): Provider {
    const accounts = this.accounts;
    const scopes = this.scopes;
    const claimsOf = (id: string) => {
      const account = accounts.get(id);
      return account
        ? {
            email: account.email,
            email_verified: account.emailVerified ?? true,
            ...(account.name ? { name: account.name } : {}),
          }
        : {};
    };
    const configuration: Configuration = {
      clients: [
        {
          client_id: TEST_CLIENT_ID,
          token_endpoint_auth_method: 'none',
          redirect_uris: [TEST_REDIRECT_URI],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        },
        ...this.extraClients,
      ],
      jwks: { keys: this.keys.map((k) => k.privateJwk) as never[] },
      scopes: ['openid', 'email', 'profile', 'offline_access', ...scopes],
      claims: { email: ['email', 'email_verified'], profile: ['name'] },
      pkce: { required: () => true },
      features: {
        devInteractions: { enabled: true },
        registration: { enabled: true },
        resourceIndicators: {
          enabled: true,
          // A client that names no resource gets a token for nothing this service accepts.
          defaultResource: (_ctx: KoaContextWithOIDC) => undefined as unknown as string,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: KoaContextWithOIDC, resourceIndicator: string) => ({
            scope: scopes.join(' '),
            audience: resourceIndicator,
            accessTokenTTL: 300,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      // The member's email in the access token, as Okta, Entra ID and Keycloak can be set to add it.
      extraTokenClaims: (_ctx: KoaContextWithOIDC, token: unknown) =>
        claimsOf((token as { accountId: string }).accountId),
      findAccount: (_ctx: KoaContextWithOIDC, id: string) =>
        accounts.has(id) ? { accountId: id, claims: () => ({ sub: id, ...claimsOf(id) }) } : undefined,
      // Plain http on 127.0.0.1 for the test.
      cookies: { keys: ['test-cookie-key'] },
    };
    return new Provider(this.issuer, configuration);
  }
}

async function importPrivate(jwk: JWK) {
  const { importJWK } = await import('jose');
  return importJWK(jwk, 'RS256');
}
