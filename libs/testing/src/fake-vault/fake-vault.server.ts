import { randomUUID } from 'node:crypto';
import { FakeKvV2, type KvReply } from './fake-vault-kv';
import { FakeVaultTokens, type FakeTokenOptions, type FakeToken } from './fake-vault-tokens';
import { MinimalHttpServer, type MinimalRequest, type MinimalResponse } from './minimal-http.server';

export interface FakeVaultOptions {
  /** KV v2 mount name (Vault dev servers mount `secret/`). */
  readonly mount?: string;
  readonly rootToken?: string;
  /** AppRole credentials accepted by `auth/approle/login`. */
  readonly approle?: { readonly roleId: string; readonly secretId: string };
  /** Kubernetes role and the service-account JWT accepted by `auth/kubernetes/login`. */
  readonly kubernetes?: { readonly role: string; readonly jwt: string };
  /** TTL of tokens issued by the login endpoints, in seconds. */
  readonly loginTokenTtlSeconds?: number;
  /** Clock for token expiry; tests may pass a controllable one. */
  readonly now?: () => number;
}

/** Switches that make the fake misbehave the way a real Vault or network does. */
export interface FakeVaultFaults {
  /** Answers 503 "Vault is sealed" (health 503, seal-status 200 with sealed=true). */
  sealed: boolean;
  /** Delay before every answer. */
  latencyMs: number;
  /** Accepts requests and never answers, like a dropped packet path. */
  blackhole: boolean;
  /** Answers the next N requests with this status (429 rate limit or 500). */
  failNext: { status: 429 | 500; count: number } | undefined;
  /** Answers 200 with a truncated JSON body. */
  malformedJson: boolean;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
}

const json = (status: number, body: Record<string, unknown>): KvReply => ({ status, body });
const denied = json(403, { errors: ['permission denied'] });

/** A Vault-HTTP-API-compatible server for tests (no Vault binary here); see docs/secrets.md. */
export class FakeVault {
  readonly faults: FakeVaultFaults = {
    sealed: false,
    latencyMs: 0,
    blackhole: false,
    failNext: undefined,
    malformedJson: false,
  };
  readonly requests: RecordedRequest[] = [];
  readonly mount: string;
  readonly rootToken: string;
  readonly tokens: FakeVaultTokens;
  readonly kv: FakeKvV2;
  private readonly http = new MinimalHttpServer((req, res) => this.handle(req, res));
  private port = 0;

  constructor(private readonly options: FakeVaultOptions = {}) {
    const now = options.now ?? Date.now;
    this.mount = options.mount ?? 'secret';
    this.tokens = new FakeVaultTokens(now);
    this.kv = new FakeKvV2(now);
    this.rootToken = this.tokens.issue({
      id: options.rootToken ?? 'root-token',
      ttlSeconds: 0,
      policies: ['root'],
    }).id;
  }

  /** Listens on 127.0.0.1 and a free port; returns the address to use as VAULT_ADDR. */
  async start(): Promise<string> {
    this.port = await this.http.listen('127.0.0.1');
    return this.address;
  }

  stop(): Promise<void> {
    return this.http.close();
  }

