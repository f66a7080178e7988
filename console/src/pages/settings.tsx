import { PageHeader } from '../components/ui.js';

export function SettingsPage() {
  return <PageHeader title="Settings" />;
}
