// Types of scripts/dev.mjs for the tests that import it.
export declare const DEFAULT_PORT: number;
export declare function devArguments(argv: readonly string[], env?: Record<string, string | undefined>): string[];
