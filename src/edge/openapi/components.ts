import type { TSchema } from 'typebox';
import { ErrorBody } from '../../kernel/schemas.js';
import { AlertListSchema, AlertSchema } from '../../modules/alerts/alerts.schemas.js';
import { ApiKeyList, ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema } from '../../modules/api-keys/api-keys.schemas.js';
import { AuditEntrySchema, AuditLogSchema } from '../../modules/audit/audit.schemas.js';
import { LoginBody } from '../../modules/auth/auth.schemas.js';
import {
  BatchBodySchema, BatchResultSchema, ClassificationSchema, InteractionInputSchema, InteractionListSchema,
  InteractionMatchSchema, InteractionSchema, PolicyDecisionSchema, SignalLookupInputSchema, SignalLookupSchema,
} from '../../modules/interactions/interactions.schemas.js';
import {
  ConditionsSchema, CreatePolicyBody, DryRunSchema, PolicyListSchema, PolicySchema, UpdatePolicyBody,
} from '../../modules/policies/policies.schemas.js';
import {
  PlatformListSchema, PlatformSchema, PlatformUsageListSchema, PlatformUsageSchema, SetPlatformStatusBody,
} from '../../modules/platforms/platforms.schemas.js';
import { StatsSchema } from '../../modules/stats/stats.schemas.js';
import { PeopleRiskListSchema, PersonRiskSchema } from '../../modules/people/people.schemas.js';
import { ProbeSchema, VersionSchema } from '../../modules/system/system.schemas.js';
import { TenantSchema, UpdateTenantBody } from '../../modules/tenants/tenants.schemas.js';
import {
  PutSsoSettingsBody, SsoExchangeBody, SsoSettingsSchema, SsoTestBody, SsoTestResult,
} from '../../modules/sso/sso.schemas.js';
import { ErasureReceiptSchema } from '../../modules/erasure/erasure.schemas.js';
import { EventTypeListSchema } from '../event-catalog/event-types.schemas.js';
import {
  AcceptInviteBody, InviteBody, LoginResponse, ResetPasswordBody, ResetPasswordResponse, StatusBody, UpdateMeBody, UpdateUserBody,
  UserList, UserSchema,
} from '../../modules/users/users.schemas.js';
import {
  CreatedWebhookSchema, CreateWebhookBody, DeliveryList, DeliveryRecordSchema, FormatSample, RedeliveryAccepted, RotatedSecret,
  TestResult, TestWebhookBody, UpdateWebhookBody, WebhookList, WebhookSchema,
} from '../../modules/webhooks/webhooks.schemas.js';

/**
 * Every named schema (made with `component()`), in the order of the API reference. They are added
 * to the validators (plugins/validation.ts) and to Fastify with `addSchema`, which gives them to
 * the response serializer and to the OpenAPI document's `components.schemas`.
 */
export const COMPONENT_SCHEMAS: readonly (TSchema & { $id: string; examples: unknown[] })[] = [
  ErrorBody,
  LoginBody, LoginResponse, AcceptInviteBody,
  SsoSettingsSchema, PutSsoSettingsBody, SsoTestBody, SsoTestResult, SsoExchangeBody,
  ProbeSchema, VersionSchema, TenantSchema, UpdateTenantBody, ErasureReceiptSchema,
  InteractionInputSchema, BatchBodySchema, BatchResultSchema, InteractionSchema, InteractionListSchema,
  InteractionMatchSchema, ClassificationSchema, PolicyDecisionSchema, SignalLookupInputSchema, SignalLookupSchema,
  PolicySchema, CreatePolicyBody, UpdatePolicyBody, PolicyListSchema, ConditionsSchema, DryRunSchema,
  PlatformSchema, PlatformListSchema, SetPlatformStatusBody, PlatformUsageSchema, PlatformUsageListSchema,
  AlertSchema, AlertListSchema,
  UserSchema, InviteBody, UpdateUserBody, UpdateMeBody, StatusBody, ResetPasswordBody, ResetPasswordResponse, UserList,
  ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema, ApiKeyList,
  WebhookSchema, CreateWebhookBody, UpdateWebhookBody, CreatedWebhookSchema, WebhookList, DeliveryRecordSchema,
  DeliveryList, TestWebhookBody, TestResult, RotatedSecret, RedeliveryAccepted, FormatSample, EventTypeListSchema,
  StatsSchema,
  PersonRiskSchema, PeopleRiskListSchema,
  AuditEntrySchema, AuditLogSchema,
];
