import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { EnumWords } from "@svc/platform/contract";

/** Conversions of protobuf values into the JSON the REST contract (gateway/src/contract) documents. */

/** An optional timestamp: ISO 8601 in UTC, or null. */
export const isoOrNull = (timestamp: Timestamp | undefined): string | null => (timestamp ? timestampDate(timestamp).toISOString() : null);

/** A timestamp the service always sets; its absence is a bug there, answered as a 500. */
export function isoTime(timestamp: Timestamp | undefined): string {
  if (!timestamp) throw new Error("a required timestamp is missing from the service's answer");
  return timestampDate(timestamp).toISOString();
}

/** An enum value by its public name; an unspecified (0) or unknown value is a bug in the service. */
export function enumName<Value extends number, Name extends string>(words: EnumWords<Value, Name>, value: Value): Name {
  const name = words.wordOf(value);
  if (name === undefined) throw new Error(`the service answered an unnamed enum value ${value}`);
  return name;
}
