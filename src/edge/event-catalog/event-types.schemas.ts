import { Type } from 'typebox';
import { component, StringEnum } from '../../kernel/schemas.js';
import { EVENT_CATALOG } from './event-catalog.js';
import { EVENT_TYPES } from '../../platform/outbox/event-types.js';

/** A JSON object sent as it is (its own shape is described elsewhere). */
const JsonObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const EventTypeDescriptionSchema = Type.Object({
  type: StringEnum(EVENT_TYPES, { description: 'The event type, as webhooks subscribe to it' }),
  description: Type.String({ description: 'When the event is emitted and what its `data` is' }),
  schema: JsonObject('JSON Schema of the whole delivery body (the envelope with its `data`); open to new fields'),
  sample: JsonObject('A realistic delivery body of this type; the test operation sends one like it'),
});

export const EventTypeListSchema = component('EventTypeList', Type.Object({
  event_types: Type.Array(EventTypeDescriptionSchema, { description: 'Every event type, in a stable order' }),
}), {
  description: 'The event catalog: every event type webhooks can subscribe to.',
  example: { event_types: EVENT_CATALOG.slice(0, 1).map(({ type, description, schema, sample }) => ({ type, description, schema, sample })) },
});
