import type { Deps } from '../../../platform/deps.js';
import { isStoreUnavailable } from '../../../platform/store/store-errors.js';
import { AppError } from '../../../kernel/errors.js';
import { GroupCommitter, type Outcome } from '../../../platform/group-commit.js';
import { CredentialChangedError } from '../../auth/credential-cache.js';
import {
  type EventEnvelope, type FanOutRows, planEvents, sealingPayloads, wakeWorkers,
} from '../../../platform/outbox/outbox.js';
import type { PolicyCache } from '../../policies/policies.cache.js';
import {
  type CreateResponse, claimKeys, ExpiredKeysPurge, type IdempotentRequest, keyOf, replayLoser,
} from './idempotency.js';
import { readGroupContext } from './tenant-context.js';
import { prepareIngest } from './prepare.js';
import { insertIngested } from '../interactions.repo.js';
import type { InteractionResponse } from '../interactions.schemas.js';
import type { ValidInteraction } from '../interactions.validation.js';
import { serviceMetrics } from '../../../platform/metrics/metrics.js';
import { inTenants } from '../../../platform/store/tenant-scope.js';

/** One create request (single or batch) of one tenant, waiting for its group commit. */
export interface IngestRequest {
  tenantId: string;
  inputs: readonly ValidInteraction[];
  /** The response of this request once its interactions are stored. */
  respond: (stored: InteractionResponse[]) => { status: number; body: unknown };
  idempotency?: IdempotentRequest;
  /** The tenant's credentials counter the caller's cached credential was valid at, not checked yet. */
  credentialsVersion?: number;
}

/**
 * Most interactions one transaction writes (a batch is never split): singles gather by the
 * dozen, and a batch of 500 is written by a transaction of its own, in parallel with others.
 */
const MAX_GROUP_ROWS = 500;

/**
 * The process's ingest queue: the creates of every tenant that arrive while transactions are in
 * flight are stored together by the next one (see `GroupCommitter`), and each request is
 * answered once its transaction committed. One per application, built with its services.
 */
export class IngestPipeline {
  private readonly committer: GroupCommitter<IngestRequest, CreateResponse>;
  private readonly purge: ExpiredKeysPurge;

  constructor(private readonly deps: Deps, private readonly policies: PolicyCache) {
    this.purge = new ExpiredKeysPurge(deps.store);
    this.committer = new GroupCommitter<IngestRequest, CreateResponse>({
      // A group holds several tenants' requests: exactly those tenants, whichever request's context flushes it.
      commit: (requests) => inTenants([...new Set(requests.map((request) => request.tenantId))],
        () => commitGroup(this.deps, this.policies, this.purge, requests)),
      isStoreFailure: isStoreUnavailable,
      overloaded: () => new AppError('unavailable', 'The service is saturated; retry shortly', { retryAfterSeconds: 1 }),
    }, {
      maxGroupWeight: MAX_GROUP_ROWS,
      maxPendingWeight: deps.config.ingest.maxPending,
      maxWaitMs: deps.config.store.poolTimeoutMs,
      maxInFlight: groupsInFlight(deps),
    });
  }

  submit(request: IngestRequest): Promise<CreateResponse> {
    return this.committer.submit(request, Math.max(1, request.inputs.length));
  }

  /** What waits for a group commit: requests and their interactions. */
  get pending() {
    return this.committer.pending;
  }
}

/**
 * PGlite has one connection; on PostgreSQL up to four transactions overlap (batches are bound
 * by the server's work on their rows, which one connection keeps to one core), leaving at least
 * two connections of the pool to the other requests.
 */
function groupsInFlight(deps: Deps): number {
  return deps.store.kind === 'pglite' ? 1 : Math.max(1, Math.min(4, deps.config.store.poolSize - 2));
}

/**
 * One transaction for the whole group: the tenants' counters and webhooks (and the policies that
 * changed), the keyed requests' keys, then the rows of every table in one statement. A request whose key
 * another request holds stores nothing and replays that request's response after commit; one
 * whose cached credential may have changed stores nothing and is checked again by its route.
 */
