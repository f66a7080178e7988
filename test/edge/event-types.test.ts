import { validate } from '@scalar/openapi-parser';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/platform/outbox/event-types.js';
import { type CatalogItem, catalogValidators, shapeOf } from '../helpers/events-fixtures.js';
import { Harness } from '../helpers/harness.js';
import { createTestCertificates, HttpsReceiver } from '../helpers/https-receiver.js';
import { STORES } from '../helpers/stores.js';
import { bodyOf, createWebhook, deliveryEnv, verifyGithubStyle, verifyStandard } from '../helpers/webhooks-fixtures.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** A schema as @fastify/swagger writes it: a pattern matching every name becomes `additionalProperties` (same meaning). */
function asOpenApiWrites(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asOpenApiWrites);
  if (typeof schema !== 'object' || schema === null) return schema;
  const { patternProperties, ...rest } = schema as Record<string, unknown>;
  const copy = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, asOpenApiWrites(value)]));
  const every = (patternProperties as Record<string, unknown> | undefined)?.['^.*$'];
  if (every === undefined) return patternProperties === undefined ? copy : { ...copy, patternProperties: asOpenApiWrites(patternProperties) };
  return { ...copy, additionalProperties: asOpenApiWrites(every) };
}

describe.each(STORES)('event catalog [%s]', (kind) => {
  const certificates = createTestCertificates();
  let h: Harness;
  let receiver: HttpsReceiver;
  let catalog: CatalogItem[];
  beforeAll(async () => {
    receiver = await HttpsReceiver.start(certificates);
    h = await Harness.start(kind, { env: deliveryEnv(certificates) });
    const t = await h.tenant();
    catalog = (await h.call('GET', '/api/v1/event-types', { token: t.adminToken })).json().event_types;
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  describe('GET /api/v1/event-types', () => {
    it('lists the 19 event types in the catalog order, each with a description, the envelope schema and a sample', async () => {
      const t = await h.tenant();
      const response = await h.call('GET', '/api/v1/event-types', { token: t.adminToken });
      expect(response.statusCode).toBe(200);
      const { event_types: items } = response.json() as { event_types: CatalogItem[] };
      expect(items).toHaveLength(19);
      expect(items.map((item) => item.type)).toEqual([...EVENT_TYPES]);
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual(['description', 'sample', 'schema', 'type']);
        expect(item.description.length).toBeGreaterThan(30);
        expect(item.schema).toMatchObject({
          type: 'object',
          required: ['id', 'timestamp', 'event_type', 'tenant_id', 'data'],
          properties: { event_type: { enum: [item.type] }, data: { type: 'object' } },
        });
        expect(item.sample).toMatchObject({ event_type: item.type, id: expect.stringMatching(/^evt_/) });
      }
      const byType = new Map(items.map((item) => [item.type, item]));
      expect(byType.get('user.deleted')!.sample.data).toEqual({ id: expect.any(String) });
      expect(byType.get('policy.deleted')!.sample.data).toEqual({ id: expect.any(String) });
      expect(byType.get('interaction.policy_violated')!.schema).toMatchObject({
        properties: { data: { properties: { policy_decisions: { items: { required: ['policy_id', 'policy_name', 'action'] } } } } },
      });
      const decision = (byType.get('interaction.policy_violated')!.schema as any).properties.data.properties.policy_decisions.items;
      expect(Object.keys(decision.properties)).toEqual(['policy_id', 'policy_name', 'action']);
    });

    it('is readable by admins, viewers and API keys of any scope; 401 without a valid token', async () => {
      const t = await h.tenant();
      const viewer = await h.user(t, 'viewer');
      const admin = await h.user(t, 'admin');
      const writeKey = await h.apiKey(t, ['interactions:write']);
      const readKey = await h.apiKey(t, ['interactions:read']);
      const first = await h.call('GET', '/api/v1/event-types', { token: t.adminToken });
      for (const token of [viewer.token, admin.token, writeKey, readKey]) {
        const response = await h.call('GET', '/api/v1/event-types', { token });
        expect(response.statusCode).toBe(200);
        expect(response.body).toBe(first.body);
      }
      for (const headers of [{}, { authorization: 'Bearer ugt_not-a-real-token' }, { authorization: 'Basic abc' }] as Record<string, string>[]) {
        const response = await h.call('GET', '/api/v1/event-types', { headers });
        expect(response.statusCode).toBe(401);
        expect(response.json()).toMatchObject({ code: 'unauthorized', error: expect.any(String) });
      }
    });

    it('publishes schemas that compile (draft-07 and 2020-12) and samples that they accept, closed', async () => {
      const draft7 = addFormats(new Ajv({ strict: true, allErrors: true }));
      const check = catalogValidators(catalog);
      for (const item of catalog) {
        const validate7 = draft7.compile(item.schema);
        expect(validate7(item.sample), `${item.type}: ${JSON.stringify(validate7.errors)}`).toBe(true);
        expect(check(item.type, item.sample)).toEqual([]);
        // Each schema is its own type's: the sample of another type is refused.
        const other = catalog.find((o) => o.type !== item.type)!;
        expect(check(item.type, other.sample, 'open')).not.toEqual([]);
      }
    });

    it('refuses what does not match: a closed schema catches a field the schema lacks, and any schema a missing or mistyped one', async () => {
      const check = catalogValidators(catalog);
      const sample = catalog.find((item) => item.type === 'alert.resolved')!.sample;
      expect(check('alert.resolved', { ...sample, data: { ...sample.data, note: 'extra' } })).not.toEqual([]);
      expect(check('alert.resolved', { ...sample, data: { ...sample.data, note: 'extra' } }, 'open')).toEqual([]);
      const { resolved_by: _dropped, ...withoutResolver } = sample.data;
      expect(check('alert.resolved', { ...sample, data: withoutResolver }, 'open')).not.toEqual([]);
      expect(check('alert.resolved', { ...sample, data: { ...sample.data, severity: 'urgent' } }, 'open')).not.toEqual([]);
      expect(check('alert.resolved', { ...sample, id: 'not-an-event-id' }, 'open')).not.toEqual([]);
    });
  });

  describe('POST /webhooks/{id}/test sends the catalog sample', () => {
    it('of every type: valid against its schema, the same shape as the published sample, fresh ids, the caller\'s tenant, signed', async () => {
      const t = await h.tenant();
      const path = `/samples-${t.tenantId}`;
      const hook = await createWebhook(h, t, { url: receiver.url(path), events: ['user.invited'] });
      const check = catalogValidators(catalog);
      for (const item of catalog) {
        const response = await h.call('POST', `/api/v1/webhooks/${hook.id}/test`, { token: t.adminToken, body: { event_type: item.type } });
        expect(response.json()).toMatchObject({ delivered: true, status_code: 200 });
      }
      const received = receiver.at(path);
      expect(received.map((request) => request.headers['x-service-event'])).toEqual([...EVENT_TYPES]);
      for (const [index, request] of received.entries()) {
        const item = catalog[index]!;
        const body = bodyOf(request);
        expect(body.event_type).toBe(item.type);
        expect(check(item.type, body)).toEqual([]);
        expect(shapeOf(body)).toEqual(shapeOf(item.sample));
        expect(body.tenant_id).toBe(t.tenantId);
        expect(body.id).not.toBe(item.sample.id);
        expect(request.headers['x-service-event-id']).toBe(body.id);
        expect(verifyGithubStyle(hook.signing_secret, request.rawBody, request.headers['x-service-signature'])).toBe(true);
        expect(() => verifyStandard(hook.signing_secret, request)).not.toThrow();
      }
    });
  });

  describe('the OpenAPI document', () => {
    it('has a webhooks section built from the catalog: one operation per type, the envelope as body, the delivery headers', async () => {
      const document = (await h.call('GET', '/api/v1/openapi.json')).json();
      expect(Object.keys(document.webhooks)).toEqual([...EVENT_TYPES]);
      const operationIds = EVENT_TYPES.map((type) => document.webhooks[type].post.operationId);
      expect(operationIds[0]).toBe('interactionCreatedEvent');
      expect(operationIds).toContain('userRoleChangedEvent');
      expect(new Set(operationIds).size).toBe(19);
      const headers = ['X-Service-Signature', 'X-Service-Event', 'X-Service-Event-Id', 'X-Service-Delivery',
        'webhook-id', 'webhook-timestamp', 'webhook-signature'];
      for (const item of catalog) {
        const operation = document.webhooks[item.type].post;
        expect(operation.summary).toEqual(expect.any(String));
        expect(operation.description).toContain(item.description);
        expect(operation.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(headers.map((n) => `header:${n}`));
        for (const parameter of operation.parameters) expect(parameter).toMatchObject({ description: expect.any(String), example: expect.any(String) });
        const json = operation.requestBody.content['application/json'];
        expect(json.example).toEqual(item.sample);
        expect(Object.keys(operation.responses).sort()).toEqual(['2XX', '401']);
        expect(operation.responses['401'].content['application/json'].schema.required).toEqual(['error']);
        // The named envelope is the catalog schema, with `data` referring to its own named schema.
        const envelope = document.components.schemas[json.schema.$ref.replace('#/components/schemas/', '')];
        const { data: dataRef, ...envelopeFields } = envelope.properties;
        const { data: catalogData, ...catalogFields } = item.schema.properties as Record<string, unknown>;
        expect(envelopeFields).toEqual(asOpenApiWrites(catalogFields));
        const data = document.components.schemas[dataRef.$ref.replace('#/components/schemas/', '')];
        const { examples: _examples, ...dataSchema } = data;
        expect(dataSchema).toEqual(asOpenApiWrites(catalogData));
      }
      const result = await validate(document);
      expect(result.errors ?? []).toEqual([]);
    });

    it('signs the documented examples as a real delivery would be signed', async () => {
      const document = (await h.call('GET', '/api/v1/openapi.json')).json();
      const operation = document.webhooks['policy.created'].post;
      const header = (name: string) => operation.parameters.find((p: { name: string }) => p.name === name).example;
      const secret = /the secret `(whsec_[^`]+)`/.exec(operation.parameters[0].description)![1]!;
      const rawBody = Buffer.from(JSON.stringify(operation.requestBody.content['application/json'].example));
      expect(verifyGithubStyle(secret, rawBody, header('X-Service-Signature'))).toBe(true);
      const timestamp = Number(header('webhook-timestamp'));
      const { Webhook } = await import('standardwebhooks');
      // The reference library refuses stale timestamps: check the signature itself at the example's time.
      expect(new Webhook(secret).sign(header('webhook-id'), new Date(timestamp * 1000), rawBody.toString())).toBe(header('webhook-signature'));
    });
  });
});
