import type { components, operations } from '@sdk/generated/openapi.js';

export type Interaction = components['schemas']['Interaction'];
export type ListQuery = NonNullable<operations['listInteractions']['parameters']['query']>;
export type ExportQuery = NonNullable<operations['exportInteractions']['parameters']['query']>;
type Source = Interaction['source'];
type Direction = Interaction['direction'];
type Sort = NonNullable<ListQuery['sort']>;

/**
 * The list's filters, each a search param of the page's URL of the same name as the API's.
 * `fingerprint` has no field in the form: it comes from a link and shows as a removable chip.
 */
export const FILTER_KEYS = [
  'platform_id', 'user_id', 'source', 'direction', 'classification_type',
  'risk_score_min', 'risk_score_max', 'start_date', 'end_date', 'fingerprint',
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type FilterValues = Record<FilterKey, string>;

export const SOURCES: [Source, string][] = [
  ['browser_extension', 'Browser extension'], ['proxy', 'Proxy'], ['endpoint_agent', 'Endpoint agent'], ['api', 'API'],
];
export const DIRECTIONS: [Direction, string][] = [['outbound', 'Outbound'], ['inbound', 'Inbound']];
export const SORTS: [Sort, string][] = [
  ['-timestamp', 'Newest first'], ['timestamp', 'Oldest first'],
  ['-risk_score', 'Highest risk first'], ['risk_score', 'Lowest risk first'],
  ['platform_id', 'Platform A–Z'], ['-platform_id', 'Platform Z–A'],
];
export const PAGE_SIZES = [25, 50, 100, 200, 500];
export const DEFAULT_LIMIT = 50;
/** The types the service knows (the list is open: any other type can be typed). */
export const KNOWN_CLASSIFICATION_TYPES = [
  'EMAIL', 'PHONE', 'CREDIT_CARD', 'IBAN', 'SSN', 'NIR', 'SIRET', 'IP_ADDRESS', 'API_KEY', 'PERSON_NAME',
];

export const sourceLabel = (source: Source) => SOURCES.find(([value]) => value === source)?.[1] ?? source;
export const directionLabel = (direction: Direction) => DIRECTIONS.find(([value]) => value === direction)?.[1] ?? direction;

export function filterValues(params: URLSearchParams): FilterValues {
  return Object.fromEntries(FILTER_KEYS.map((key) => [key, params.get(key) ?? ''])) as FilterValues;
}

/**
 * The API query of the filters in the URL. Values are passed as typed: a wrong one (a user id
 * that is not a UUID, a risk of 2) is refused by the API, whose sentence the page shows.
 */
export function exportQuery(params: URLSearchParams): ExportQuery {
  const value = (key: FilterKey) => params.get(key) || undefined;
  const number = (key: FilterKey) => (value(key) === undefined ? undefined : Number(value(key)));
  return {
    platform_id: value('platform_id'),
    user_id: value('user_id'),
    source: value('source') as Source | undefined,
    direction: value('direction') as Direction | undefined,
    classification_type: value('classification_type'),
    risk_score_min: number('risk_score_min'),
    risk_score_max: number('risk_score_max'),
    start_date: value('start_date'),
    end_date: value('end_date'),
    fingerprint: value('fingerprint'),
    sort: (params.get('sort') || undefined) as Sort | undefined,
  };
}

export function listQuery(params: URLSearchParams): ListQuery {
  return { ...exportQuery(params), limit: pageSize(params), cursor: params.get('cursor') || undefined };
}

/** The list of the interactions holding one detected value. */
export function fingerprintListLink(fingerprint: string): string {
  return `/interactions?${new URLSearchParams({ fingerprint }).toString()}`;
}

/** `fp_` and 43 characters are too long to read: the start and end tell two apart. */
export function abbreviateFingerprint(fingerprint: string): string {
  return fingerprint.length > 16 ? `${fingerprint.slice(0, 9)}…${fingerprint.slice(-4)}` : fingerprint;
}

export function pageSize(params: URLSearchParams): number {
  return Number(params.get('limit') || DEFAULT_LIMIT);
}

export function hasFilters(params: URLSearchParams): boolean {
  return FILTER_KEYS.some((key) => params.get(key));
}

const withSeconds = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** Interactions come many a minute: their times show the seconds. */
export function formatTimestamp(value: string): string {
  return withSeconds.format(new Date(value));
}
