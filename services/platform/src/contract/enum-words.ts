import type { DescEnum } from "@bufbuild/protobuf";

/**
 * A protobuf enum's values as the words the REST API and the databases spell them: the value's
 * name without the enum's prefix, in lower case (`MEETING_STATUS_LIVE` → `live`). The words come
 * from the enum's descriptor (protobuf-es), so the .proto is their one source: the gateway and the
 * owning service each derive them, neither lists them. The zero value (`…_UNSPECIFIED`) has none.
 * `Word` is the union the caller's own types name (the REST contract's enum, a stored column's
 * type); `enum-words.test.ts` beside each caller checks it is exactly the descriptor's words.
 */
export interface EnumWords<Value extends number, Word extends string> {
  /** Every named value's word, in the .proto's order. */
  readonly words: readonly Word[];
  /** The word of a value; undefined for the zero value or a number the .proto does not name. */
  wordOf(value: Value): Word | undefined;
  /** The value a word names. */
  valueOf(word: Word): Value;
}

export function enumWords<Value extends number, Word extends string>(schema: DescEnum): EnumWords<Value, Word> {
  const named = schema.values.filter((value) => value.number !== 0);
  const byValue = new Map(named.map((value) => [value.number, value.localName.toLowerCase() as Word]));
  const byWord = new Map(named.map((value) => [value.localName.toLowerCase() as Word, value.number as Value]));
  return {
    words: [...byWord.keys()],
    wordOf: (value) => byValue.get(value),
    valueOf: (word) => {
      const value = byWord.get(word);
      if (value === undefined) throw new Error(`${schema.typeName} names no value "${word}"`);
      return value;
    },
  };
}
