import { PageHeader } from '../components/ui.js';

export function PoliciesPage() {
  return <PageHeader title="Policies" />;
}
