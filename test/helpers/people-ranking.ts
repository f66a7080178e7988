/** An interaction a test created, as the people-at-risk figures see it. */
export interface RankedInteraction {
  user_id: string | null;
  platform_id: string;
  risk_score: number;
  types: string[];
  timestamp: string;
}

/**
 * The ranking of people at risk counted from what a test created, apart from the service
 * (docs/platforms.md, "People at risk"): its policy raises an alert on CREDIT_CARD, and `openai`
 * is its one sanctioned platform.
 */
export function expectedRanking(created: readonly RankedInteraction[], start?: string, end?: string) {
  const rows = created.filter((c) => c.user_id && (!start || c.timestamp >= start) && (!end || c.timestamp <= end));
  return [...new Set(rows.map((c) => c.user_id!))].map((user_id) => {
    const own = rows.filter((c) => c.user_id === user_id);
    const figures = {
      high_risk: own.filter((c) => c.risk_score >= 0.7).length,
      violations: own.filter((c) => c.types.includes('CREDIT_CARD')).length,
      sensitive_types: new Set(own.flatMap((c) => c.types)).size,
      unsanctioned_platforms: new Set(own.filter((c) => c.platform_id !== 'openai').map((c) => c.platform_id)).size,
    };
    return { user_id, score: figures.high_risk + 2 * figures.violations + 5 * figures.sensitive_types + 10 * figures.unsanctioned_platforms, ...figures };
  }).filter((p) => p.score > 0).sort((a, b) => b.score - a.score || (a.user_id < b.user_id ? 1 : -1));
}
