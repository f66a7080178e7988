/**
 * What a roll-up holds, and how roll-ups and rows combine (docs/platforms.md, "Roll-ups"). Users
 * are the tenant's dense numbers (usage_rollup_users). A set of users is a bitmap (bit n of byte
 * n >> 3, lowest bit first, up to the byte of the highest n: its last byte is never 0) or, where
 * that is smaller (5 minutes, an hour), the users' n as uint32 little-endian then one 0x00 byte
 * (sparse: the only form ending in 0). Per-user counts are uint32 little-endian indexed by n
 * (dense) or, where fewer users have one, a 0x01 byte then (n, count) uint32 pairs (sparse: its
 * length is one more than a multiple of 4, which no dense form has). Each platform also has its
 * interactions and high-risk interactions (of any user or none), as numbers beside its set.
 */

/** The stored form of one roll-up row (a day, or a block of days). */
export interface EncodedFigures {
  high_risk: Uint8Array;
  violations: Uint8Array;
  platforms: string[];
  platform_users: Uint8Array[];
  /** Per platform, its interactions and those of `risk_score >= 0.7`. */
  platform_interactions: number[];
  platform_high_risk: number[];
  types: string[];
  type_users: Uint8Array[];
}

/** One user's figures as the rows give them: `n` their number, or null with `user_id` when they have none yet. */
export interface RowFigures {
  n: number | null;
  user_id: string;
  high_risk: number;
  violations: number;
  types: readonly string[];
  platforms: readonly string[];
}

/** The rows' figures per user (or none) and platform. */
export interface PlatformRowFigures {
  n: number | null;
  user_id: string | null;
  platform_id: string;
  interactions: number;
  high_risk: number;
  violations: number;
  types: readonly string[];
}

export interface PlatformTotals {
  platform_id: string;
  interactions: number;
  high_risk: number;
}

/** Figures of users without a number: they appear in no roll-up, so they never meet a numbered user's. */
interface Unnumbered {
  high_risk: number;
  violations: number;
  types: Set<string>;
  platforms: Set<string>;
}

/** Sums and unions of roll-ups and rows over a period. */
export class UsageFigures {
  private highRisk: Uint32Array = new Uint32Array(0);
  private violations: Uint32Array = new Uint32Array(0);
  readonly platformUsers = new Map<string, Uint8Array>();
  readonly typeUsers = new Map<string, Uint8Array>();
  readonly unnumbered = new Map<string, Unnumbered>();
  private readonly platformCounts = new Map<string, { interactions: number; high_risk: number }>();

  addEncoded(row: Partial<EncodedFigures>): void {
    if (row.high_risk) this.highRisk = addCounts(this.highRisk, row.high_risk);
    if (row.violations) this.violations = addCounts(this.violations, row.violations);
    row.platforms?.forEach((id, i) => {
      orInto(this.platformUsers, id, row.platform_users![i]!);
      if (row.platform_interactions) this.addPlatformCounts(id, row.platform_interactions[i]!, row.platform_high_risk![i]!);
    });
    row.types?.forEach((type, i) => orInto(this.typeUsers, type, row.type_users![i]!));
  }

  /** Adds another's figures (an hour from its 5-minute slots). */
  addFigures(other: UsageFigures): void {
    this.highRisk = addArray(this.highRisk, other.highRisk);
    this.violations = addArray(this.violations, other.violations);
    for (const [id, bits] of other.platformUsers) orInto(this.platformUsers, id, bits);
    for (const [id, counts] of other.platformCounts) this.addPlatformCounts(id, counts.interactions, counts.high_risk);
    for (const [type, bits] of other.typeUsers) orInto(this.typeUsers, type, bits);
    for (const [userId, own] of other.unnumbered) {
      this.addRow({ n: null, user_id: userId, high_risk: own.high_risk, violations: own.violations, types: [...own.types], platforms: [...own.platforms] });
    }
  }

  /** A row of the rows' figures: the platform's counts, and its user's figures when it has one. */
  addPlatformRow(row: PlatformRowFigures): void {
    this.addPlatformCounts(row.platform_id, row.interactions, row.high_risk);
    if (row.user_id === null) return;
    this.addRow({ n: row.n, user_id: row.user_id, high_risk: row.high_risk, violations: row.violations, types: row.types, platforms: [row.platform_id] });
  }

