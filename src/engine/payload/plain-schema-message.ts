/**
 * The validator library's messages ("Instance type "number" is invalid. Expected "string".") in plain words,
 * with what the schema expects and what the payload holds: "expected a string, received the number 12". The
 * pointer travels beside the message (PayloadError.pointer); a keyword not covered here keeps the library's text.
 */
import { isRecord } from "../normalize/normalize-pointer";

const MAX_SHOWN = 60;

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** A value as a reader sees it, cut short: "the string "12.00"", "the number 12", "an object". */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length} ${value.length === 1 ? "item" : "items"}`;
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value);
  const shown = text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
  return `the ${typeName(value)} ${shown}`;
}

function literal(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

function expectedTypes(type: unknown): string {
  const list = (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === "string");
  return list.length === 0 ? "another type" : list.map((t) => (t === "null" ? "null" : article(t))).join(" or ");
}

function count(n: unknown, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function size(value: unknown): number | undefined {
  if (typeof value === "string") return [...value].length;
  if (Array.isArray(value)) return value.length;
  if (isRecord(value)) return Object.keys(value).length;
  return undefined;
}

/** `schema` is the schema object holding `keyword`; `value` the payload's value at the error's pointer. */
export function plainSchemaMessage(keyword: string, schema: unknown, value: unknown, libraryMessage: string): string {
  const s = isRecord(schema) ? schema : {};
  const received = describeValue(value);
  switch (keyword) {
    case "type":
      return `expected ${expectedTypes(s.type)}, received ${received}`;
    case "enum":
      return Array.isArray(s.enum)
        ? `expected one of ${s.enum.slice(0, 12).map(literal).join(", ")}${s.enum.length > 12 ? ", …" : ""}; received ${received}`
        : libraryMessage;
    case "const":
      return `expected exactly ${literal(s.const)}, received ${received}`;
    case "required": {
      const missing =
        Array.isArray(s.required) && isRecord(value)
          ? s.required.filter((name) => typeof name === "string" && !(name in value))
          : [];
      return missing.length > 0
        ? `required ${missing.length === 1 ? "property" : "properties"} ${missing.map((m) => `"${m}"`).join(", ")} ${missing.length === 1 ? "is" : "are"} missing`
        : libraryMessage;
    }
    case "minimum":
      return `expected at least ${s.minimum}, received ${received}`;
    case "maximum":
      return `expected at most ${s.maximum}, received ${received}`;
    case "exclusiveMinimum":
      return `expected more than ${s.exclusiveMinimum}, received ${received}`;
    case "exclusiveMaximum":
      return `expected less than ${s.exclusiveMaximum}, received ${received}`;
    case "multipleOf":
      return `expected a multiple of ${s.multipleOf}, received ${received}`;
    case "minLength":
      return `expected at least ${count(s.minLength, "character")}, received ${count(size(value), "character")}`;
    case "maxLength":
      return `expected at most ${count(s.maxLength, "character")}, received ${count(size(value), "character")}`;
    case "minItems":
      return `expected at least ${count(s.minItems, "item")}, received ${count(size(value), "item")}`;
    case "maxItems":
      return `expected at most ${count(s.maxItems, "item")}, received ${count(size(value), "item")}`;
    case "minProperties":
      return `expected at least ${count(s.minProperties, "property")}, received ${count(size(value), "property")}`.replace(
        /propertys/g,
        "properties",
      );
    case "maxProperties":
      return `expected at most ${count(s.maxProperties, "property")}, received ${count(size(value), "property")}`.replace(
        /propertys/g,
        "properties",
      );
    case "pattern":
      return `expected text matching the pattern ${literal(s.pattern)}, received ${received}`;
    case "format":
      return `expected ${article(String(s.format))} (format ${literal(s.format)}), received ${received}`;
    case "uniqueItems":
      return "expected every item to be different, received an array with repeated items";
    case "anyOf":
    case "oneOf":
      return `matches none of the ${Array.isArray(s[keyword]) ? (s[keyword] as unknown[]).length : ""} alternatives the schema allows (${keyword}); received ${received}`.replace(
        "the  alternatives",
        "the alternatives",
      );
    default:
      return libraryMessage;
  }
}
