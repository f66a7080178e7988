import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/*
 * JSON Schemas of the OCSF 1.3 classes the service emits and of the objects inside them, written
 * from the 1.3 definitions (classes with what they inherit from base_event, finding, iam and
 * application; no profile, as the events claim none; attribute types from the dictionary; enums of
 * the class or object, each with 0 Unknown and 99 Other). Every attribute the definitions list is
 * declared, so any valid 1.3 attribute passes; an object's other members fail
 * (`additionalProperties: false`), so a misspelt attribute does too. Objects the service never
 * emits are only checked to be objects. (`strictRequired` off: "at least one of" names attributes
 * declared beside it, not inside it.)
 */

type Schema = Record<string, unknown>;

/** string_t: at most 65,535 characters. */
const string: Schema = { type: 'string', maxLength: 65_535 };
const integer: Schema = { type: 'integer' };
const boolean: Schema = { type: 'boolean' };
/** timestamp_t: milliseconds since the epoch. */
const timestamp: Schema = { type: 'integer', minimum: 0 };
/** json_t: any JSON value. */
const json: Schema = {};
/** An object the service does not emit. */
const anyObject: Schema = { type: 'object' };
const ip: Schema = { type: 'string', maxLength: 40, anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] };
const email: Schema = { type: 'string', maxLength: 65_535, pattern: '^[^@\\s]+@[A-Za-z0-9-]+\\.[A-Za-z0-9.-]+$' };
const arrayOf = (items: Schema): Schema => ({ type: 'array', items });
/** An integer enum: the values given, with 0 (Unknown) and 99 (Other) that every OCSF enum has. */
const enumOf = (...values: number[]): Schema => ({ type: 'integer', enum: [...new Set([0, ...values, 99])] });
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** OCSF's "at least one of these attributes". */
const atLeastOne = (...names: string[]): Schema => ({ anyOf: names.map((name) => ({ required: [name] })) });

function object(properties: Record<string, Schema>, required: string[] = [], extra: Schema = {}): Schema {
  return { type: 'object', properties, required, additionalProperties: false, ...extra };
}

const product = object({
  name: string, uid: string, feature: anyObject, cpe_name: string, lang: string, path: string, url_string: string,
  vendor_name: string, version: string,
}, ['vendor_name'], atLeastOne('name', 'uid'));

const metadata = object({
  correlation_uid: string, event_code: string, extension: anyObject, extensions: arrayOf(anyObject), labels: arrayOf(string),
  log_level: string, log_name: string, log_provider: string, log_version: string, logged_time: timestamp,
  modified_time: timestamp, loggers: arrayOf(anyObject), original_time: string, processed_time: timestamp, product,
  profiles: arrayOf(string), sequence: integer, tenant_uid: string, uid: string, version: string,
}, ['product', 'version']);

const user = object({
  name: string, uid: string, account: anyObject, credential_uid: string, domain: string, email_addr: email, full_name: string,
  groups: arrayOf(anyObject), ldap_person: anyObject, org: anyObject, risk_level: string, risk_level_id: enumOf(...range(1, 4)),
  risk_score: integer, type: string, type_id: enumOf(1, 2, 3), uid_alt: string,
}, [], atLeastOne('account', 'name', 'uid'));

const actor = object({
  app_name: string, app_uid: string, authorizations: arrayOf(anyObject), idp: anyObject, invoked_by: string,
  process: anyObject, session: anyObject, user,
}, [], atLeastOne('process', 'user', 'invoked_by', 'session', 'app_name', 'app_uid'));

const policy = object({
  name: string, uid: string, desc: string, group: anyObject, version: string, is_applied: boolean,
}, [], atLeastOne('name', 'uid'));

const findingInfo = object({
  analytic: anyObject, attacks: arrayOf(anyObject), created_time: timestamp, data_sources: arrayOf(string), desc: string,
  first_seen_time: timestamp, kill_chain: arrayOf(anyObject), last_seen_time: timestamp, modified_time: timestamp,
  product_uid: string, related_events: arrayOf(anyObject), related_analytics: arrayOf(anyObject), src_url: string,
  title: string, types: arrayOf(string), uid: string,
}, ['title', 'uid']);

const dataSecurity = object({
  category: string, category_id: enumOf(...range(1, 6)), confidentiality: string, confidentiality_id: enumOf(...range(1, 6)),
  policy, data_lifecycle_state: string, data_lifecycle_state_id: enumOf(1, 2, 3), detection_pattern: string,
  detection_system: string, detection_system_id: enumOf(...range(1, 12)), pattern_match: string,
}, [], atLeastOne('data_lifecycle_state_id', 'detection_pattern', 'detection_system_id', 'policy'));

const resourceDetails = object({
  name: string, uid: string, data: json, labels: arrayOf(string), type: string, agent_list: arrayOf(anyObject),
  cloud_partition: string, criticality: string, group: anyObject, namespace: string, owner: user, region: string, version: string,
}, [], atLeastOne('name', 'uid'));

const networkEndpoint = object({
  name: string, uid: string, agent_list: arrayOf(anyObject), domain: string, hostname: string, hw_info: anyObject,
  instance_uid: string, interface_name: string, interface_uid: string, ip, location: anyObject, mac: string, os: anyObject,
  owner: user, subnet_uid: string, type: string, type_id: enumOf(...range(1, 15)), vlan_uid: string, vpc_uid: string,
  zone: string, autonomous_system: anyObject, intermediate_ips: arrayOf(ip), proxy_endpoint: anyObject,
  port: { type: 'integer', minimum: 0, maximum: 65_535 }, svc_name: string,
}, [], atLeastOne('ip', 'uid', 'name', 'hostname', 'svc_name', 'instance_uid', 'interface_uid', 'interface_name'));

