import { PageHeader } from '../components/ui.js';

export function ProfilePage() {
  return <PageHeader title="My profile" />;
}
