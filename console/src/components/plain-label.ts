/** A checkbox's label inside a .field keeps the normal weight (styles.css makes a field's labels bold). */
export const PLAIN_LABEL = { fontWeight: 'normal' } as const;
