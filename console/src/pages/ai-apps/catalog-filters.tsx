import { useEffect, useRef, useState } from 'react';
import { Field } from '../../components/ui.js';
import { CATEGORIES, RISK_TIERS, STATUSES, type Filters } from './apps.js';

const keyOf = (filters: Filters) => JSON.stringify(filters);

/**
 * The catalog's filters; each change goes straight to the URL (the list is filtered in the page).
 * The controls show their own state: the router applies a URL change in a transition, after the
 * keystroke, and a text input bound to the URL would lose what is typed meanwhile. The URL's
 * filters replace that state only when they come from elsewhere (Back, a link).
 */
export function CatalogFilters({ filters, onChange }: { filters: Filters; onChange: (key: keyof Filters, value: string) => void }) {
  const [values, setValues] = useState(filters);
  const sent = useRef<string[]>([]);
  const urlKey = keyOf(filters);
  useEffect(() => {
    const index = sent.current.indexOf(urlKey);
    if (index >= 0) sent.current = sent.current.slice(index + 1);
    else {
      sent.current = [];
      setValues(JSON.parse(urlKey) as Filters);
    }
  }, [urlKey]);

  function change(key: keyof Filters, value: string) {
    const next = { ...values, [key]: value };
    setValues(next);
    sent.current.push(keyOf(next));
    onChange(key, value);
  }

  const select = (key: 'category' | 'status' | 'risk_tier', title: string, options: [string, string][]) => (
    <Field label={title}>
      <select value={values[key]} onChange={(e) => change(key, e.target.value)}>
        <option value="">Any</option>
        {options.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
      </select>
    </Field>
  );
  return (
    <div className="filters" role="search" aria-label="Filter AI apps">
      <Field label="Search">
        <input type="search" value={values.q} placeholder="Name or vendor" size={22} onChange={(e) => change('q', e.target.value)} />
      </Field>
      {select('category', 'Category', CATEGORIES)}
      {select('status', 'Status', STATUSES)}
      {select('risk_tier', 'Risk tier', RISK_TIERS)}
      <label className="checkbox" style={{ marginBottom: 6 }}>
        <input type="checkbox" checked={values.used === '1'} onChange={(e) => change('used', e.target.checked ? '1' : '')} />
        Used in the period only
      </label>
    </div>
  );
}
