import { Fragment, type ReactNode } from 'react';
import { Dialog } from '../../components/dialog.js';
import type { User } from './team-types.js';

/**
 * A dialog about one user of the list, open while `user` is set. Its content is made anew for
 * each user (keyed by id), so nothing typed for one user is left over for the next.
 */
export function UserDialog({ title, user, onClose, children }: {
  title: string;
  user: User | null;
  onClose: () => void;
  children: (user: User) => ReactNode;
}) {
  return (
    <Dialog title={title} open={user !== null} onClose={onClose}>
      {user && <Fragment key={user.id}>{children(user)}</Fragment>}
    </Dialog>
  );
}
