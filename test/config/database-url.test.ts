import { describe, expect, it } from 'vitest';
import { DatabaseUrlError, parseDatabaseUrl } from '../../src/config/database-url.js';

describe('database URLs', () => {
  it('keeps a URL of one host as written, without target_session_attrs', () => {
    const target = parseDatabaseUrl('postgres://ugs:p%40ss@db.internal/gov?sslmode=require&target_session_attrs=read-write');
    expect(target.hostUrls).toEqual(['postgres://ugs:p%40ss@db.internal/gov?sslmode=require']);
    expect(target.targetSessionAttrs).toBe('read-write');
    expect(target.description).toBe('db.internal:5432/gov');
  });

  it('splits the hosts of a URL of several, libpq\'s way, in their order, each with the rest of the URL', () => {
    const target = parseDatabaseUrl('postgresql://ugs:pw@10.0.0.1:5432,[::1]:5433,db3/gov?target_session_attrs=primary&application_name=x');
    expect(target.hostUrls).toEqual([
      'postgresql://ugs:pw@10.0.0.1:5432/gov?application_name=x',
      'postgresql://ugs:pw@[::1]:5433/gov?application_name=x',
      'postgresql://ugs:pw@db3/gov?application_name=x',
    ]);
    expect(target.targetSessionAttrs).toBe('read-write');
    expect(target.description).toBe('10.0.0.1:5432,[::1]:5433,db3:5432/gov');
    expect(parseDatabaseUrl('postgres://a,b/gov').targetSessionAttrs).toBe('any');
  });

  it('refuses what it cannot take', () => {
    expect(() => parseDatabaseUrl('mysql://db/gov')).toThrow(DatabaseUrlError);
    expect(() => parseDatabaseUrl('postgres://a,b/gov?target_session_attrs=prefer-standby')).toThrow(/target_session_attrs/);
    expect(() => parseDatabaseUrl('postgres://a:1:2,b/gov')).toThrow(DatabaseUrlError);
    expect(() => parseDatabaseUrl('postgres://a,,b/gov')).toThrow(DatabaseUrlError);
  });
});
