import SCIMMY from 'scimmy';
import { invalidSyntax, invalidValue } from './scim.errors.js';
import { SCIM_USER_SCHEMA, type ScimUser } from './scim.schemas.js';
import { isIgnoredAttribute, normaliseUserValues, normaliseValue } from './scim.user-body.js';

type Operation = SCIMMY.Messages.PatchOp.PatchOpOperation;

const PATCH_SCHEMA = SCIMMY.Messages.PatchOp.id;
const CORE_PREFIX = `${SCIM_USER_SCHEMA}:`;

/**
 * A PATCH body, checked (its schemas, each operation's `op`, `path` and `value`), with what
 * identity providers send made standard (Entra ID's `"Replace"` and `"False"`, Okta's operations
 * without a path) and the operations on attributes the service does not keep left out. Undefined
 * when nothing is left to apply.
 */
export function readPatch(body: unknown): SCIMMY.Messages.PatchOp | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidSyntax('The body must be a JSON object');
  const operations = patchOp(body).Operations.flatMap(keptOperation);
  return operations.length === 0 ? undefined : patchOp({ schemas: [PATCH_SCHEMA], Operations: operations });
}

/** The user after the patch, or undefined when it changes nothing. */
export async function applyPatch(patch: SCIMMY.Messages.PatchOp, user: ScimUser): Promise<SCIMMY.Schemas.User | undefined> {
  try {
    return await patch.apply(new SCIMMY.Schemas.User(user, 'out'));
  } catch (error) {
    throw asScimError(error);
  }
}

function patchOp(body: object): SCIMMY.Messages.PatchOp {
  try {
    return new SCIMMY.Messages.PatchOp(body as ConstructorParameters<typeof SCIMMY.Messages.PatchOp>[0]);
  } catch (error) {
    throw asScimError(error);
  }
}

function keptOperation(operation: Operation): Operation[] {
  const { op, path, value } = operation;
  if (path === undefined) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return [operation];
    const kept = Object.entries(value as Record<string, unknown>)
      .map(([attribute, attributeValue]) => [withoutCorePrefix(attribute), attributeValue] as const)
      .filter(([attribute]) => !isIgnoredAttribute(attribute));
    return kept.length === 0 ? [] : [{ op, value: normaliseUserValues(Object.fromEntries(kept)) }];
  }
  const attributePath = withoutCorePrefix(path);
  // An extension's path is its URN, dots included (`…:enterprise:2.0:User:department`).
  const attribute = attributePath.toLowerCase().startsWith('urn:') ? attributePath : attributePath.split(/[.[]/, 1)[0]!;
  if (isIgnoredAttribute(attribute)) return [];
  return [value === undefined ? { op, path: attributePath } : { op, path: attributePath, value: normaliseValue(attribute, value) }];
}

/** `urn:…:core:2.0:User:name.givenName` is `name.givenName`. */
function withoutCorePrefix(path: string): string {
  return path.toLowerCase().startsWith(CORE_PREFIX.toLowerCase()) ? path.slice(CORE_PREFIX.length) : path;
}

/** The library's own errors are SCIM errors already; its type errors are about the request's values. */
function asScimError(error: unknown): Error {
  if (error instanceof SCIMMY.Types.Error) return error;
  return invalidValue(error instanceof Error ? error.message : 'The patch cannot be applied');
}
