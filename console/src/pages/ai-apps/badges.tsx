import { Badge } from '../../components/ui.js';
import { displayName, label, RISK_TIERS, STATUSES, type Platform, type RiskTier, type Status } from './apps.js';

const STATUS_TONES: Record<Status, 'good' | 'warn' | 'bad'> = { sanctioned: 'good', unsanctioned: 'warn', blocked: 'bad' };
const TIER_TONES: Record<RiskTier, 'good' | 'warn' | 'bad'> = { low: 'good', medium: 'warn', high: 'bad' };

export function StatusBadge({ status }: { status: Status }) {
  return <Badge tone={STATUS_TONES[status]}>{label(STATUSES, status)}</Badge>;
}

export function RiskTierBadge({ tier }: { tier: RiskTier | null }) {
  return tier ? <Badge tone={TIER_TONES[tier]}>{label(RISK_TIERS, tier)}</Badge> : <span className="muted">—</span>;
}

export function NotInCatalog({ platform }: { platform: Platform }) {
  return platform.catalog ? null : <Badge tone="info">not in catalog</Badge>;
}

/** A platform's row header: its name (the id below it with `withId`), marked when the catalog lacks it. */
export function AppNameHeader({ platform, withId = false }: { platform: Platform; withId?: boolean }) {
  return (
    <th scope="row" style={{ fontWeight: 'normal', background: 'none' }}>
      <strong>{displayName(platform)}</strong> <NotInCatalog platform={platform} />
      {withId && platform.name && <div><small className="muted mono nowrap">{platform.id}</small></div>}
    </th>
  );
}

/** `true`, `false`, or unknown: the catalog says `null` when the vendor's pages do not say it plainly. */
export function TrainsOnInputs({ value }: { value: boolean | null }) {
  if (value === null) return <span className="muted">unknown</span>;
  return value ? <Badge tone="bad">yes</Badge> : <Badge tone="good">no</Badge>;
}
