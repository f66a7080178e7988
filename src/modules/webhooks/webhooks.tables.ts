/** Table types of the webhooks feature; merged into `Database` in src/db/types.ts. */
export interface WebhooksTables {}
