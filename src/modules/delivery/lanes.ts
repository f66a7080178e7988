import type { Lane } from './queue.js';

/** A webhook's concurrency starts here and never goes below 1 nor above the configured maximum. */
const INITIAL_LIMIT = 4;

interface LaneState {
  lane: Lane;
  inFlight: number;
  limit: number;
  /** Its last claim got all it asked for: more jobs may be due. */
  backlog: boolean;
}

const laneKey = (lane: Lane) => `${lane.tenantId}/${lane.webhookId}`;

/**
 * Attempts in flight per webhook in this process, and how many each may have: the limit grows by
 * one with each success up to the maximum and halves with each failure (additive increase,
 * multiplicative decrease). A fast receiver soon gets the maximum; a slow or failing one holds a
 * few slots, and a burst does not open many connections to a receiver before it has answered.
 */
export class LaneLimits {
  private readonly lanes = new Map<string, LaneState>();

  constructor(private readonly maximum: number) {}

  /** What a claim may take of a lane this process knows nothing of. */
  get initial(): number {
    return Math.min(INITIAL_LIMIT, this.maximum);
  }

  /**
   * What a claim may take of each known lane. A lane with attempts in flight offers its free slots
   * only once a quarter of its limit is free: a busy lane is refilled by batches, not one claim per
   * finished attempt (each of which would walk past the jobs it has in flight).
   */
  freeSlots(): Array<{ lane: Lane; free: number }> {
    return [...this.lanes.values()].map((state) => ({ lane: state.lane, free: claimable(state) }));
  }

  started(lane: Lane): void {
    this.stateOf(lane).inFlight += 1;
  }

  /** Records what a claim asked (`freeSlots()` when it was sent) and what it got, lane by lane. */
  claimed(asked: ReadonlyArray<{ lane: Lane; free: number }>, got: readonly Lane[]): void {
    const counts = new Map<string, number>();
    for (const lane of got) counts.set(laneKey(lane), (counts.get(laneKey(lane)) ?? 0) + 1);
    const askedOf = new Map(asked.map((entry) => [laneKey(entry.lane), entry.free]));
    for (const [key, count] of counts) {
      const state = this.lanes.get(key);
      if (state) state.backlog = count >= (askedOf.get(key) ?? this.initial);
    }
    // A lane offered slots that came back empty has nothing due; one offered none tells nothing.
    for (const { lane, free } of asked) {
      const state = this.lanes.get(laneKey(lane));
      if (state && free > 0 && !counts.has(laneKey(lane))) state.backlog = false;
    }
  }

  /**
   * Records the end of an attempt; true when its lane is worth a claim now: it may have more due
   * jobs and a claim may take some. (Slots freed while a claim was running count too.)
   */
  finished(lane: Lane, success: boolean): boolean {
    const state = this.stateOf(lane);
    state.inFlight -= 1;
    state.limit = success ? Math.min(this.maximum, state.limit + 1) : Math.max(1, Math.floor(state.limit / 2));
    const worthAClaim = state.backlog && claimable(state) > 0;
    // A lane back at its starting point with nothing in flight needs no memory.
    if (state.inFlight === 0 && state.limit === this.initial) this.lanes.delete(laneKey(lane));
    return worthAClaim;
  }

  private stateOf(lane: Lane): LaneState {
    const key = laneKey(lane);
    let state = this.lanes.get(key);
    if (!state) {
      state = { lane, inFlight: 0, limit: this.initial, backlog: false };
      this.lanes.set(key, state);
    }
    return state;
  }
}

function claimable(state: LaneState): number {
  const free = Math.max(0, state.limit - state.inFlight);
  if (state.inFlight === 0) return free;
  return free >= Math.max(1, Math.floor(state.limit / 4)) ? free : 0;
}
