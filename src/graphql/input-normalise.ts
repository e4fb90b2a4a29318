/**
 * Semantic normalisation of enum arguments: a value's own name in any case, or a synonym from
 * policies/graphql/inputs.json (`paid`, `Paid`, `pago` -> PAID). Unknown words are refused by the caller
 * with the list of valid values.
 */
import type { GraphQLEnumType } from "graphql";

/** Lower case, accents removed, inner whitespace collapsed: how words are compared. */
export function foldWord(word: string): string {
  return word.normalize("NFD").replace(/\p{M}/gu, "").trim().replace(/\s+/g, " ").toLowerCase();
}

export interface EnumNormaliser {
  readonly typeName: string;
  readonly values: readonly string[];
  /** Synonyms by canonical value, as written in policy. */
  readonly synonyms: Readonly<Record<string, readonly string[]>>;
  /** The canonical value for `word`, or undefined when it is neither a value nor a synonym. */
  normalise(word: string): string | undefined;
  /** Every (folded word, value) pair, longest word first: for finding values inside free text. */
  readonly words: ReadonlyArray<readonly [string, string]>;
}

/** Builds the normaliser; returns a problem text instead when the synonyms are inconsistent. */
export function createEnumNormaliser(
  type: GraphQLEnumType,
  synonyms: Readonly<Record<string, readonly string[]>>,
): EnumNormaliser | string {
  const values = type.getValues().map((v) => v.name);
  const lookup = new Map<string, string>();
  for (const value of values) lookup.set(foldWord(value), value);
  for (const [canonical, words] of Object.entries(synonyms)) {
    if (!values.includes(canonical))
      return `"${canonical}" is not a value of enum ${type.name} (values: ${values.join(", ")})`;
    for (const word of words) {
      const folded = foldWord(word);
      const existing = lookup.get(folded);
      if (existing !== undefined && existing !== canonical)
        return `synonym "${word}" maps to both ${existing} and ${canonical}`;
      lookup.set(folded, canonical);
    }
  }
  const words = [...lookup.entries()].sort((a, b) => b[0].length - a[0].length);
  return {
    typeName: type.name,
    values,
    synonyms,
    normalise: (word) => lookup.get(foldWord(word)),
    words,
  };
}

/**
 * The refusal text for an unknown enum word: names the valid values and a few synonyms. It does not echo
 * the word: refusal texts also go into the audit record's reason, which never holds caller payloads.
 */
export function unknownEnumMessage(normaliser: EnumNormaliser): string {
  const examples = Object.entries(normaliser.synonyms)
    .flatMap(([value, words]) => words.slice(0, 2).map((word) => `${word} -> ${value}`))
    .slice(0, 4);
  return (
    `not a valid ${normaliser.typeName}. Valid values: ${normaliser.values.join(", ")}` +
    (examples.length ? ` (synonyms are accepted too, e.g. ${examples.join(", ")})` : "")
  );
}
