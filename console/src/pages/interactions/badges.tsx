import type { components } from '@sdk/generated/openapi.js';
import { Badge } from '../../components/ui.js';

type Action = components['schemas']['PolicyDecision']['action'];
type Severity = components['schemas']['Alert']['severity'];

/** The dashboard's bands, coarser: below 0.4 low, from 0.8 high (the service's high-risk threshold). */
export function riskBand(score: number): { label: string; tone: 'good' | 'warn' | 'bad' } {
  if (score >= 0.8) return { label: 'high', tone: 'bad' };
  if (score >= 0.4) return { label: 'medium', tone: 'warn' };
  return { label: 'low', tone: 'good' };
}

export function RiskBadge({ score }: { score: number }) {
  const band = riskBand(score);
  return <Badge tone={band.tone}>{score.toFixed(2)} · {band.label}</Badge>;
}

const ACTION_TONES: Record<Action, 'bad' | 'warn' | 'info'> = { block: 'bad', coach: 'warn', log: 'info' };

export function ActionBadge({ action }: { action: Action }) {
  return <Badge tone={ACTION_TONES[action]}>{action}</Badge>;
}

const SEVERITY_TONES: Record<Severity, 'neutral' | 'info' | 'warn' | 'bad'> = { low: 'info', medium: 'warn', high: 'bad', critical: 'bad' };

export function SeverityBadge({ severity }: { severity: Severity }) {
  return <Badge tone={SEVERITY_TONES[severity]}>{severity === 'critical' ? <strong>critical</strong> : severity}</Badge>;
}

/** The types of an interaction's classifications, each once, with how many times it was found. */
export function ClassificationTypes({ classifications }: { classifications: { type: string }[] }) {
  if (classifications.length === 0) return <span className="muted">none</span>;
  const counts = new Map<string, number>();
  for (const { type } of classifications) counts.set(type, (counts.get(type) ?? 0) + 1);
  return (
    <span style={{ display: 'inline-flex', flexWrap: 'wrap', gap: 4 }}>
      {[...counts].map(([type, count]) => <Badge key={type}>{count > 1 ? `${type} ×${count}` : type}</Badge>)}
    </span>
  );
}
