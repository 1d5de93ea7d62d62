/** An in-memory KV v2 secrets engine with Vault's versioning, check-and-set and delete semantics. */

export interface KvReply {
  readonly status: number;
  /** Undefined for 204 responses. */
  readonly body?: Record<string, unknown>;
}

interface KvVersion {
  data: Record<string, unknown> | null;
  readonly createdTime: string;
  deletionTime: string;
  destroyed: boolean;
}

interface KvSecret {
  readonly versions: Map<number, KvVersion>;
  currentVersion: number;
  readonly createdTime: string;
  updatedTime: string;
  casRequired: boolean;
  maxVersions: number;
  customMetadata: Record<string, string> | null;
}

const notFound: KvReply = { status: 404, body: { errors: [] } };
const noContent: KvReply = { status: 204 };
const badRequest = (message: string): KvReply => ({ status: 400, body: { errors: [message] } });

export class FakeKvV2 {
  private readonly secrets = new Map<string, KvSecret>();

  constructor(private readonly now: () => number) {}

  read(path: string, version: number): KvReply {
    const secret = this.secrets.get(path);
    if (!secret) return notFound;
    const wanted = version > 0 ? version : secret.currentVersion;
    const entry = secret.versions.get(wanted);
    if (!entry) return notFound;
    const metadata = versionMetadata(wanted, entry, secret.customMetadata);
    // Vault answers a deleted or destroyed version with 404 but still shows its metadata.
    if (entry.data === null || entry.deletionTime !== '')
      return { status: 404, body: { data: { data: null, metadata } } };
    return { status: 200, body: { data: { data: entry.data, metadata } } };
  }

  write(path: string, payload: unknown): KvReply {
    const body = asRecord(payload);
    const data = body ? asRecord(body.data) : undefined;
    if (!data) return badRequest('no data provided');
    const options = asRecord(body?.options);
    const cas = options?.cas;
    const secret = this.secrets.get(path);
    const current = secret?.currentVersion ?? 0;
    if (cas === undefined && secret?.casRequired)
      return badRequest('check-and-set parameter required for this call');
    if (cas !== undefined && (typeof cas !== 'number' || cas !== current)) {
      return badRequest('check-and-set parameter did not match the current version');
    }
    const time = this.iso();
    const target = secret ?? this.create(path, time);
    const version = current + 1;
    target.versions.set(version, { data, createdTime: time, deletionTime: '', destroyed: false });
    target.currentVersion = version;
    target.updatedTime = time;
    this.trim(target);
    const entry = target.versions.get(version) as KvVersion;
    return { status: 200, body: { data: versionMetadata(version, entry, target.customMetadata) } };
  }

  /** DELETE data/<path>: soft-deletes the latest version. */
  deleteLatest(path: string): KvReply {
    const secret = this.secrets.get(path);
    const entry = secret?.versions.get(secret.currentVersion);
    if (entry && entry.deletionTime === '') entry.deletionTime = this.iso();
    return noContent;
  }

  deleteVersions(path: string, payload: unknown): KvReply {
    return this.eachVersion(path, payload, (entry) => {
      if (entry.deletionTime === '') entry.deletionTime = this.iso();
    });
  }

  undeleteVersions(path: string, payload: unknown): KvReply {
    return this.eachVersion(path, payload, (entry) => {
      if (!entry.destroyed) entry.deletionTime = '';
    });
  }

  destroyVersions(path: string, payload: unknown): KvReply {
    return this.eachVersion(path, payload, (entry) => {
      entry.destroyed = true;
      entry.data = null;
    });
  }

  readMetadata(path: string): KvReply {
    const secret = this.secrets.get(path);
    if (!secret) return notFound;
    const versions: Record<string, unknown> = {};
    for (const [n, v] of secret.versions) {
      versions[String(n)] = {
        created_time: v.createdTime,
        deletion_time: v.deletionTime,
        destroyed: v.destroyed,
      };
    }
    const numbers = [...secret.versions.keys()];
    return {
      status: 200,
      body: {
        data: {
          cas_required: secret.casRequired,
          created_time: secret.createdTime,
          current_version: secret.currentVersion,
          custom_metadata: secret.customMetadata,
          delete_version_after: '0s',
          max_versions: secret.maxVersions,
          oldest_version: numbers.length ? Math.min(...numbers) : 0,
          updated_time: secret.updatedTime,
          versions,
        },
      },
    };
  }

  /** POST metadata/<path>: configure cas_required, max_versions, custom_metadata. */
  writeMetadata(path: string, payload: unknown): KvReply {
    const body = asRecord(payload) ?? {};
    const secret = this.secrets.get(path) ?? this.create(path, this.iso());
    if (typeof body.cas_required === 'boolean') secret.casRequired = body.cas_required;
    if (typeof body.max_versions === 'number') secret.maxVersions = body.max_versions;
    const custom = asRecord(body.custom_metadata);
    if (custom)
      secret.customMetadata = Object.fromEntries(Object.entries(custom).map(([k, v]) => [k, String(v)]));
    return noContent;
  }

  deleteMetadata(path: string): KvReply {
    this.secrets.delete(path);
    return noContent;
  }

  /** Keys directly under a folder; sub-folders end with "/". Empty folder → 404 like Vault. */
  list(folder: string): KvReply {
    const prefix = folder === '' || folder.endsWith('/') ? folder : `${folder}/`;
    const keys = new Set<string>();
    for (const path of this.secrets.keys()) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      const slash = rest.indexOf('/');
      keys.add(slash < 0 ? rest : rest.slice(0, slash + 1));
    }
    if (keys.size === 0) return notFound;
    return { status: 200, body: { data: { keys: [...keys].sort() } } };
  }

  private eachVersion(path: string, payload: unknown, apply: (entry: KvVersion) => void): KvReply {
    const versions = asRecord(payload)?.versions;
    if (!Array.isArray(versions) || versions.length === 0) return badRequest('no version number provided');
    const secret = this.secrets.get(path);
    for (const n of versions) {
      const entry = secret?.versions.get(Number(n));
      if (entry) apply(entry);
    }
    return noContent;
  }

  private create(path: string, time: string): KvSecret {
    const secret: KvSecret = {
      versions: new Map(),
      currentVersion: 0,
      createdTime: time,
      updatedTime: time,
      casRequired: false,
      maxVersions: 0,
      customMetadata: null,
    };
    this.secrets.set(path, secret);
    return secret;
  }

  /** Vault keeps 10 versions when max_versions is 0. */
  private trim(secret: KvSecret): void {
    const keep = secret.maxVersions > 0 ? secret.maxVersions : 10;
    const numbers = [...secret.versions.keys()].sort((a, b) => a - b);
    for (const n of numbers.slice(0, Math.max(0, numbers.length - keep))) secret.versions.delete(n);
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }
}

function versionMetadata(
  version: number,
  entry: KvVersion,
  custom: Record<string, string> | null,
): Record<string, unknown> {
  return {
    created_time: entry.createdTime,
    custom_metadata: custom,
    deletion_time: entry.deletionTime,
    destroyed: entry.destroyed,
    version,
  };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
