import { Field } from '../../components/ui.js';
import { CATEGORIES, RISK_TIERS, STATUSES, type Filters } from './apps.js';

/** The catalog's filters; each change goes straight to the URL (the list is filtered in the page). */
export function CatalogFilters({ filters, onChange }: { filters: Filters; onChange: (key: keyof Filters, value: string) => void }) {
  const select = (key: 'category' | 'status' | 'risk_tier', title: string, options: [string, string][]) => (
    <Field label={title}>
      <select value={filters[key]} onChange={(e) => onChange(key, e.target.value)}>
        <option value="">Any</option>
        {options.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
      </select>
    </Field>
  );
  return (
    <div className="filters" role="search" aria-label="Filter AI apps">
      <Field label="Search">
        <input type="search" value={filters.q} placeholder="Name or vendor" size={22} onChange={(e) => onChange('q', e.target.value)} />
      </Field>
      {select('category', 'Category', CATEGORIES)}
      {select('status', 'Status', STATUSES)}
      {select('risk_tier', 'Risk tier', RISK_TIERS)}
      <label className="checkbox" style={{ marginBottom: 6 }}>
        <input type="checkbox" checked={filters.used === '1'} onChange={(e) => onChange('used', e.target.checked ? '1' : '')} />
        Used in the period only
      </label>
    </div>
  );
}
