import type { Deps } from '../../platform/deps.js';
import type { RequestContext } from '../../kernel/context.js';
import type { Role, UserRow } from '../../kernel/tables/database.js';
import type { ScimName } from '../../kernel/tables/scim.js';
import { canonicalJson } from '../../kernel/canonical-json.js';
import { isUuid } from '../../kernel/ids.js';
import {
  changeProvisionedUser, createProvisionedUser, deleteProvisionedUser, type ProvisioningChange,
} from '../users/provisioning.service.js';
import { ScimError } from './scim.errors.js';
import { applyPatch, readPatch } from './scim.patch.js';
import { readPaging, readUserFilter } from './scim.query.js';
import * as repo from './scim.repo.js';
import {
  listResponse, scimBaseUrl, toScimUser, type ScimAttributes, type ScimListResponse, type ScimUser, type ScimUserRow,
} from './scim.schemas.js';
import { readUserBody, readUserResource, type UserInput } from './scim.user-body.js';

/** In every audit entry SCIM writes. */
const VIA_SCIM = { via: 'scim' };

/** A user as a change leaves it: every attribute SCIM maps. */
interface WantedUser {
  email: string;
  displayName: string | null;
  name: ScimName | null;
  active: boolean;
  role: Role;
  externalId: string | null;
}

const userNotFound = () => new ScimError(404, undefined, 'User not found');

export async function listUsers(deps: Deps, ctx: RequestContext, query: Record<string, unknown>): Promise<ScimListResponse<ScimUser>> {
  const filter = readUserFilter(query.filter);
  const paging = readPaging(query);
  const { rows, total } = await repo.listScimUsers(deps.store.db, ctx.tenantId, filter, paging);
  return listResponse(rows.map((row) => toScimUser(row, baseUrl(deps))), total, paging.startIndex);
}

export async function getUser(deps: Deps, ctx: RequestContext, userId: string): Promise<ScimUser> {
  const row = isUuid(userId) ? await repo.findScimUser(deps.store.db, ctx.tenantId, userId) : undefined;
  if (!row) throw userNotFound();
  return toScimUser(row, baseUrl(deps));
}

/** An `active` user at once (unless `active: false`), without a password: they sign in with single sign-on. */
export async function createUser(deps: Deps, ctx: RequestContext, body: unknown): Promise<ScimUser> {
  const input = readUserBody(body);
  const attributes: ScimAttributes = { external_id: input.externalId ?? null, name: input.name ?? null };
  const now = deps.clock.now();
  return deps.store.db.transaction().execute(async (tx) => {
    const origin = attributes.external_id === null ? VIA_SCIM : { ...VIA_SCIM, external_id: attributes.external_id };
    const row = await createProvisionedUser(tx, ctx, {
      email: input.email, display_name: input.displayName ?? null, role: input.role ?? 'viewer', active: input.active ?? true,
    }, now, origin);
    if (attributes.external_id !== null || attributes.name !== null) await repo.saveScimAttributes(tx, ctx.tenantId, row.id, attributes);
    return toScimUser({ ...row, ...attributes }, baseUrl(deps));
  });
}

/** PUT: what the body leaves out keeps its value (an identity provider sends only what it maps). */
export async function replaceUser(deps: Deps, ctx: RequestContext, userId: string, body: unknown): Promise<ScimUser> {
  if (!isUuid(userId)) throw userNotFound();
  const input = readUserBody(body);
  return changeUser(deps, ctx, userId, async (current) => ({ ...wantedFrom(current), ...definedOf(input) }));
}

/** PATCH: the operations apply to the user as GET shows it; what they remove is cleared. */
export async function patchUser(deps: Deps, ctx: RequestContext, userId: string, body: unknown): Promise<ScimUser> {
  if (!isUuid(userId)) throw userNotFound();
  const patch = readPatch(body);
  return changeUser(deps, ctx, userId, async (current) => {
    const patched = patch && await applyPatch(patch, toScimUser(current, baseUrl(deps)));
    if (!patched) return wantedFrom(current);
    const input = readUserResource(patched, current.email);
    return {
      email: input.email,
      displayName: input.displayName ?? null,
      name: input.name ?? null,
      active: input.active ?? current.status === 'active',
      role: input.role ?? 'viewer',
      externalId: input.externalId ?? null,
    };
  });
}

/** Deletes the user as the users API does: their sessions go, their audit entries stay. */
export async function deleteUser(deps: Deps, ctx: RequestContext, userId: string): Promise<void> {
  if (!isUuid(userId)) throw userNotFound();
  const now = deps.clock.now();
  await deps.store.db.transaction().execute((tx) => deleteProvisionedUser(tx, ctx, userId, now, VIA_SCIM));
}

/** Applies what `want` makes of the locked user, the users table's part and SCIM's own, in one transaction. */
async function changeUser(
  deps: Deps, ctx: RequestContext, userId: string, want: (current: ScimUserRow) => Promise<WantedUser>,
): Promise<ScimUser> {
  const now = deps.clock.now();
  return deps.store.db.transaction().execute(async (tx) => {
    let attributes: { before: ScimAttributes; after: ScimAttributes } | undefined;
    const decide = async (current: UserRow): Promise<ProvisioningChange> => {
      const before = await repo.scimAttributes(tx, ctx.tenantId, userId);
      const wanted = await want({ ...current, ...before });
      attributes = { before, after: { external_id: wanted.externalId, name: wanted.name } };
      return {
        email: wanted.email, display_name: wanted.displayName, role: wanted.role, active: wanted.active,
        otherChanges: attributeChanges(before, attributes.after),
      };
    };
    const updated = await changeProvisionedUser(tx, ctx, userId, decide, now, VIA_SCIM);
    // Set: changeProvisionedUser returns only once `decide` has run.
    const { before, after } = attributes!;
    if (Object.keys(attributeChanges(before, after)).length > 0) await repo.saveScimAttributes(tx, ctx.tenantId, userId, after);
    return toScimUser({ ...updated, ...after }, baseUrl(deps));
  });
}

function wantedFrom(current: ScimUserRow): WantedUser {
  return {
    email: current.email,
    displayName: current.display_name,
    name: current.name,
    active: current.status === 'active',
    role: current.role,
    externalId: current.external_id,
  };
}

/** The attributes the body sent. */
function definedOf(input: UserInput): Partial<WantedUser> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
}

function attributeChanges(before: ScimAttributes, after: ScimAttributes): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  if (before.external_id !== after.external_id) changes.external_id = { from: before.external_id, to: after.external_id };
  if (canonicalJson(before.name) !== canonicalJson(after.name)) changes.name = { from: before.name, to: after.name };
  return changes;
}

const baseUrl = (deps: Deps) => scimBaseUrl(deps.config.server.publicBaseUrl);