  private addPlatformCounts(platformId: string, interactions: number, highRisk: number): void {
    const counts = this.platformCounts.get(platformId);
    if (counts) {
      counts.interactions += interactions;
      counts.high_risk += highRisk;
    } else {
      this.platformCounts.set(platformId, { interactions, high_risk: highRisk });
    }
  }

  /** Each platform with interactions, with its interactions and high-risk interactions. */
  platformTotals(): PlatformTotals[] {
    return [...this.platformCounts].filter(([, counts]) => counts.interactions > 0)
      .map(([platform_id, counts]) => ({ platform_id, ...counts }));
  }

  addRow(row: RowFigures): void {
    if (row.n === null) {
      const own = this.unnumbered.get(row.user_id)
        ?? { high_risk: 0, violations: 0, types: new Set<string>(), platforms: new Set<string>() };
      own.high_risk += row.high_risk;
      own.violations += row.violations;
      for (const type of row.types) own.types.add(type);
      for (const id of row.platforms) own.platforms.add(id);
      this.unnumbered.set(row.user_id, own);
      return;
    }
    const n = row.n;
    if (row.high_risk) this.highRisk = addAt(this.highRisk, n, row.high_risk);
    if (row.violations) this.violations = addAt(this.violations, n, row.violations);
    for (const type of row.types) setBit(this.typeUsers, type, n);
    for (const id of row.platforms) setBit(this.platformUsers, id, n);
  }

  /** Distinct users of the platform: its bitmap's bits and its unnumbered users. */
  usersOf(platformId: string): number {
    let users = popcount(this.platformUsers.get(platformId));
    for (const own of this.unnumbered.values()) if (own.platforms.has(platformId)) users += 1;
    return users;
  }

  /** Per numbered user, the four figures of people at risk; `counted(platform)` says which platforms count. */
  perUser(counted: (platformId: string) => boolean): { numbered: PersonFigures[]; unnumbered: Array<PersonFigures & { user_id: string }> } {
    const size = Math.max(this.highRisk.length, this.violations.length,
      ...[...this.typeUsers.values(), ...this.platformUsers.values()].map((bits) => bits.length * 8));
    const types = new Uint32Array(size);
    const platforms = new Uint32Array(size);
    for (const bits of this.typeUsers.values()) forEachBit(bits, (n) => { types[n]! += 1; });
    for (const [id, bits] of this.platformUsers) if (counted(id)) forEachBit(bits, (n) => { platforms[n]! += 1; });
    const numbered: PersonFigures[] = [];
    for (let n = 0; n < size; n++) {
      const person = {
        n, high_risk: this.highRisk[n] ?? 0, violations: this.violations[n] ?? 0,
        sensitive_types: types[n]!, unsanctioned_platforms: platforms[n]!,
      };
      if (person.high_risk || person.violations || person.sensitive_types || person.unsanctioned_platforms) numbered.push(person);
    }
    const unnumbered = [...this.unnumbered].map(([user_id, own]) => ({
      n: -1, user_id, high_risk: own.high_risk, violations: own.violations, sensitive_types: own.types.size,
      unsanctioned_platforms: [...own.platforms].filter(counted).length,
    })).filter((person) => person.high_risk || person.violations || person.sensitive_types || person.unsanctioned_platforms);
    return { numbered, unnumbered };
  }

  encode(): EncodedFigures {
    const platforms = [...new Set([...this.platformCounts.keys(), ...this.platformUsers.keys()])];
    return {
      high_risk: countsBytes(this.highRisk),
      violations: countsBytes(this.violations),
      platforms,
      platform_users: platforms.map((id) => setBytes(this.platformUsers.get(id) ?? new Uint8Array(0))),
      platform_interactions: platforms.map((id) => this.platformCounts.get(id)?.interactions ?? 0),
      platform_high_risk: platforms.map((id) => this.platformCounts.get(id)?.high_risk ?? 0),
      types: [...this.typeUsers.keys()],
      type_users: [...this.typeUsers.values()].map(setBytes),
    };
  }
}

export interface PersonFigures {
  n: number;
  high_risk: number;
  violations: number;
  sensitive_types: number;
  unsanctioned_platforms: number;
}

/** Adds stored counts (dense or sparse) to `into`, grown as needed. */
function addCounts(into: Uint32Array, bytes: Uint8Array): Uint32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength % 4 === 1) {
    let sums = into;
    for (let at = 1; at < bytes.byteLength; at += 8) sums = addAt(sums, view.getUint32(at, true), view.getUint32(at + 4, true));
    return sums;
  }
  const length = bytes.byteLength >> 2;
  const sums = into.length >= length ? into : grow(into, length);
  for (let n = 0; n < length; n++) sums[n]! += view.getUint32(n * 4, true);
  return sums;
}

