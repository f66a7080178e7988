/** Table types of the users feature; merged into `Database` in src/db/types.ts. */
export interface UsersTables {}