async function commitGroup(
  deps: Deps, policyCache: PolicyCache, purge: ExpiredKeysPurge, requests: IngestRequest[],
): Promise<Outcome<CreateResponse>[]> {
  const now = deps.clock.now();
  let fanOut: FanOutRows | undefined;
  let written: { interactions: number; events: EventEnvelope[] } = { interactions: 0, events: [] };
  const tenantIds = [...new Set(requests.map((request) => request.tenantId))].sort();
  const keys = await deps.keyring.forTenants(tenantIds);
  const stored = await deps.store.db.transaction().execute(async (tx) => {
    const { versions, subscriptions, validatingSignals, maskingValues } = await readGroupContext(tx, tenantIds);
    const rules = await policyCache.enabledPolicies(tx, versions);
    const prepared = requests.map(({ tenantId, inputs }) => prepareIngest(tenantId, inputs, rules.get(tenantId)!, now,
      validatingSignals.has(tenantId), { keys: keys.get(tenantId)!, mode: maskingValues.has(tenantId) ? 'mask' : 'keep' }));
    const responses = requests.map((request, i) => request.respond(prepared[i]!.interactions));
    const credentialChanged = requests.map((request) =>
      request.credentialsVersion !== undefined && request.credentialsVersion !== versions.get(request.tenantId)!.credentials);

    const claimants = firstOfEachKey(requests);
    const claimed = await claimKeys(tx, [...claimants].map((i) => ({ ...requests[i]!.idempotency!, response: responses[i]! })), now, keys);
    const writes = requests.map((request, i) => !credentialChanged[i] && (!request.idempotency ||
      (claimants.has(i) && claimed.has(keyOf(request.tenantId, request.idempotency.key)))));

    const writing = prepared.filter((_, i) => writes[i]);
    const rows = writing.flatMap((p) => p.rows);
    const events = writing.flatMap((p) => p.events);
    fanOut = planEvents(events, subscriptions, sealingPayloads(keys));
    written = { interactions: rows.length, events };
    if (rows.length > 0) await insertIngested(tx, rows, writing.flatMap((p) => p.alerts), fanOut, now);
    return responses.map((response, i) => (writes[i] ? response : credentialChanged[i] ? 'credential changed' : undefined));
  });
  // Woken after the commit, not by a NOTIFY inside it: PostgreSQL holds a global lock from a
  // notifying commit until its WAL is flushed, which would serialise concurrent group commits.
  if (fanOut) wakeWorkers(deps.store.db).catch(() => {}); // a lost wake-up is caught by the workers' poll
  serviceMetrics.interactionsStored.inc(written.interactions);
  for (const event of written.events) serviceMetrics.eventsEmitted.inc({ event_type: event.event_type });
  const keyedTenants = new Set(requests.filter((request) => request.idempotency).map((request) => request.tenantId));
  await Promise.all([...keyedTenants].map((tenantId) => purge.after(tenantId, now)));
  return Promise.all(requests.map(async (request, i): Promise<Outcome<CreateResponse>> => {
    const response = stored[i];
    if (response === 'credential changed') return { ok: false, error: new CredentialChangedError() };
    if (response) return { ok: true, value: { ...response, replayed: false } };
    try {
      return { ok: true, value: await replayLoser(deps.store.db, request.idempotency!, now, keys.get(request.tenantId)!) };
    } catch (error) {
      return { ok: false, error };
    }
  }));
}

/** Indexes of the keyed requests that may take their key: the first of the group for each key. */
function firstOfEachKey(requests: readonly IngestRequest[]): Set<number> {
  const seen = new Set<string>();
  const first = new Set<number>();
  requests.forEach((request, i) => {
    if (!request.idempotency) return;
    const key = keyOf(request.tenantId, request.idempotency.key);
    if (seen.has(key)) return;
    seen.add(key);
    first.add(i);
  });
  return first;
}
