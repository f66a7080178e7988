/** Table types of the interactions feature; merged into `Database` in src/db/types.ts. */
export interface InteractionsTables {}
