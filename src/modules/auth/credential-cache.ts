import type { Deps } from '../../platform/deps.js';
import type { TenantVersionsLoader } from '../../platform/store/tenant-versions.js';
import { sha256Hex } from '../../kernel/crypto.js';
import { acrossTenants, inTenants } from '../../platform/store/tenant-scope.js';
import { API_KEY_PREFIX } from '../../platform/identity/tokens.js';
import { type Credential, type LoadedCredential, loadCredential, touchApiKey } from './credentials.js';
import { rememberNewest } from '../../kernel/newest-first.js';

const MAX_ENTRIES = 10_000;
/** `last_used_at` of an API key is written at most this often, not on every request. */
const LAST_USED_PRECISION_MS = 60_000;

export interface ResolvedCredential {
  credential: Credential;
  /** The tenant's credentials counter the credential was loaded at. */
  version: number;
  /** False when served from the cache without reading the counter (`deferCheck`). */
  checked: boolean;
}

/** A transaction found that the tenant's credentials changed since the caller's was cached: check it again. */
export class CredentialChangedError extends Error {
  constructor() {
    super('The credential may have changed; check it again');
  }
}

/**
 * Bearer secrets (by hash) already resolved by this process. A hit costs the tenant's counters
 * (`tenantVersionsLoader`, one query shared by concurrent requests) instead of the credential's join:
 * any change to a user, session or API key of the tenant bumps them (triggers of migration 0006),
 * so a role change, a disable or a revocation made on any replica applies to the next request.
 * Unknown secrets are never cached: they cannot fill the memory.
 */
export class CredentialCache {
  private readonly entries = new Map<string, LoadedCredential>();

  constructor(private readonly deps: Deps, private readonly tenantVersions: TenantVersionsLoader) {}

  /**
   * The credential of `secret`, or null. With `deferCheck`, a cached one is returned unchecked
   * (`checked: false`): the caller's transaction must compare `version` with the counter.
   */
  async resolve(secret: string, { deferCheck = false } = {}): Promise<ResolvedCredential | null> {
    const now = this.deps.clock.now();
    const hash = sha256Hex(secret);
    let entry = this.entries.get(hash);
    let checked = true;
    if (entry?.expiresAt && entry.expiresAt <= now) entry = undefined;
    if (entry && deferCheck) checked = false;
    else if (entry && (await this.tenantVersions.load(entry.credential.tenantId)).credentials !== entry.version) {
      entry = undefined;
    }
    if (!entry) {
      this.entries.delete(hash);
      // Whose secret this is decides the tenant: the lookup by its hash spans them all.
      const loaded = await acrossTenants(() => loadCredential(this.deps.store.db, hash, secret.startsWith(API_KEY_PREFIX), now));
      if (!loaded) return null;
      this.remember(hash, loaded);
      entry = loaded;
    }
    await this.markUsed(entry, now);
    return { credential: entry.credential, version: entry.version, checked };
  }

  private remember(hash: string, entry: LoadedCredential): void {
    rememberNewest(this.entries, hash, entry, MAX_ENTRIES);
  }

  private async markUsed(entry: LoadedCredential, now: Date): Promise<void> {
    const { credential } = entry;
    if (credential.actor.type !== 'api_key') return;
    if (entry.lastUsedAt && now.getTime() - entry.lastUsedAt.getTime() <= LAST_USED_PRECISION_MS) return;
    entry.lastUsedAt = now;
    await inTenants([credential.tenantId], () => touchApiKey(this.deps.store.db, credential.tenantId, credential.actor.id!, now));
  }
}

