/** Several choices of one condition, as labelled checkboxes in a fieldset; none ticked means "any". */
export function CheckboxGroup<T extends string>({ legend, hint, options, value, onChange }: {
  legend: string;
  hint?: string;
  options: readonly { value: T; label: string }[];
  value: T[];
  onChange: (value: T[]) => void;
}) {
  function toggle(option: T, checked: boolean) {
    onChange(checked ? [...value, option] : value.filter((v) => v !== option));
  }
  return (
    <fieldset className="field" style={{ border: 'none', padding: 0, margin: '0 0 12px' }}>
      <legend style={{ fontWeight: 550, padding: 0, marginBottom: 4 }}>{legend}</legend>
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: '6px 16px' }}>
        {options.map((option) => (
          <label key={option.value} className="checkbox">
            <input type="checkbox" checked={value.includes(option.value)} onChange={(e) => toggle(option.value, e.target.checked)} />
            {option.label}
          </label>
        ))}
      </div>
      {hint && <small className="muted">{hint}</small>}
    </fieldset>
  );
}
