import type { Lane } from './queue.js';

/** A webhook's concurrency starts here and never goes below 1 nor above the configured maximum. */
const INITIAL_LIMIT = 4;

interface LaneState {
  lane: Lane;
  inFlight: number;
  limit: number;
}

/**
 * Attempts in flight per webhook in this process, and how many each may have: the limit grows by
 * one with each success up to the maximum and halves with each failure (additive increase,
 * multiplicative decrease). A fast receiver soon gets the maximum; a slow or failing one holds a
 * few slots, and a burst does not open many connections to a receiver before it has answered.
 */
export class LaneLimits {
  private readonly lanes = new Map<string, LaneState>();

  constructor(private readonly maximum: number) {}

  /** How many more attempts each known lane may start; lanes not listed may start `initial`. */
  get initial(): number {
    return Math.min(INITIAL_LIMIT, this.maximum);
  }

  /**
   * The free slots of each known lane. A lane with attempts in flight offers its free slots only
   * once a quarter of its limit is free: a busy lane is refilled by batches, not one claim per
   * finished attempt (each of which would walk past the jobs it has in flight).
   */
  freeSlots(): Array<{ lane: Lane; free: number }> {
    return [...this.lanes.values()].map((state) => ({ lane: state.lane, free: claimable(state) }));
  }

  started(lane: Lane): void {
    this.stateOf(lane).inFlight += 1;
  }

  /** What a claim may take of `lane` now. */
  claimableOf(lane: Lane): number {
    const state = this.lanes.get(keyOf(lane));
    return state ? claimable(state) : this.initial;
  }

  /** Records the end of an attempt; true when the lane has become worth a claim. */
  finished(lane: Lane, success: boolean): boolean {
    const state = this.stateOf(lane);
    const before = claimable(state);
    state.inFlight -= 1;
    state.limit = success ? Math.min(this.maximum, state.limit + 1) : Math.max(1, Math.floor(state.limit / 2));
    const now = claimable(state);
    // A lane back at its starting point with nothing in flight needs no memory.
    if (state.inFlight === 0 && state.limit === this.initial) this.lanes.delete(keyOf(lane));
    return before === 0 && now > 0;
  }

  private stateOf(lane: Lane): LaneState {
    const key = keyOf(lane);
    let state = this.lanes.get(key);
    if (!state) {
      state = { lane, inFlight: 0, limit: this.initial };
      this.lanes.set(key, state);
    }
    return state;
  }
}

const keyOf = (lane: Lane) => `${lane.tenantId}/${lane.webhookId}`;

function claimable(state: LaneState): number {
  const free = Math.max(0, state.limit - state.inFlight);
  if (state.inFlight === 0) return free;
  return free >= Math.max(1, Math.floor(state.limit / 4)) ? free : 0;
}
