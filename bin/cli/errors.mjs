// Exit codes and the one error every command raises for "could not verify" (exit 2).

export const EXIT = Object.freeze({ approved: 0, rejected: 1, unverified: 2 });

export class Unverified extends Error {}

export function fail(message) {
  throw new Unverified(message);
}
