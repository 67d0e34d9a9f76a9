/** `createdAt` → `created_at`: our columns are the snake_case of the fields they hold. */
type SnakeCase<Name extends string> = Name extends `${infer First}${infer Rest}`
  ? `${First extends Lowercase<First> ? First : `_${Lowercase<First>}`}${SnakeCase<Rest>}`
  : Name;

/**
 * The row a query answers for a record whose every field is a column of the same name in
 * snake_case (`meetingId` ↔ `meeting_id`; a column named otherwise is selected `AS` the field's
 * name). The one declaration of such a record is its TypeScript type; the row follows from it.
 */
export type SnakeCaseRow<Fields> = { [Field in keyof Fields & string as SnakeCase<Field>]: Fields[Field] };

const fieldNames = new Map<string, string>();

/** `created_at` → `createdAt`, each column name converted once per process. */
function fieldNameOf(column: string): string {
  let name = fieldNames.get(column);
  if (name === undefined) {
    name = column.replace(/_([a-z0-9])/g, (_underscore, letter: string) => letter.toUpperCase());
    fieldNames.set(column, name);
  }
  return name;
}

/** The record a SnakeCaseRow holds: each column under its camelCase field name, the values as they are. */
export function fromSnakeCaseRow<Fields>(row: SnakeCaseRow<Fields>): Fields {
  const record: { [field: string]: unknown } = {};
  for (const [column, value] of Object.entries(row)) record[fieldNameOf(column)] = value;
  return record as Fields;
}
