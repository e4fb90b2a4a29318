/**
 * Size limits of the CI API. MAX_DOCUMENT_BYTES bounds an uploaded OpenAPI document: the upload path holds
 * the bytes, their decoded text (two bytes per character once the text has any non-Latin-1 character) and the
 * parsed document, then the active contract for the check, inside the Worker's 128 MB. GitHub's 13 MB
 * description passes with room to spare; see the README for the measured figures.
 */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

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
