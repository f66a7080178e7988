import type { FormEvent } from 'react';
import { Field } from '../../components/ui.js';
import { CheckboxGroup } from './checkbox-group.js';
import {
  ACTIONS, DIRECTIONS, INTERACTION_TYPES, KNOWN_CLASSIFICATIONS, PLATFORM_STATUSES, SEVERITIES, SOURCES,
  type Action, type PolicyFormState, type Severity,
} from './policy-fields.js';

const CLASSIFICATION_OPTIONS = KNOWN_CLASSIFICATIONS.map((type) => ({ value: type as string, label: type }));

/** Every field of a policy and every condition of PolicyConditions; the editor owns the state. */
export function PolicyForm({ form, onChange, onSubmit, onCancel, busy, submitLabel }: {
  form: PolicyFormState;
  onChange: (form: PolicyFormState) => void;
  onSubmit: () => void;
  onCancel: () => void;
  busy: boolean;
  submitLabel: string;
}) {
  const set = <K extends keyof PolicyFormState>(key: K, value: PolicyFormState[K]) => onChange({ ...form, [key]: value });

  function submit(event: FormEvent) {
    event.preventDefault();
    onSubmit();
  }

  return (
    <form onSubmit={submit} aria-label="Policy">
      <Field label="Name">
        <input required maxLength={200} value={form.name} onChange={(e) => set('name', e.target.value)} />
      </Field>
      <Field label="Description">
        <textarea maxLength={2000} value={form.description} onChange={(e) => set('description', e.target.value)} />
      </Field>
      <div style={{ display: 'grid', gridTemplateColumns: '1fr 1fr', gap: '0 16px' }}>
        <Field label="Action" hint={ACTIONS.find((a) => a.value === form.action)?.hint}>
          <select value={form.action} onChange={(e) => set('action', e.target.value as Action)}>
            {ACTIONS.map((a) => <option key={a.value} value={a.value}>{a.label}</option>)}
          </select>
        </Field>
        <Field label="Severity" hint="The severity of the alerts it raises">
          <select value={form.severity} onChange={(e) => set('severity', e.target.value as Severity)}>
            {SEVERITIES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </Field>
      </div>
      <label className="checkbox" style={{ marginBottom: 16 }}>
        <input type="checkbox" checked={form.enabled} onChange={(e) => set('enabled', e.target.checked)} />
        Enabled (judges every interaction recorded from now on)
      </label>
      <Field label="Message to the user" hint="Shown by the browser extension when this policy coaches or blocks (up to 500 characters)">
        <textarea maxLength={500} value={form.message} onChange={(e) => set('message', e.target.value)} />
      </Field>

      <h3>Conditions</h3>
      <p className="muted">Every condition given must hold. A condition left empty matches everything.</p>
      <Field label="Platforms" hint="Comma-separated platform ids, e.g. chatgpt, claude">
        <input value={form.platformIds} onChange={(e) => set('platformIds', e.target.value)} />
      </Field>
      <CheckboxGroup legend="App status" hint="The organization's status of the app (AI platforms), as it is when the interaction is recorded"
        options={PLATFORM_STATUSES} value={form.platformStatuses} onChange={(v) => set('platformStatuses', v)} />
      <CheckboxGroup legend="Sensitive data types" hint="The interaction carries a detection of one of these types"
        options={CLASSIFICATION_OPTIONS} value={form.classificationTypes} onChange={(v) => set('classificationTypes', v)} />
      <Field label="Other data types" hint="Comma-separated, exact type names sent by your clients">
        <input value={form.otherClassificationTypes} onChange={(e) => set('otherClassificationTypes', e.target.value)} />
      </Field>
      <div className="field">
        <label className="checkbox">
          <input type="checkbox" checked={form.validatedOnly} onChange={(e) => set('validatedOnly', e.target.checked)} />
          Validated detections only (the service checked the value: card numbers, IBANs, emails…)
        </label>
        <small className="muted">
          The service validates detections only while signal validation is on in Settings: interactions recorded without it never match.
        </small>
      </div>
      <Field label="Minimum risk score" hint="From 0 to 1; the interaction's risk score is at least this">
        <input type="number" step="any" min={0} max={1} value={form.minRiskScore} onChange={(e) => set('minRiskScore', e.target.value)} />
      </Field>
      <CheckboxGroup legend="Directions" options={DIRECTIONS} value={form.directions} onChange={(v) => set('directions', v)} />
      <CheckboxGroup legend="Sources" options={SOURCES} value={form.sources} onChange={(v) => set('sources', v)} />
      <CheckboxGroup legend="Interaction types" options={INTERACTION_TYPES} value={form.interactionTypes}
        onChange={(v) => set('interactionTypes', v)} />

      <div className="actions">
        <button type="submit" className="button" disabled={busy}>{busy ? 'Saving…' : submitLabel}</button>
        <button type="button" className="button secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
