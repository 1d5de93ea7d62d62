import { Injectable } from '@nestjs/common';
import { type Tx } from '@app/persistence';

export interface TenantRef {
  readonly id: string;
  readonly slug: string;
}

/** Tenants are looked up before any tenant context exists, so these run in system transactions. */
@Injectable()
export class TenantRepository {
  async upsertBySlug(tx: Tx, slug: string): Promise<TenantRef> {
    // DO UPDATE (not DO NOTHING) so RETURNING yields the row whether or not it already existed.
    const { rows } = await tx.query<TenantRef>(
      `INSERT INTO tenants (slug, name) VALUES ($1, $1)
       ON CONFLICT (slug) DO UPDATE SET slug = EXCLUDED.slug
       RETURNING id, slug`,
      [slug],
    );
    return rows[0];
  }

  async findBySlug(tx: Tx, slug: string): Promise<TenantRef | null> {
    const { rows } = await tx.query<TenantRef>(`SELECT id, slug FROM tenants WHERE slug = $1`, [slug]);
    return rows[0] ?? null;
  }
}
