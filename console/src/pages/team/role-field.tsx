import { Field } from '../../components/ui.js';
import { ROLES, type Role } from './team-types.js';

/** The role picker of the invite and edit forms, with what the chosen role may do. */
export function RoleField({ role, onRole }: { role: Role; onRole: (role: Role) => void }) {
  return (
    <Field label="Role" hint={ROLES.find((r) => r.value === role)?.hint}>
      <select value={role} onChange={(e) => onRole(e.target.value as Role)}>
        {ROLES.map((r) => <option key={r.value} value={r.value}>{r.label}</option>)}
      </select>
    </Field>
  );
}