/** Counts as stored, little-endian whatever the machine: dense up to the last that is not 0 (arrays grow by doubling), or sparse when smaller. */
function countsBytes(counts: Uint32Array): Uint8Array {
  let length = counts.length;
  while (length > 0 && counts[length - 1] === 0) length -= 1;
  let users = 0;
  for (let n = 0; n < length; n++) if (counts[n]) users += 1;
  if (1 + users * 8 < length * 4) {
    const bytes = new Uint8Array(1 + users * 8);
    const view = new DataView(bytes.buffer);
    bytes[0] = 1;
    let at = 1;
    for (let n = 0; n < length; n++) {
      if (!counts[n]) continue;
      view.setUint32(at, n, true);
      view.setUint32(at + 4, counts[n]!, true);
      at += 8;
    }
    return bytes;
  }
  const bytes = new Uint8Array(length * 4);
  const view = new DataView(bytes.buffer);
  for (let n = 0; n < length; n++) view.setUint32(n * 4, counts[n]!, true);
  return bytes;
}

function addArray(into: Uint32Array, other: Uint32Array): Uint32Array {
  const sums = into.length >= other.length ? into : grow(into, other.length);
  for (let n = 0; n < other.length; n++) sums[n]! += other[n]!;
  return sums;
}

/** A set as stored: its bitmap, or its users' n then a 0x00 byte when that is smaller. */
function setBytes(bits: Uint8Array): Uint8Array {
  const users = popcount(bits);
  if (users * 4 + 1 >= bits.length) return bits;
  const bytes = new Uint8Array(users * 4 + 1);
  const view = new DataView(bytes.buffer);
  let at = 0;
  forEachBit(bits, (n) => {
    view.setUint32(at, n, true);
    at += 4;
  });
  return bytes;
}

function addAt(into: Uint32Array, n: number, value: number): Uint32Array {
  const sums = into.length > n ? into : grow(into, Math.max(n + 1, into.length * 2));
  sums[n]! += value;
  return sums;
}

function grow(array: Uint32Array, length: number): Uint32Array {
  const grown = new Uint32Array(length);
  grown.set(array);
  return grown;
}

/** `key`'s bitmap in `map`, at least `length` bytes long (grown with zeros, or created). */
function bitmapOf(map: Map<string, Uint8Array>, key: string, length: number): Uint8Array {
  const current = map.get(key);
  if (current && current.length >= length) return current;
  const grown = new Uint8Array(length);
  if (current) grown.set(current);
  map.set(key, grown);
  return grown;
}

/** Sets user `n`'s bit in `key`'s bitmap: in place, without a bitmap of its own per row. */
function setBit(map: Map<string, Uint8Array>, key: string, n: number): void {
  bitmapOf(map, key, (n >> 3) + 1)[n >> 3]! |= 1 << (n & 7);
}

/** ORs a stored set (bitmap or sparse) into `key`'s bitmap. */
function orInto(map: Map<string, Uint8Array>, key: string, bits: Uint8Array): void {
  if (bits.length > 0 && bits[bits.length - 1] === 0) {
    if (bits.length < 5) return; // no user
    const view = new DataView(bits.buffer, bits.byteOffset, bits.byteLength);
    // Ascending: the last n says how long the bitmap must be.
    const result = bitmapOf(map, key, (view.getUint32(bits.length - 5, true) >> 3) + 1);
    for (let at = 0; at + 4 < bits.length; at += 4) {
      const n = view.getUint32(at, true);
      result[n >> 3]! |= 1 << (n & 7);
    }
    return;
  }
  const result = bitmapOf(map, key, bits.length);
  for (let i = 0; i < bits.length; i++) result[i]! |= bits[i]!;
}

const BITS_IN = Uint8Array.from({ length: 256 }, (_, byte) => {
  let bits = 0;
  for (let b = byte; b; b >>= 1) bits += b & 1;
  return bits;
});

function popcount(bits: Uint8Array | undefined): number {
  let count = 0;
  if (bits) for (const byte of bits) count += BITS_IN[byte]!;
  return count;
}

function forEachBit(bits: Uint8Array, visit: (n: number) => void): void {
  for (let i = 0; i < bits.length; i++) {
    const byte = bits[i]!;
    if (byte) for (let b = 0; b < 8; b++) if (byte & (1 << b)) visit(i * 8 + b);
  }
}
