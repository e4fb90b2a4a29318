/**
 * Size limits of the CI API. MAX_DOCUMENT_BYTES bounds an uploaded OpenAPI document: a snapshot upload holds the
 * body bytes, the decoded text while parsing (two bytes per character once the text has one non-Latin-1
 * character), the parsed snapshot, then the parsed active contract and the verdict, inside the Worker's 128 MB.
 * Measured with scripts/contracts-upload-memory.ts (docs/storage.md "Storage"): GitHub's 13 MB description completes with
 * a 50 MB heap (+12 MB of bytes) when the contract is read from its verdict form, 69 MB when read from its bytes (a
 * version stored before forms); a 15 MiB document checked against itself read from its bytes needs 106 MB (+15 MB),
 * the edge of the budget. Larger documents are refused with 413 before anything is read.
 */
export const MAX_DOCUMENT_BYTES = 15 * 1024 * 1024;

/** JSON bodies of the small routes (build results, CI keys). */
export const MAX_JSON_BODY_BYTES = 256 * 1024;

/** A failed build keeps at most this much of its log: the end, where the error usually is. */
export const MAX_LOG_EXCERPT_CHARS = 64 * 1024;

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** Violations listed in the REST answer to an invalid document (the rest are counted). */
export const MAX_PROBLEMS_SHOWN = 200;

/** A build result body: the log may be long (up to 1 Mi characters); only its end is kept. */
export const MAX_BUILD_BODY_BYTES = 4 * 1024 * 1024;

/** The most CI keys one organization has active (neither revoked nor expired) at once. */
export const MAX_ACTIVE_KEYS = 1000;
