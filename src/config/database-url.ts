/** What a connection must be to be taken, as libpq's `target_session_attrs` says it. */
export type TargetSessionAttrs = 'any' | 'read-write';

/** A PostgreSQL URL that may name several hosts, libpq's way: `postgres://h1:5432,h2:5433/db?...`. */
export interface DatabaseTarget {
  /** One URL per host, in the order written, every other part kept (without `target_session_attrs`). */
  hostUrls: readonly string[];
  /** `read-write` (or `primary`): only a host that is not in recovery and not read-only is taken. */
  targetSessionAttrs: TargetSessionAttrs;
  /** host:port,host:port/database, never the credentials. */
  description: string;
}

const URL_PARTS = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i;
const HOST = /^(?:\[[^\]]+\]|[^:[\],]+)(?::\d{1,5})?$/;
const TARGETS: Record<string, TargetSessionAttrs> = { 'any': 'any', 'read-write': 'read-write', 'primary': 'read-write' };

export class DatabaseUrlError extends Error {}

/** Parses `url`; throws DatabaseUrlError for a URL that is not one, or an unsupported `target_session_attrs`. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  const parts = URL_PARTS.exec(url);
  if (!parts) throw new DatabaseUrlError('not a postgres:// URL');
  const [, scheme = '', userinfo, hostList = '', path = '', search = ''] = parts;
  // One host is kept as written (a socket folder, no host at all): node-postgres reads it as before.
  const hosts = hostList.includes(',') ? hostList.split(',') : [hostList];
  if (hosts.length > 1 && !hosts.every((host) => HOST.test(host))) throw new DatabaseUrlError(`hosts "${hostList}"`);
  const query = new URLSearchParams(search);
  const asked = query.get('target_session_attrs') ?? 'any';
  const targetSessionAttrs = TARGETS[asked];
  if (!targetSessionAttrs) throw new DatabaseUrlError(`target_session_attrs=${asked} (any, read-write or primary)`);
  query.delete('target_session_attrs');
  const rest = `${path}${query.size > 0 ? `?${query.toString()}` : ''}`;
  const hostUrls = hosts.map((host) => `${scheme}${userinfo !== undefined ? `${userinfo}@` : ''}${host}${rest}`);
  // Each host's URL is one that Node parses, as node-postgres does.
  const parsed = hostUrls.map((hostUrl) => new URL(hostUrl));
  const description = `${parsed.map((p) => `${p.hostname}:${p.port || 5432}`).join(',')}${path}`;
  return { hostUrls, targetSessionAttrs, description };
}
