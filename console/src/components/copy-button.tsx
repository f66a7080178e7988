import { useState } from 'react';

export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    await navigator.clipboard.writeText(value);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  }
  return <button type="button" className="button secondary" onClick={copy}>{copied ? 'Copied' : label}</button>;
}

/** A secret the API shows once: displayed with a copy button and a warning that it will not be shown again. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  return (
    <div className="secret-once" role="status">
      <p><strong>{label}</strong>: copy it now, it will not be shown again.</p>
      <div className="secret-row">
        <code data-testid="secret-value">{value}</code>
        <CopyButton value={value} />
      </div>
    </div>
  );
}
