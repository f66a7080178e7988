import type { components } from '@sdk/generated/openapi.js';

export type User = components['schemas']['User'];
export type Role = User['role'];
export type Status = User['status'];

export const ROLES: { value: Role; label: string; hint: string }[] = [
  { value: 'viewer', label: 'Viewer', hint: 'reads interactions, alerts, policies and statistics' },
  { value: 'admin', label: 'Admin', hint: 'also manages the team, policies, webhooks, API keys and settings' },
];

export const STATUSES: { value: Status; label: string }[] = [
  { value: 'pending', label: 'Invited (pending)' },
  { value: 'active', label: 'Active' },
  { value: 'inactive', label: 'Disabled' },
];

/** What a row reports to the page: a sentence to show, or the API's error. */
export type Notify = (notice: { message?: string; error?: unknown }) => void;

/** Why the signed-in admin's own row has no role, disable, reset or delete control (the API refuses them too). */
export const SELF_RULE =
  'You cannot lower your own role, disable or delete yourself: another admin must do it, so the team always keeps an active admin.';
