/** SQL reading a `timestamptz` column as a cursor's microseconds (text, so no precision is lost). */
export const cursorMicrosOf = (column: string) => `(extract(epoch FROM ${column}) * 1000000)::bigint::text`;

/** SQL turning a cursor's microseconds parameter back into a `timestamptz`. */
export const timestampOfMicros = (parameter: string) => `('epoch'::timestamptz + ${parameter}::bigint * interval '1 microsecond')`;
