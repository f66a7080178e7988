import {
  BinaryOperationNode, ColumnNode, type KyselyPlugin, OperationNodeTransformer, ReferenceNode, sql,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestTenant } from '../helpers/harness.js';
import { interactionBody } from '../helpers/interactions-fixtures.js';
import { STORES } from '../helpers/stores.js';
import { SERVICE_ROLE } from '../../src/platform/store/scoped-connections.js';
import { acrossTenants, inTenants } from '../../src/platform/store/tenant-scope.js';

/**
 * The application's own tenant filter taken out of every query built with Kysely: each
 * `tenant_id = <value>` (or `in (...)`) becomes `tenant_id = tenant_id`. What the tables then
 * return is what row-level security alone lets through.
 */
class WithoutTenantFilter extends OperationNodeTransformer {
  protected override transformBinaryOperation(node: BinaryOperationNode): BinaryOperationNode {
    const left = node.leftOperand;
    if (ReferenceNode.is(left) && ColumnNode.is(left.column) && left.column.column.name === 'tenant_id'
      && !ReferenceNode.is(node.rightOperand)) {
      return BinaryOperationNode.create(left, node.operator, left);
    }
    return super.transformBinaryOperation(node);
  }
}

const withoutTenantFilter: KyselyPlugin & { removed: number } = {
  removed: 0,
  transformQuery({ node }) {
    const before = JSON.stringify(node);
    const transformed = new WithoutTenantFilter().transformNode(node);
    if (JSON.stringify(transformed) !== before) withoutTenantFilter.removed += 1;
    return transformed;
  },
  transformResult: async ({ result }) => result,
};

describe.each(STORES)('row-level security [%s]', (kind) => {
  let h: Harness;
  let a: TestTenant;
  let b: TestTenant;

  beforeAll(async () => {
    h = await Harness.start(kind);
    a = await h.tenant('Alpha');
    b = await h.tenant('Beta');
    for (const [tenant, platform] of [[a, 'openai'], [b, 'claude'], [b, 'mistral']] as const) {
      const created = await h.call('POST', '/api/v1/interactions', { token: tenant.adminToken, body: interactionBody({ platform_id: platform }) });
      expect(created.statusCode).toBe(201);
    }
  });
  afterAll(async () => h?.close());

  it('enables and forces row-level security, with a policy, on every table that holds a tenant_id (and on tenants)', async () => {
    const { rows } = await sql<{ table: string; enabled: boolean; forced: boolean; policies: number }>`
      select c.relname as table, c.relrowsecurity as enabled, c.relforcerowsecurity as forced,
        (select count(*)::int from pg_policy p where p.polrelid = c.oid) as policies
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind = 'r'
        and (c.relname = 'tenants' or exists (select 1 from pg_attribute a
          where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped))
      order by 1`.execute(h.db);
    expect(rows.length).toBeGreaterThanOrEqual(24);
    expect(rows.filter((row) => !row.enabled || !row.forced || row.policies < 1)).toEqual([]);
  });

  it('runs the service\'s queries as a role that is neither superuser, nor owner of a table, nor BYPASSRLS', async () => {
    const { rows: [who] } = await inTenants([a.tenantId], () => sql<{ role: string }>`select current_user as role`.execute(h.deps.store.db));
    expect(who!.role).toBe(SERVICE_ROLE);
    const { rows: [role] } = await sql<{ super: boolean; bypass: boolean; owns: number }>`
      select r.rolsuper as super, r.rolbypassrls as bypass,
        (select count(*)::int from pg_class c where c.relowner = r.oid) as owns
      from pg_roles r where r.rolname = ${SERVICE_ROLE}`.execute(h.db);
    expect(role).toEqual({ super: false, bypass: false, owns: 0 });
  });

  it('lists only the caller\'s rows with the application\'s tenant filter removed from the list query', async () => {
    const store = h.deps.store;
    const scoped = store.db;
    try {
      store.db = scoped.withPlugin(withoutTenantFilter);
      withoutTenantFilter.removed = 0;
      const listed = await h.call('GET', '/api/v1/interactions', { token: a.adminToken, query: { limit: 100 } });
      expect(listed.statusCode).toBe(200);
      expect(withoutTenantFilter.removed).toBeGreaterThan(0);
      expect((listed.json() as { data: { platform_id: string }[] }).data.map((row) => row.platform_id)).toEqual(['openai']);

      // The same query without the filter, as the tables' owner: every tenant's rows. The policy is what held.
      const rows = await h.db.withPlugin(withoutTenantFilter).selectFrom('interactions').select('platform_id')
        .where('tenant_id', '=', a.tenantId).orderBy('platform_id').execute();
      expect(rows.map((row) => row.platform_id)).toEqual(['claude', 'mistral', 'openai']);
    } finally {
      store.db = scoped;
    }
  });

  it('shows no tenant row outside a scope, only the scope\'s tenants inside one, and every tenant across them', async () => {
    const count = () => store().selectFrom('interactions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const store = () => h.deps.store.db;
    expect(Number((await count()).n)).toBe(0);
    expect(Number((await inTenants([b.tenantId], count)).n)).toBe(2);
    expect(Number((await inTenants([a.tenantId, b.tenantId], count)).n)).toBe(3);
    expect(Number((await acrossTenants(count)).n)).toBeGreaterThanOrEqual(3);
  });

  it('refuses to write a row of another tenant than the scope\'s', async () => {
    const write = inTenants([a.tenantId], () => h.deps.store.db.updateTable('tenants').set({ name: 'Taken' })
      .where('id', '=', b.tenantId).executeTakeFirst());
    expect(Number((await write).numUpdatedRows)).toBe(0);
    const insert = inTenants([a.tenantId], () => h.deps.store.db.insertInto('audit_log').values({
      tenant_id: b.tenantId, id: crypto.randomUUID(), occurred_at: new Date(), actor_type: 'system', actor_id: null,
      actor_label: 'test', action: 'test.forged', target_type: 'tenant', target_id: b.tenantId, details: '{}', ip: null,
      request_id: null,
    }).execute());
    await expect(insert).rejects.toMatchObject({ code: '42501' });
    const rows = await h.db.selectFrom('tenants').select('name').where('id', '=', b.tenantId).execute();
    expect(rows).toEqual([{ name: 'Beta' }]);
  });
});