  get address(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  issueToken(options: FakeTokenOptions = {}): string {
    return this.tokens.issue(options).id;
  }

  /** Fault switch: the given token (or every non-root token) is revoked, so its next use gets 403. */
  expireToken(id?: string): void {
    if (id) this.tokens.revoke(id);
    else this.tokens.revokeAllExcept(this.rootToken);
  }

  /** Seals the fake: every request but health and seal-status answers 503 "Vault is sealed". */
  seal(): void {
    this.faults.sealed = true;
  }

  unseal(): void {
    this.faults.sealed = false;
  }

  resetFaults(): void {
    Object.assign(this.faults, {
      sealed: false,
      latencyMs: 0,
      blackhole: false,
      failNext: undefined,
      malformedJson: false,
    });
  }

  count(method: string, path: string): number {
    return this.requests.filter((r) => r.method === method && r.path === path).length;
  }

  private async handle(req: MinimalRequest, res: MinimalResponse): Promise<void> {
    this.requests.push({ method: req.method, path: req.path });
    if (this.faults.blackhole) return;
    if (this.faults.latencyMs > 0) await new Promise((r) => setTimeout(r, this.faults.latencyMs));
    const injected = this.faults.failNext;
    if (injected && injected.count > 0) {
      injected.count -= 1;
      const message = injected.status === 429 ? 'rate limit quota exceeded' : 'internal error';
      return res.send(injected.status, JSON.stringify({ errors: [message] }));
    }
    if (this.faults.malformedJson) return res.send(200, '{"data": {"data": ');
    const reply = this.route(req);
    res.send(reply.status, reply.body === undefined ? undefined : JSON.stringify(withEnvelope(reply.body)));
  }

  private route(req: MinimalRequest): KvReply {
    const path = req.path.replace(/^\/v1\//, '');
    const method = req.method === 'GET' && isListQuery(req.query) ? 'LIST' : req.method;
    if (path === 'sys/health' && method === 'GET') return this.health();
    if (path === 'sys/seal-status' && method === 'GET') return json(200, this.sealStatus());
    if (this.faults.sealed) return json(503, { errors: ['Vault is sealed'] });
    const body = parseBody(req.body);
    if (body === 'invalid') return json(400, { errors: ['failed to parse JSON input'] });
    if (path === 'auth/approle/login' && method === 'POST') return this.approleLogin(body);
    if (path === 'auth/kubernetes/login' && method === 'POST') return this.kubernetesLogin(body);

    const token = this.tokens.find(req.headers['x-vault-token']);
    if (!token) return denied;
    if (path === 'auth/token/lookup-self' && method === 'GET')
      return json(200, { data: this.tokens.lookupBody(token) });
    if (path === 'auth/token/renew-self' && (method === 'POST' || method === 'PUT'))
      return this.renewSelf(token, body);
    if (path.startsWith(`${this.mount}/`))
      return this.kvRoute(method, path.slice(this.mount.length + 1), req.query, body);
    return json(404, { errors: [`no handler for route "${path}". route entry not found.`] });
  }

  private kvRoute(method: string, rest: string, query: URLSearchParams, body: unknown): KvReply {
    const slash = rest.indexOf('/');
    const op = slash < 0 ? rest : rest.slice(0, slash);
    const path = slash < 0 ? '' : rest.slice(slash + 1);
    const write = method === 'POST' || method === 'PUT';
    if (op === 'data' && method === 'GET')
      return this.kv.read(path, Number(query.get('version') ?? '0') || 0);
    if (op === 'data' && write) return this.kv.write(path, body);
    if (op === 'data' && method === 'DELETE') return this.kv.deleteLatest(path);
    if (op === 'delete' && write) return this.kv.deleteVersions(path, body);
    if (op === 'undelete' && write) return this.kv.undeleteVersions(path, body);
    if (op === 'destroy' && write) return this.kv.destroyVersions(path, body);
    if (op === 'metadata' && method === 'LIST') return this.kv.list(path);
    if (op === 'metadata' && method === 'GET') return this.kv.readMetadata(path);
    if (op === 'metadata' && write) return this.kv.writeMetadata(path, body);
    if (op === 'metadata' && method === 'DELETE') return this.kv.deleteMetadata(path);
    return json(405, { errors: ['1 error occurred:\n\t* unsupported operation\n\n'] });
  }

  private health(): KvReply {
    const base = {
      initialized: true,
      sealed: this.faults.sealed,
      standby: this.faults.sealed,
      performance_standby: false,
      replication_performance_mode: 'disabled',
      replication_dr_mode: 'disabled',
      server_time_utc: Math.floor(Date.now() / 1000),
      version: '1.17.0-fake',
      cluster_name: 'fake-vault',
      cluster_id: 'fake-vault-cluster',
    };
    return json(this.faults.sealed ? 503 : 200, base);
  }

  private sealStatus(): Record<string, unknown> {
    return {
      type: 'shamir',
      initialized: true,
      sealed: this.faults.sealed,
      t: 1,
      n: 1,
      progress: 0,
      nonce: '',
      version: '1.17.0-fake',
      build_date: '2024-01-01T00:00:00Z',
      migration: false,
      recovery_seal: false,
      storage_type: 'inmem',
      ...(this.faults.sealed ? {} : { cluster_name: 'fake-vault', cluster_id: 'fake-vault-cluster' }),
    };
  }

  private approleLogin(body: unknown): KvReply {
    const creds = this.options.approle;
    const input = asRecord(body);
    if (!creds || input?.role_id !== creds.roleId || input?.secret_id !== creds.secretId) {
      return json(400, { errors: ['invalid role or secret ID'] });
    }
    return this.login('auth/approle/login', ['default', 'memory-service']);
  }

  private kubernetesLogin(body: unknown): KvReply {
    const k8s = this.options.kubernetes;
    const input = asRecord(body);
    if (!k8s || input?.role !== k8s.role)
      return json(400, { errors: [`invalid role name "${String(input?.role)}"`] });
    if (input?.jwt !== k8s.jwt) return denied;
    return this.login('auth/kubernetes/login', ['default', 'memory-service']);
  }

  private login(path: string, policies: string[]): KvReply {
    const token = this.tokens.issue({
      ttlSeconds: this.options.loginTokenTtlSeconds ?? 3600,
      renewable: true,
      path,
      policies,
    });
    return json(200, { auth: this.tokens.authBody(token) });
  }

  private renewSelf(token: FakeToken, body: unknown): KvReply {
    if (!token.renewable) return json(400, { errors: ['lease is not renewable'] });
    const increment = asRecord(body)?.increment;
    this.tokens.renew(token, typeof increment === 'number' ? increment : parseDuration(increment));
    return json(200, { auth: this.tokens.authBody(token) });
  }
}

/** Vault wraps every JSON answer in the same envelope. */
function withEnvelope(body: Record<string, unknown>): Record<string, unknown> {
  if ('errors' in body && !('data' in body)) return body;
  if ('initialized' in body) return body; // sys/health and seal-status are not enveloped
  return {
    request_id: randomUUID(),
    lease_id: '',
    renewable: false,
    lease_duration: 0,
    data: null,
    wrap_info: null,
    warnings: null,
    auth: null,
    ...body,
  };
}

function isListQuery(query: URLSearchParams): boolean {
  const list = query.get('list');
  return list === 'true' || list === '1';
}

function parseBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return 'invalid';
  }
}

function parseDuration(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+)([smh]?)$/.exec(value);
  if (!match) return undefined;
  return Number(match[1]) * ({ '': 1, s: 1, m: 60, h: 3600 } as Record<string, number>)[match[2] ?? ''];
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
