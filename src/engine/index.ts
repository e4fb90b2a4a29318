/**
 * The engine's one face: what code outside src/engine/ may use (test/node/layers.test.ts holds it). Documents are
 * loaded and checked (load/), normalised (normalize/), compared (diff/, rules/), judged (verdict/), validated as payloads
 * and recorded traffic (payload/, exchanges/) and rendered (formats/); engine.ts runs the checks.
 */
export * from "./engine";
export * from "./exchanges/exchange";
export * from "./exchanges/parse";
export * from "./exchanges/validate";
export * from "./formats";
export * from "./formats/markdown";
export * from "./formats/report";
export * from "./formats/source-positions";
export * from "./load/parse-upload";
export * from "./load/pattern-check";
export * from "./load/strip-annotations";
export * from "./normalize/normalize-document";
export * from "./payload/payload";
export * from "./payload/work-budget";
export * from "./types";
export * from "./verdict/acceptance";
export * from "./verdict/config";
export * from "./verdict/encode-verdict";
export * from "./verdict/usage";
