import { PageHeader } from '../components/ui.js';

export function AuditLogPage() {
  return <PageHeader title="Audit log" />;
}