const request = object({ containers: arrayOf(anyObject), data: json, flags: arrayOf(string), uid: string }, ['uid']);

const api = object({
  group: anyObject, operation: string, request, response: anyObject, service: anyObject, version: string,
}, ['operation']);

const managedEntity = object({
  name: string, uid: string, data: json, type: string, type_id: enumOf(...range(1, 6)), device: anyObject, email: anyObject,
  group: anyObject, org: anyObject, policy, user, version: string,
}, [], atLeastOne('name', 'uid', 'device', 'group', 'org', 'policy', 'user'));

interface ClassDefinition {
  categoryUid: number;
  classUid: number;
  activities: number[];
  statusIds: number[];
  properties: Record<string, Schema>;
  required: string[];
}

/** base_event with its classification and occurrence attributes, then the class's own. */
function eventClass(definition: ClassDefinition): Schema {
  const activityIds = [...new Set([0, ...definition.activities, 99])];
  return object({
    activity_name: string, activity_id: { type: 'integer', enum: activityIds },
    category_name: string, category_uid: { const: definition.categoryUid },
    class_name: string, class_uid: { const: definition.classUid },
    type_name: string, type_uid: { type: 'integer', enum: activityIds.map((id) => definition.classUid * 100 + id) },
    count: integer, duration: integer, end_time: timestamp, start_time: timestamp, time: timestamp,
    timezone_offset: { type: 'integer', minimum: -1080, maximum: 1080 },
    enrichments: arrayOf(anyObject), message: string, metadata, observables: arrayOf(anyObject), raw_data: string,
    severity: string, severity_id: enumOf(...range(1, 6)),
    status: string, status_code: string, status_detail: string, status_id: enumOf(...definition.statusIds),
    unmapped: anyObject,
    ...definition.properties,
  }, ['activity_id', 'category_uid', 'class_uid', 'type_uid', 'time', 'metadata', 'severity_id', ...definition.required], {
    // type_uid is class_uid * 100 + activity_id: one pair per activity.
    oneOf: activityIds.map((id) => ({
      properties: { activity_id: { const: id }, type_uid: { const: definition.classUid * 100 + id } },
    })),
  });
}

const iamAttributes = { http_request: anyObject, src_endpoint: networkEndpoint, actor };

export const OCSF_CLASS_SCHEMAS: Record<number, Schema> = {
  2006: eventClass({
    categoryUid: 2, classUid: 2006, activities: [1, 2, 3, 4], statusIds: [1, 2, 3, 4], required: ['finding_info'],
    properties: {
      comment: string, confidence: string, confidence_id: enumOf(1, 2, 3), confidence_score: integer, device: anyObject,
      finding_info: findingInfo, impact: string, impact_id: enumOf(...range(1, 4)), impact_score: integer,
      resources: arrayOf(resourceDetails), actor, database: anyObject, databucket: anyObject, table: anyObject,
      dst_endpoint: networkEndpoint, file: anyObject, src_endpoint: networkEndpoint, risk_level: string,
      risk_level_id: enumOf(...range(1, 4)), risk_score: integer, data_security: dataSecurity,
    },
  }),
  3001: eventClass({
    categoryUid: 3, classUid: 3001, activities: range(1, 11), statusIds: [1, 2], required: ['user'],
    properties: { ...iamAttributes, policy, user, user_result: user },
  }),
  3002: eventClass({
    categoryUid: 3, classUid: 3002, activities: range(1, 6), statusIds: [1, 2], required: ['user'],
    properties: {
      ...iamAttributes, auth_factors: arrayOf(anyObject), auth_protocol: string, auth_protocol_id: enumOf(...range(1, 10)),
      certificate: anyObject, dst_endpoint: networkEndpoint, is_cleartext: boolean, is_mfa: boolean, is_new_logon: boolean,
      is_remote: boolean, logon_process: anyObject, logon_type: string, logon_type_id: enumOf(1, 2, 3, 4, 5, ...range(7, 13)),
      service: anyObject, session: anyObject, user,
    },
  }),
  3004: eventClass({
    categoryUid: 3, classUid: 3004, activities: range(1, 13), statusIds: [1, 2], required: ['entity'],
    properties: {
      ...iamAttributes, comment: string, entity: managedEntity, entity_result: managedEntity, access_mask: integer,
      access_list: arrayOf(string),
    },
  }),
  6003: eventClass({
    categoryUid: 6, classUid: 6003, activities: range(1, 4), statusIds: [1, 2], required: ['api', 'actor', 'src_endpoint'],
    properties: {
      api, dst_endpoint: networkEndpoint, http_request: anyObject, actor, resources: arrayOf(resourceDetails),
      src_endpoint: networkEndpoint,
    },
  }),
};

/** Validates an OCSF event against the schema of its `class_uid`: the errors, [] when valid. */
export function ocsfValidator(): (event: unknown) => string[] {
  const ajv = addFormats(new Ajv2020({ strict: true, strictRequired: false, allErrors: true }));
  const validators = new Map<number, ValidateFunction>(
    Object.entries(OCSF_CLASS_SCHEMAS).map(([uid, schema]) => [Number(uid), ajv.compile(schema)]),
  );
  return (event) => {
    const classUid = (event as { class_uid?: unknown } | null)?.class_uid;
    const validate = typeof classUid === 'number' ? validators.get(classUid) : undefined;
    if (!validate) return [`no OCSF class schema for class_uid ${String(classUid)}`];
    return validate(event) ? [] : (validate.errors ?? []).map((e) => `${classUid}: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  };
}
